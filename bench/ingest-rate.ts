// How many samples a second POST /api/samples stores: batches of 500 from a
// few concurrent keep-alive connections against a real `tailprobe serve`
// (writer thread), each answer read only after its commit. Bounded by count
// and time. Baseline in the same run: the same load on one connection. Two
// more loads are reported beside it, the same batches with their sample
// times as pages send them (Shape below).
// Run after npm run build:server: npm run bench -- ingest-rate  (or: npx tsx bench/ingest-rate.ts [smoke|full])
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { keepAliveAgent, postJson } from "../testkit/post-json.js";
import { startServerProcess } from "../testkit/server-process.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

/** The goal's load runs `seconds`; the three loads reported beside it (the baseline and two shapes) `besideSeconds`. */
const SIZES = {
  smoke: { seconds: 1, besideSeconds: 1, connections: 4 },
  full: { seconds: 10, besideSeconds: 5, connections: 4 },
} as const;
const BATCH_SAMPLES = 500;
const RATE_MIN = 200_000;

const METHODS = ["xhr", "jsonp", "ws", "best2"] as const;

/**
 * One batch's JSON, written from a template: the load shares the two cores
 * with the server it measures, and serialising 500 objects a batch cost it
 * as much as the request.
 */
function body(sessionId: string, firstSeq: number, t0: number, gapMs: number): string {
  const samples: string[] = [];
  for (let i = 0; i < BATCH_SAMPLES; i++) {
    const t = t0 + i * gapMs;
    samples.push(
      `{"seq":${firstSeq + i},"t":${t},"scheduledT":${t - 1},"method":"${METHODS[i % 4]}","target":"${i % 4 === 3 ? "A+B" : "A"}","ms":${1 + ((firstSeq + i) % 97) / 10},` +
        `"outcome":"ok","lateMs":1,"visibleAtSend":true,"visibleAtReply":true,"hiddenMs":0}`,
    );
  }
  return `{"clientId":"bench_ingest","sessionId":"${sessionId}","samples":[${samples.join(",")}]}`;
}

/**
 * How the batches' sample times fall. "burst" (the goal's load): each batch
 * of a connection's one session starts at the wall clock, 1 ms apart, so it
 * overlaps that session's previous ~20 batches in time. A page never does
 * that (its samples go out in order), so two more: "ordered", each session's
 * batches one after another in time; "tabs", 50 sessions a connection at a
 * page's 13 samples a second, all of them writing into the same minutes.
 */
type Shape = "burst" | "ordered" | "tabs";
const SHAPES: Record<Shape, { sessions: number; gapMs: number; startAgoMs: number }> = {
  burst: { sessions: 1, gapMs: 1, startAgoMs: 0 },
  ordered: { sessions: 1, gapMs: 1, startAgoMs: 20 * 60_000 },
  tabs: { sessions: 50, gapMs: 77, startAgoMs: 3_600_000 },
};

/** Posts batches on `connections` keep-alive connections for `seconds`; samples stored per second. */
async function load(
  url: string,
  connections: number,
  seconds: number,
  tag: string,
  shape: Shape = "burst",
): Promise<number> {
  const { sessions, gapMs, startAgoMs } = SHAPES[shape];
  const end = performance.now() + seconds * 1000;
  let stored = 0;
  const t0 = performance.now();
  const start = Date.now() - startAgoMs;
  const agent = keepAliveAgent(connections);
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      const next = Array.from({ length: sessions }, () => ({ seq: 0, t: start }));
      for (let k = 0; performance.now() < end && k < 100_000; k++) {
        const s = k % sessions;
        const at = next[s]!;
        const b = body(`bench_${tag}_${c}_${s}`, at.seq, shape === "burst" ? Date.now() : at.t, gapMs);
        at.seq += BATCH_SAMPLES;
        at.t += BATCH_SAMPLES * gapMs;
        const res = await postJson(`${url}/api/samples`, b, agent);
        if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.text}`);
        const r = JSON.parse(res.text) as { accepted?: number };
        stored += r.accepted ?? 0;
      }
    }),
  );
  agent.destroy();
  return stored / ((performance.now() - t0) / 1000);
}

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { seconds, besideSeconds, connections } = SIZES[size];
  const server = await startServerProcess(["--no-ping", "--no-rate-limit", "--peer", "B=http://127.0.0.1:9"], {
    echoStderr: true,
  });
  try {
    const one = await load(server.url, 1, besideSeconds, "one");
    const many = await load(server.url, connections, seconds, "many");
    const ordered = await load(server.url, connections, besideSeconds, "ordered", "ordered");
    const tabs = await load(server.url, connections, besideSeconds, "tabs", "tabs");
    console.log(
      `ingest: ${one.toFixed(0)} samples/s on one connection, ${many.toFixed(0)} on ${connections}; ` +
        `each session in time order ${ordered.toFixed(0)}; ${connections * SHAPES.tabs.sessions} sessions ${tabs.toFixed(0)}`,
    );
    return [
      {
        figure: `POST /api/samples, batches of ${BATCH_SAMPLES}, ${connections} connections (samples/s)`,
        value: many,
        baseline: one,
        goal: `≥ ${RATE_MIN.toLocaleString("en")} samples/s`,
        pass: size === "smoke" ? null : many >= RATE_MIN,
      },
      {
        figure: `  the same, each session's batches in time order (samples/s; baseline: the bursts above)`,
        value: ordered,
        baseline: many,
        goal: "(reported)",
        pass: null,
      },
      {
        figure: `  the same, ${connections * SHAPES.tabs.sessions} sessions at a page's rate (samples/s; baseline: the bursts above)`,
        value: tabs,
        baseline: many,
        goal: "(reported)",
        pass: null,
      },
    ];
  } finally {
    await server.stop();
    fs.rmSync(path.dirname(server.dbPath), { recursive: true, force: true });
  }
}

export const bench: Benchmark = {
  name: "ingest-rate",
  about:
    "POST /api/samples in batches of 500 on 4 connections, each answered after its commit, beside 1 connection; then batches in time order and 200 sessions at a page's rate (5 s each).",
  run,
};
if (isMain(import.meta.url)) await runAlone(bench);
