// A network namespace of the test's own, joined to this host by a veth pair
// on a private /30, so a client can reach a server from an address that is
// not loopback. Named after this process (tp<pid>…) and deleted afterwards.
// Creating one needs root (CAP_NET_ADMIN): netnsAvailable() says whether it can.
import { execFileSync, spawn, spawnSync } from "node:child_process";

export interface TestNetns {
  name: string;
  /** The host side of the pair: where a server listens for the namespace's clients. */
  hostAddress: string;
  /** The namespace's side: the client's address as the server sees it. */
  clientAddress: string;
  /** Runs a program inside the namespace to its end; resolves with its stdout (rejects on a non-zero exit). */
  run(program: string, args: string[], timeoutMs: number): Promise<string>;
  /** Deletes the namespace and the pair. */
  remove(): void;
}

export const NETNS_MISSING = "skipped: needs root and iproute2 to create a network namespace (CI runs as root)";

export function netnsAvailable(): boolean {
  return process.getuid?.() === 0 && spawnSync("ip", ["netns", "list"], { stdio: "ignore" }).status === 0;
}

const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "pipe" });

/**
 * A namespace `tp<pid><tag>` with the client at 10.A.B.202 and the host at
 * 10.A.B.201: bytes with no 0, 1 or 127 in them, so none of their forms
 * (text, hex, packed) is likely by chance in a database.
 */
export function createNetns(tag: string): TestNetns {
  const name = `tp${process.pid}${tag}`;
  const a = 100 + (process.pid % 100);
  const b = 100 + (Math.floor(process.pid / 100) % 100);
  const hostAddress = `10.${a}.${b}.201`;
  const clientAddress = `10.${a}.${b}.202`;
  // Interface names are at most 15 characters.
  const hostIf = `${name}h`.slice(-15);
  const nsIf = `${name}c`.slice(-15);
  ip("netns", "add", name);
  try {
    ip("link", "add", hostIf, "type", "veth", "peer", "name", nsIf);
    ip("link", "set", nsIf, "netns", name);
    ip("addr", "add", `${hostAddress}/30`, "dev", hostIf);
    ip("link", "set", hostIf, "up");
    ip("-n", name, "addr", "add", `${clientAddress}/30`, "dev", nsIf);
    ip("-n", name, "link", "set", nsIf, "up");
    ip("-n", name, "link", "set", "lo", "up");
  } catch (err) {
    spawnSync("ip", ["link", "del", hostIf], { stdio: "ignore" });
    spawnSync("ip", ["netns", "del", name], { stdio: "ignore" });
    throw err;
  }
  return {
    name,
    hostAddress,
    clientAddress,
    run: (program, args, timeoutMs) =>
      new Promise((resolve, reject) => {
        const child = spawn("ip", ["netns", "exec", name, program, ...args], { stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        let err = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString()));
        child.stderr.on("data", (d: Buffer) => (err += d.toString()));
        const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
        child.on("close", (code) => {
          clearTimeout(timer);
          if (code === 0) resolve(out);
          else reject(new Error(`${program} in ${name} exited with ${code}:\n${err}${out}`));
        });
      }),
    remove() {
      // Deleting the namespace deletes its end of the pair, and with it the host's.
      spawnSync("ip", ["netns", "del", name], { stdio: "ignore" });
      spawnSync("ip", ["link", "del", hostIf], { stdio: "ignore" });
    },
  };
}
