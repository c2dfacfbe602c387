// Starts a server as a child process for a benchmark and resolves once it
// prints the address it listens on (tailprobe and the bare baselines alike
// print "listening on http://HOST:PORT").
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import os from "node:os";

export function startChild(cmd: string[], label: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, cmd, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.once("exit", (code) => reject(new Error(`${label} exited with ${code}`)));
  });
}

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
