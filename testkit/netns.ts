// A real bottleneck for tests and benchmarks: two network namespaces joined
// by a veth pair, with a token bucket (tc tbf: a rate and a deep FIFO in
// front of it) on either end's way out. The server runs in one namespace and
// the browser in the other (`ip netns exec`), so every byte between them
// queues where a home router's would. tbf, not netem: this kernel has no
// netem. Needs root (CAP_NET_ADMIN); namespaces are named tp<pid>… so
// parallel runs never meet, and are deleted on destroy() and at exit.
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface ShapedLink {
  /** Egress rate (Mbit/s). */
  rateMbit: number;
  /** The FIFO's depth as the delay it holds at that rate (ms): tbf's `latency`. */
  queueMs: number;
}

export interface NetnsPair {
  serverNs: string;
  clientNs: string;
  serverAddress: string;
  clientAddress: string;
  /** argv prefix that runs a command in a namespace. */
  execIn(ns: string): string[];
  /** The shaped egress of each end, as tc reports it. */
  qdiscs(): Promise<string>;
  destroy(): Promise<void>;
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: 10_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(" ")}: ${(stderr || err.message).trim()}`));
      else resolve(stdout);
    });
  });
}

/** Why this process cannot build namespaces, or null when it can. */
export async function netnsUnavailable(): Promise<string | null> {
  if (process.platform !== "linux") return `network namespaces are Linux's; this is ${process.platform}`;
  if (process.getuid?.() !== 0) return "creating network namespaces needs root (CI runs as root: .ci/run)";
  try {
    await run("ip", ["-V"]);
    await run("tc", ["-V"]);
  } catch {
    return "ip and tc (iproute2) are not installed: apt-get install iproute2";
  }
  return null;
}

let seq = 0;
const live = new Set<string>();
process.once("exit", () => {
  // Last resort for a run cut short: namespaces outlive their processes otherwise.
  for (const ns of live) {
    try {
      execFileSync("ip", ["netns", "del", ns], { stdio: "ignore", timeout: 5000 });
    } catch {
      // Nothing more can be done at exit.
    }
  }
});

/** A tbf on `dev` in `ns`: `rate`, a bucket of 16 kB and a FIFO holding `queueMs` at that rate. */
async function shape(ns: string, dev: string, link: ShapedLink): Promise<void> {
  await run("tc", [
    "-n",
    ns,
    "qdisc",
    "add",
    "dev",
    dev,
    "root",
    "tbf",
    "rate",
    `${link.rateMbit}mbit`,
    "burst",
    "16kb",
    "latency",
    `${link.queueMs}ms`,
  ]);
}

/**
 * Two namespaces, server and client, on one veth pair (10.201.0.1 and .2),
 * shaped as asked: `down` is the server's egress (the client's download),
 * `up` the client's.
 */
export async function createNetnsPair(shaping: { down?: ShapedLink; up?: ShapedLink } = {}): Promise<NetnsPair> {
  const id = `tp${process.pid}${String.fromCharCode(97 + (seq++ % 26))}`;
  const serverNs = `${id}s`;
  const clientNs = `${id}c`;
  const vs = `${id}vs`;
  const vc = `${id}vc`;
  const created: string[] = [];
  const destroy = async () => {
    for (const ns of created.splice(0)) {
      await run("ip", ["netns", "del", ns]).catch(() => undefined);
      live.delete(ns);
    }
  };
  try {
    for (const ns of [serverNs, clientNs]) {
      await run("ip", ["netns", "add", ns]);
      created.push(ns);
      live.add(ns);
    }
    await run("ip", ["link", "add", vs, "type", "veth", "peer", "name", vc]);
    await run("ip", ["link", "set", vs, "netns", serverNs]);
    await run("ip", ["link", "set", vc, "netns", clientNs]);
    const ends: [string, string, string][] = [
      [serverNs, vs, "10.201.0.1/30"],
      [clientNs, vc, "10.201.0.2/30"],
    ];
    for (const [ns, dev, addr] of ends) {
      await run("ip", ["-n", ns, "addr", "add", addr, "dev", dev]);
      await run("ip", ["-n", ns, "link", "set", dev, "up"]);
      await run("ip", ["-n", ns, "link", "set", "lo", "up"]);
    }
    if (shaping.down !== undefined) await shape(serverNs, vs, shaping.down);
    if (shaping.up !== undefined) await shape(clientNs, vc, shaping.up);
  } catch (err) {
    await destroy();
    throw err;
  }
  return {
    serverNs,
    clientNs,
    serverAddress: "10.201.0.1",
    clientAddress: "10.201.0.2",
    execIn: (ns) => ["ip", "netns", "exec", ns],
    qdiscs: async () =>
      `${await run("tc", ["-n", serverNs, "-s", "qdisc", "show", "dev", vs])}${await run("tc", ["-n", clientNs, "-s", "qdisc", "show", "dev", vc])}`,
    destroy,
  };
}

/** An executable that starts `binary` inside `ns` with the arguments it is given (for launchers that take a path). */
export function wrapperIn(ns: string, binary: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tailprobe-netns-"));
  const file = path.join(dir, "in-netns.sh");
  fs.writeFileSync(file, `#!/bin/sh\nexec ip netns exec ${ns} ${binary} "$@"\n`, { mode: 0o755 });
  return file;
}
