// The kernel's TCP round-trip figures for every connection to one local port,
// read with ONE `ss` run per interval for all of a server's pages (not one
// process per page). Linux only: elsewhere the baseline says so and stays off.
import type { BaselineStatusCode } from "../../shared/contract/index.js";
import { fail, ok, type Result } from "../../shared/result.js";
import { directSpawn, runToEnd, type SpawnFn } from "../platform/spawner.js";
import { endpointKey, ssConnections, type SsConnection } from "./ss-parse.js";

/** An ss run slower than this (ms) is abandoned: its figures would be stale. */
export const SS_TIMEOUT_MS = 2000;
const SS_OUTPUT_BYTES_MAX = 16 * 1024 * 1024;
/** Longest stretch (ms) ss's output is parsed before other work gets a turn. */
const PARSE_SLICE_MS = 1;

export type TcpInfoAvailability = { available: true } | { available: false; code: BaselineStatusCode; reason: string };

export const TCP_INFO_FIX = "install iproute2 (apt-get install iproute2), which provides ss";

export interface TcpInfoReader {
  /** Connections to `localPort`, keyed by endpointKey(peer address, peer port). */
  read(localPort: number): Promise<Result<Map<string, SsConnection>>>;
  check(): Promise<TcpInfoAvailability>;
}

export function ssReader(command = "ss", spawnFn: SpawnFn = directSpawn): TcpInfoReader {
  // Read as bytes, made a string once: at 2,000 tabs ss prints ~1.5 MB a second, and as
  // decoded chunks joined at the end it was a fifth of what the event loop's young
  // generation copied and promoted (a sampling heap profile); bytes stay off the heap.
  const run = async (args: string[]): Promise<Result<string>> => {
    const r = await runToEnd(spawnFn, command, args, { timeoutMs: SS_TIMEOUT_MS, maxBytes: SS_OUTPUT_BYTES_MAX });
    if (r.error === null) return ok(r.stdout.toString());
    if (r.error.code === "ENOENT") return fail(`${command} not found: ${TCP_INFO_FIX}`);
    if (r.error.killed) return fail("ss-timeout");
    return fail(`${command}: ${(r.stderr.toString() || r.error.message).trim().split("\n")[0]!.slice(0, 160)}`);
  };
  return {
    async read(localPort) {
      // -H no header, -t TCP, -i TCP_INFO, -n numeric; the filter keeps only this server's accepted connections.
      const out = await run(["-Htin", "state", "established", `( sport = :${localPort} )`]);
      if (!out.ok) return out;
      return ok(await connectionsByPeer(out.value, localPort));
    },
    async check() {
      if (process.platform !== "linux")
        return {
          available: false,
          code: "unsupported",
          reason: `needs Linux's ss (iproute2) to read TCP_INFO; this is ${process.platform}`,
        };
      const out = await run(["-V"]);
      if (out.ok) return { available: true };
      return {
        available: false,
        code: / not found: /.test(out.error) ? "not-installed" : "check-failed",
        reason: out.error,
      };
    },
  };
}

/**
 * ss's output, the connections to `localPort` keyed by endpointKey(peer
 * address, peer port); parsed in slices, each a turn of the event loop: in one
 * go, 2,000 tabs' ~8,000 lines held the echo paths ~10 ms every second.
 */
export async function connectionsByPeer(ssOutput: string, localPort: number): Promise<Map<string, SsConnection>> {
  const byPeer = new Map<string, SsConnection>();
  let sliceEnd = performance.now() + PARSE_SLICE_MS;
  let n = 0;
  for (const c of ssConnections(ssOutput)) {
    if (c.localPort === localPort) byPeer.set(endpointKey(c.peerAddress, c.peerPort), c);
    if (++n % 64 === 0 && performance.now() > sliceEnd) {
      await new Promise((r) => setImmediate(r));
      sliceEnd = performance.now() + PARSE_SLICE_MS;
    }
  }
  return byPeer;
}
