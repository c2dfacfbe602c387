// CPU time and memory of processes, read from /proc (Linux): what a benchmark
// charges to the server or helper processes it measures.
import fs from "node:fs";
import { SCHED, threadPolicies } from "../testkit/thread-policies.js";

/**
 * CPU time (schedstat, ns resolution: tick counts round a mostly idle process to
 * zero), proportional memory (PSS: shared pages split between sharers, MB; what
 * many processes cost together) and resident memory (RSS, MB) summed over the
 * processes; one that has exited counts as nothing. A process that forks (the
 * server's `ss` and `ping` runs) shares its pages with the child until the
 * exec, and its PSS reads lower meanwhile (one sample of 729 at 20 Hz fell 15 MB
 * and came back, RSS unchanged): a single process's growth is read from RSS.
 */
export function procUsage(pids: number[]): { cpuS: number; pssMb: number; rssMb: number } {
  let cpuNs = 0;
  let pssKb = 0;
  let rssKb = 0;
  for (const pid of pids) {
    try {
      cpuNs += Number(fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      pssKb += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      rssKb += Number(/^Rss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // exited: counted as nothing
    }
  }
  return { cpuS: cpuNs / 1e9, pssMb: pssKb / 1024, rssMb: rssKb / 1024 };
}

/** CPU time (s) of every thread of the processes (a process's own schedstat counts its main thread only). */
export function threadsCpuS(pids: number[]): number {
  let ns = 0;
  for (const pid of pids) {
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // exited: counted as nothing
    }
    for (const task of tasks) {
      try {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return ns / 1e9;
}

/** Children of a process (e.g. the ping processes a server runs). */
export function childPids(pid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .split(" ")
      .filter((s) => s.trim() !== "")
      .map(Number);
  } catch {
    return [];
  }
}

/** The processes under pid (children, theirs, …) running `command`: the server's pings are its spawner helper's children. */
export function descendantsNamed(pid: number, command: string): number[] {
  const found: number[] = [];
  const walk = (p: number, depth: number) => {
    if (depth > 4) return;
    for (const c of childPids(p)) {
      let comm = "";
      try {
        comm = fs.readFileSync(`/proc/${c}/comm`, "utf8").trim();
      } catch {
        continue;
      }
      if (comm === command) found.push(c);
      walk(c, depth + 1);
    }
  };
  walk(pid, 0);
  return found;
}

const POLICY_NAMES = new Map<number, string>(Object.entries(SCHED).map(([name, n]) => [n, `SCHED_${name}`]));

/** The scheduling policies a process's threads run at other than the default (e.g. the server's writer thread), by name. */
export function otherPolicies(pid: number): string[] {
  const found = new Set<string>();
  for (const policy of threadPolicies(pid).values())
    if (policy !== SCHED.OTHER) found.add(POLICY_NAMES.get(policy) ?? `policy ${policy}`);
  return [...found];
}
