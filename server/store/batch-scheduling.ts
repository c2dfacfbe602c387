// The writer thread asks Linux to schedule it as SCHED_BATCH. Under the
// default policy a thread woken by a message (every ingested batch wakes the
// writer) may preempt the thread that woke it when both share a core: on the
// two-core machine of docs/performance.md, at 40 batches of 500 a second, the
// event loop's postMessage then took ~2 ms of wall time at the median (3-4.5
// at the p90) while the writer ran the batch on its core, and every echo
// that arrived meanwhile waited.
// A SCHED_BATCH thread never preempts on wakeup (it runs at the next tick or
// on an idle core) and keeps its fair share of CPU, so the writer still keeps
// up; the event loop stays a normal thread and preempts the writer as before.
// Node has no call for a thread's policy, so util-linux's `chrt` sets it by
// the thread's id; lowering one's own policy needs no privilege.
import { execFile } from "node:child_process";
import { readlinkSync } from "node:fs";

/** Why the policy was not set, or null once the calling thread runs as SCHED_BATCH. */
export async function scheduleThisThreadAsBatch(): Promise<string | null> {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  let tid: string;
  try {
    // "PID/task/TID": the calling thread's own task id.
    tid = readlinkSync("/proc/thread-self").split("/").pop()!;
  } catch (err) {
    return `no /proc/thread-self (${(err as Error).message})`;
  }
  return new Promise((resolve) =>
    execFile("chrt", ["--batch", "--pid", "0", tid], { timeout: 5000 }, (err, _stdout, stderr) =>
      resolve(err === null ? null : `chrt failed: ${(stderr.trim() || err.message).slice(0, 200)}`),
    ),
  );
}
