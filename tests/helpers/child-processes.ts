// What a process has running under it, read from /proc (Linux), so a test can
// see which addresses a server really pings and that it stops doing so.
import fs from "node:fs";

export interface ChildProcessInfo {
  pid: number;
  /** Process state letter from /proc/PID/stat: R, S, Z (zombie) … */
  state: string;
  argv: string[];
}

function stat(pid: number): { ppid: number; state: string } | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: rest[0]!, ppid: Number(rest[1]) };
  } catch {
    return undefined;
  }
}

export function processState(pid: number): string | undefined {
  return stat(pid)?.state;
}

export function childrenOf(parentPid: number): ChildProcessInfo[] {
  const out: ChildProcessInfo[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const s = stat(pid);
    if (s === undefined || s.ppid !== parentPid) continue;
    let argv: string[] = [];
    try {
      argv = fs
        .readFileSync(`/proc/${pid}/cmdline`, "utf8")
        .split("\0")
        .filter((a) => a !== "");
    } catch {
      continue;
    }
    out.push({ pid, state: s.state, argv });
  }
  return out;
}

/** Every process under a process: its children, theirs, and so on. */
export function descendantsOf(rootPid: number): ChildProcessInfo[] {
  const out: ChildProcessInfo[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    for (const c of childrenOf(queue.shift()!)) {
      out.push(c);
      queue.push(c.pid);
    }
  }
  return out;
}

/**
 * Running `ping` processes under a server, and the address each one pings
 * (its last argument): a server's pings are children of its spawner helper
 * (server/platform/spawner.ts), itself a child of the server.
 */
export function pingChildren(serverPid: number): { pid: number; address: string }[] {
  return descendantsOf(serverPid)
    .filter((c) => c.state !== "Z" && /(^|\/)ping$/.test(c.argv[0] ?? ""))
    .map((c) => ({ pid: c.pid, address: c.argv[c.argv.length - 1]! }));
}
