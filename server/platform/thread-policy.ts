// A thread's scheduling policy, where the platform has one to set: on Linux
// the kernel task id from /proc and util-linux's `chrt` (Node has no call for
// a thread's policy); elsewhere every function here is a no-op that says so
// (no thread id, nothing may be set). The writer thread's use of it and why:
// store/sqlite/writer-yield.ts.
import { execFile } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";

/** SCHED_IDLE (runs only when nothing else wants the core) or SCHED_BATCH (never preempts on wake-up). */
export type ThreadPolicy = "idle" | "batch";

/** How long one `chrt` may take (ms). */
const CHRT_TIMEOUT_MS = 5000;
const CAP_SYS_NICE = 23n;
/** A thread set to nice 0 again needs RLIMIT_NICE of 20 - 0 (setrlimit(2)). */
const RLIMIT_NICE_FOR_NICE_0 = 20;

/** Whether thread policies can be set here at all. */
export const threadPoliciesApply = (): boolean => process.platform === "linux";

/** The calling thread's kernel task id, or null where there is none to set a policy by. */
export function ownThreadId(): string | null {
  if (!threadPoliciesApply()) return null;
  try {
    // "PID/task/TID"
    return readlinkSync("/proc/thread-self").split("/").pop() ?? null;
  } catch {
    return null;
  }
}

/** Sets a thread of this process to the policy; resolves with why not, or null once it is set. */
export function setThreadPolicy(tid: string, policy: ThreadPolicy): Promise<string | null> {
  if (!threadPoliciesApply()) return Promise.resolve(`thread policies do not apply on ${process.platform}`);
  return new Promise((resolve) =>
    execFile("chrt", [`--${policy}`, "--pid", "0", tid], { timeout: CHRT_TIMEOUT_MS }, (err, _stdout, stderr) =>
      resolve(err === null ? null : `chrt --${policy} failed: ${(stderr.trim() || err.message).slice(0, 200)}`),
    ),
  );
}

/**
 * Whether a thread of this process may leave SCHED_IDLE again, from
 * /proc/self/status and /proc/self/limits: leaving it needs CAP_SYS_NICE or
 * RLIMIT_NICE ≥ 20 (sched(7); root has the first); lowering alone is always allowed.
 */
export function mayLeaveIdle(status: string, limits: string): boolean {
  const capEff = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  if (capEff !== undefined && ((BigInt(`0x${capEff}`) >> CAP_SYS_NICE) & 1n) === 1n) return true;
  const soft = /^Max nice priority\s+(\S+)/m.exec(limits)?.[1];
  return soft === "unlimited" || Number(soft) >= RLIMIT_NICE_FOR_NICE_0;
}

/** mayLeaveIdle for this process; false where policies do not apply or /proc cannot be read. */
export function processMayLeaveIdle(): boolean {
  if (!threadPoliciesApply()) return false;
  try {
    return mayLeaveIdle(readFileSync("/proc/self/status", "utf8"), readFileSync("/proc/self/limits", "utf8"));
  } catch {
    return false;
  }
}
