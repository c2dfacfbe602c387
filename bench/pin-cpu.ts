// Pinning the two servers of an overhead comparison to one CPU.
import { execFileSync } from "node:child_process";
import os from "node:os";

/**
 * Pins every thread of the processes to one CPU (Linux, two CPUs or more;
 * elsewhere nothing). Two echo servers compared round for round must sit
 * where the scheduler cannot treat them differently: on two vCPUs a
 * single-threaded server it keeps on the client's core answers without a
 * cross-core wakeup (a bare ws echo read 0.018 ms at the median in one run,
 * 0.07 in every other) and the comparison then measures the placement.
 */
export function pinToOneCpu(pids: number[]): void {
  const cpus = os.availableParallelism();
  if (process.platform !== "linux" || cpus < 2) return;
  for (const pid of pids)
    execFileSync("taskset", ["--all-tasks", "--pid", "--cpu-list", String(cpus - 1), String(pid)], { stdio: "ignore" });
}
