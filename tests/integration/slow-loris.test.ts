// Slow-loris on loopback: real clients that trickle headers, trickle a body or
// say nothing are dropped at the configured timeouts (and reconnect, as an
// attacker would), while an honest prober's p99 stays within 1.5× of its
// baseline measured in the same run, before and after the attack, plus
// SCHEDULING_SLACK_MS: on this shared 2-core machine three processes (server,
// prober, attackers) move a 2-3 ms p99 by about a millisecond between runs.
// @lane alone: compares a prober's p99 during an attack with before and after it: a neighbour's burst in one phase
// alone would move the ratio.
import http from "node:http";
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { percentileSorted } from "../../shared/stats.js";
import { startServerProcess, type ServerProcess } from "../../testkit/server-process.js";

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
/** Node checks the timeouts every headersTimeout/4 here (server/app.ts); allow that, a check's own lateness and a loaded machine. */
const DROP_SLACK_MS = 1500;
const ATTACKERS = { slowHeaders: 40, slowBody: 20, silent: 20 } as const;
/** The attackers trickle one byte this often (ms). */
const TRICKLE_MS = 200;
/** Long enough for PHASE_PROBES probes while the attackers are at work. */
const ATTACK_MS = 9000;
/** The honest prober: one echo this often (ms), as a page at a fast interval would. */
const PROBE_GAP_MS = 3;
/** p99 is the 15th slowest of 1,500: one descheduled probe on a shared machine does not make the tail. */
const PHASE_PROBES = 1500;
/** Allowed on top of 1.5× the baseline p99: measured p99 ratios 0.96-2.0× over seven runs, 1-2 ms apart. */
const SCHEDULING_SLACK_MS = 2;

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess([
    "--no-ping",
    "--no-rate-limit",
    // This test is about the timeouts. Its 80 attackers all come from 127.0.0.1 and
    // reconnect the moment they see a close; the server counts a socket against the
    // per-address cap until its own close event, which on a busy machine can come
    // after the reconnect, so a default cap (128) refused some reconnects before a
    // byte (closes 30-170 ms in, seen in 2 runs of 4 with a core busy): cap drops,
    // not timeout drops. The cap has its own test; here it is out of the way.
    "--connections-per-address",
    "100000",
    "--headers-timeout-ms",
    String(HEADERS_TIMEOUT_MS),
    "--request-timeout-ms",
    String(REQUEST_TIMEOUT_MS),
  ]);
});
afterAll(async () => {
  await server.stop();
});

type Kind = keyof typeof ATTACKERS;
interface Drop {
  kind: Kind;
  attacker: number;
  afterMs: number;
}

/**
 * The attackers run in their own process (tests/helpers/slow-loris-attackers.ts):
 * in this one, their timers and reconnects would delay the honest prober's own
 * event loop, and its p99 would measure the attack's client side, not the server.
 */
function attack(port: number): { started: Promise<void>; drops: Promise<Drop[]> } {
  // At the lowest CPU priority: on a real deployment the attackers' own CPU is elsewhere,
  // here it would share two cores with the server and the prober and make their tail.
  const child = spawn(
    "nice",
    [
      "-n",
      "19",
      process.execPath,
      "--import",
      "tsx",
      "tests/helpers/slow-loris-attackers.ts",
      String(port),
      String(ATTACK_MS),
      JSON.stringify(ATTACKERS),
      String(TRICKLE_MS),
    ],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  let onStarted: () => void = () => {};
  const started = new Promise<void>((r) => (onStarted = r));
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    if (out.includes("STARTED\n")) onStarted();
  });
  const drops = new Promise<Drop[]>((resolve, reject) =>
    child.once("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("DROPS "));
      if (code !== 0 || line === undefined) reject(new Error(`attackers exited with ${code}: ${out.slice(0, 500)}`));
      else resolve(JSON.parse(line.slice("DROPS ".length)) as Drop[]);
    }),
  );
  return { started, drops };
}

/** PHASE_PROBES echo round trips (ms) over one keep-alive connection, paced like a prober. */
async function probe(agent: http.Agent, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      http
        .get(`${server.url}/echo`, { agent }, (res) => {
          res.resume();
          res.on("end", () => resolve());
        })
        .on("error", reject);
    });
    out.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, PROBE_GAP_MS));
  }
  return out;
}

const p99 = (xs: number[]) =>
  percentileSorted(
    [...xs].sort((a, b) => a - b),
    99,
  )!;

describe("slow-loris", () => {
  it("slow clients are dropped at the configured timeouts while an honest prober's p99 stays within 1.5× of its baseline + 2 ms", {
    timeout: 60_000,
  }, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    await probe(agent, 100); // warm-up: connection, JIT
    const before = await probe(agent, PHASE_PROBES);

    const attackers = attack(server.port);
    await attackers.started;
    await new Promise((r) => setTimeout(r, 300)); // every attacker connected
    const during = await probe(agent, PHASE_PROBES);
    const drops = await attackers.drops;
    const after = await probe(agent, PHASE_PROBES);
    agent.destroy();

    const baselineP99 = p99([...before, ...after]);
    const attackP99 = p99(during);
    console.log(
      `honest /echo p99: ${baselineP99.toFixed(3)} ms without the attack, ${attackP99.toFixed(3)} ms during it (${(attackP99 / baselineP99).toFixed(2)}×); ` +
        `${drops.length} drops: ${(Object.keys(ATTACKERS) as Kind[]).map((k) => `${k} ${drops.filter((d) => d.kind === k).length}`).join(", ")}`,
    );
    expect(attackP99).toBeLessThanOrEqual(1.5 * baselineP99 + SCHEDULING_SLACK_MS);

    for (const [kind, timeoutMs] of [
      ["slowHeaders", HEADERS_TIMEOUT_MS],
      ["silent", HEADERS_TIMEOUT_MS],
      ["slowBody", REQUEST_TIMEOUT_MS],
    ] as const) {
      const mine = drops.filter((d) => d.kind === kind);
      // Every attacker of this kind was dropped at least once, and every drop came at its timeout.
      expect(new Set(mine.map((d) => d.attacker)).size, kind).toBe(ATTACKERS[kind]);
      const outside = mine
        .filter((d) => d.afterMs < timeoutMs * 0.9 || d.afterMs > timeoutMs + DROP_SLACK_MS)
        .map((d) => Math.round(d.afterMs));
      expect(outside, `${kind} drops outside [${timeoutMs * 0.9}, ${timeoutMs + DROP_SLACK_MS}] ms`).toEqual([]);
    }
  });
});
