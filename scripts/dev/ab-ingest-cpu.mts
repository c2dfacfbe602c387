// What ingest costs the server, before and after a change, measured as the
// server's own CPU time per sample stored (its process's utime + stime from
// /proc, every thread) rather than as a rate: on a machine shared with other
// work a rate measures the neighbours as much as the server, CPU time far
// less. Each round starts each tree's built server (`tailprobe serve`) on a
// fresh database and posts the same fixed load to it, trees alternating:
//   burst     ingest-rate's load: 4 connections, 500-sample batches whose times overlap
//   tabs      200 sessions at a page's rate, 65-sample batches, in seq and time order
//   resend    the tabs' batches again, each seq at a new t (every sample a duplicate)
// and prints the median CPU µs per posted sample per tree and the median of
// the per-round ratios (after / before).
//
// Linux only. Run: npx tsx scripts/dev/ab-ingest-cpu.mts BEFORE_DIR AFTER_DIR [ROUNDS]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { keepAliveAgent, postJson } from "../../testkit/post-json.js";
import { startNodeServer } from "../../testkit/server-process.js";

const [before, after, roundsArg] = process.argv.slice(2);
if (before === undefined || after === undefined) {
  console.error("usage: ab-ingest-cpu.mts BEFORE_DIR AFTER_DIR [ROUNDS]");
  process.exit(2);
}
const ROUNDS = Number(roundsArg ?? 8);
const CLK_TCK = 100;
const METHODS = ["xhr", "jsonp", "ws", "best2"] as const;

/** A batch's JSON from a template (the load shares the cores with the server it measures). */
function body(sessionId: string, firstSeq: number, n: number, t0: number, gapMs: number): string {
  const samples: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = t0 + i * gapMs;
    samples.push(
      `{"seq":${firstSeq + i},"t":${t},"scheduledT":${t - 1},"method":"${METHODS[i % 4]}","target":"${i % 4 === 3 ? "A+B" : "A"}","ms":${1 + ((firstSeq + i) % 97) / 10},` +
        `"outcome":"ok","lateMs":1,"visibleAtSend":true,"visibleAtReply":true,"hiddenMs":0}`,
    );
  }
  return `{"clientId":"ab_ingest","sessionId":"${sessionId}","samples":[${samples.join(",")}]}`;
}

/** The server process's CPU seconds so far (every thread). */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

type Load = { name: string; bodies: string[]; connections: number };

function loads(): Load[] {
  const now = Date.now();
  const burst: string[] = [];
  for (let k = 0; k < 40; k++)
    for (let c = 0; c < 4; c++) burst.push(body(`ab_burst_${c}`, k * 500, 500, now - 3_600_000 + k * 20, 1));
  const tabs: string[] = [];
  const resend: string[] = [];
  for (let round = 0; round < 6; round++)
    for (let s = 0; s < 200; s++) {
      const t0 = now - 7_200_000 + round * 5000 + s * 7;
      tabs.push(body(`ab_tab_${s}`, round * 65, 65, t0, 77));
      resend.push(body(`ab_tab_${s}`, round * 65, 65, t0 + 900, 77));
    }
  return [
    { name: "burst", bodies: burst, connections: 4 },
    { name: "tabs", bodies: tabs, connections: 4 },
    { name: "resend", bodies: resend, connections: 4 },
  ];
}

const SAMPLES_OF = (b: string) => (b.match(/"seq":/g) ?? []).length;

/** CPU µs per posted sample of each load, on a fresh server of the tree. */
async function measure(tree: string): Promise<Map<string, number>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tailprobe-ab-"));
  const server = await startNodeServer([
    path.join(path.resolve(tree), "bin/tailprobe.js"),
    "serve",
    "--port",
    "0",
    "--no-ping",
    "--no-rate-limit",
    "--peer",
    "B=http://127.0.0.1:9",
    "--db",
    path.join(dir, "ab.db"),
  ]);
  const out = new Map<string, number>();
  try {
    for (const load of loads()) {
      const agent = keepAliveAgent(load.connections);
      const cpu0 = cpuSeconds(server.child.pid!);
      let next = 0;
      await Promise.all(
        Array.from({ length: load.connections }, async () => {
          for (let i = next++; i < load.bodies.length; i = next++) {
            const res = await postJson(`${server.url}/api/samples`, load.bodies[i]!, agent);
            if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.text}`);
          }
        }),
      );
      agent.destroy();
      const samples = load.bodies.reduce((n, b) => n + SAMPLES_OF(b), 0);
      out.set(load.name, ((cpuSeconds(server.child.pid!) - cpu0) * 1e6) / samples);
    }
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const runs: { before: Map<string, number>; after: Map<string, number> }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const beforeFirst = r % 2 === 0;
  const a = await measure(beforeFirst ? before : after);
  const b = await measure(beforeFirst ? after : before);
  runs.push(beforeFirst ? { before: a, after: b } : { before: b, after: a });
  process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
}
console.log(`server CPU µs per posted sample, ${ROUNDS} rounds; before ${before}, after ${after}`);
for (const name of runs[0]!.before.keys()) {
  const b = runs.map((x) => x.before.get(name)!);
  const a = runs.map((x) => x.after.get(name)!);
  const ratios = runs.map((x) => x.after.get(name)! / x.before.get(name)!);
  console.log(
    `${name}: before ${median(b).toFixed(2)}, after ${median(a).toFixed(2)}, after/before ${median(ratios).toFixed(3)} (rounds: ${ratios.map((x) => x.toFixed(2)).join(" ")})`,
  );
}
