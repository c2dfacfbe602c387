// Each thread's scheduling policy, read from /proc (Linux): how the writer
// thread's tests and the ingest-stall benchmark see the server's writer
// thread (server/store/sqlite/writer-yield.ts, server/platform/thread-policy.ts).
import fs from "node:fs";

/** sched(7)'s policy numbers, as /proc reports them. */
export const SCHED = { OTHER: 0, FIFO: 1, RR: 2, BATCH: 3, IDLE: 5, DEADLINE: 6 } as const;

/** A process's threads by id → policy; empty once it has exited. */
export function threadPolicies(pid: number | "self"): Map<string, number> {
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return new Map(); // exited
  }
  const policies = new Map<string, number>();
  for (const tid of tasks) {
    try {
      // Field 41 of stat, counted after the ") " that ends the command name.
      const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ");
      policies.set(tid, Number(fields[41 - 3]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return policies;
}
