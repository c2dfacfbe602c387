// Every field of a sample batch at both ends of its contract (and between),
// through the real ingest into both stores: whatever the contract accepts is
// stored (200, never a 5xx a page would retry forever) and reads back equal
// through the export, /api/clients and /api/stats. The ends of `t` lie 285
// years apart, so two servers run per store: one whose clock stands just
// after EPOCH_MS_MIN, one just before EPOCH_MS_MAX; the ends of `target` are
// a one-character name and the best-of-two pair of two 32-character names.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EPOCH_MS_MAX,
  EPOCH_MS_MIN,
  HIDDEN_MS_MAX,
  LABEL_CHARS_MAX,
  LATENCY_MS_MAX,
  TIMER_RESOLUTION_MS_MAX,
} from "../../shared/contract/index.js";
import { BROWSER_ENGINES } from "../../shared/methods.js";
import { best2Target } from "../../shared/names.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { startInProcess } from "../helpers/in-process.js";
import { freshDb, STORE_KINDS } from "../helpers/store-kinds.js";

const DAY_MS = 86_400_000;
const SEQ_MAX = Number.MAX_SAFE_INTEGER;

/** One server's clock and names: samples are dated within [loMs, hiMs], the contract's ends where it reaches them. */
interface End {
  what: string;
  nowMs: number;
  loMs: number;
  hiMs: number;
  name: string;
  peer: string;
}
const ENDS: End[] = [
  // --raw-days 3: samples back to 3 days before the clock are kept, EPOCH_MS_MIN among them.
  {
    what: "early clock",
    nowMs: EPOCH_MS_MIN + 2 * DAY_MS,
    loMs: EPOCH_MS_MIN,
    hiMs: EPOCH_MS_MIN + 3 * DAY_MS,
    name: "A",
    peer: "B",
  },
  // A day ahead of the clock is accepted: EPOCH_MS_MAX.
  {
    what: "late clock",
    nowMs: EPOCH_MS_MAX - DAY_MS / 2,
    loMs: EPOCH_MS_MAX - 2 * DAY_MS,
    hiMs: EPOCH_MS_MAX,
    name: `A${"a".repeat(31)}`,
    peer: `B${"b".repeat(31)}`,
  },
];

/** lo, hi, or a value between them (a multiple of `step`: latencies are stored to the µs). */
const ends = (lo: number, hi: number, step = 0.001) =>
  fc.oneof(
    fc.constant(lo),
    fc.constant(hi),
    fc
      .integer({ min: Math.ceil(lo / step), max: Math.floor(hi / step) })
      .map((k) => Math.round(k * step * 1000) / 1000),
  );
const latency = ends(0, LATENCY_MS_MAX);
const epoch = (e: End) => ends(e.loMs, e.hiMs, 1);

const PAGE_METHODS = ["xhr", "jsonp", "ws", "best2"] as const;
/** A (method, outcome, reason) the page or a server really produces: the numeric fields are what this test is about. */
const SHAPES = [
  { method: "xhr", outcome: "ok" },
  { method: "xhr", outcome: "error", reason: "http-5xx" },
  { method: "jsonp", outcome: "timeout" },
  { method: "ws", outcome: "error", reason: "ws-closed" },
  { method: "ws", outcome: "skipped", reason: "frozen" },
  { method: "best2", outcome: "ok" },
  { method: "best2", outcome: "error", reason: "network" },
  { method: "ping", outcome: "ok" },
  { method: "ping", outcome: "error", reason: "icmp-unreachable" },
  { method: "wsping", outcome: "timeout" },
  { method: "tcprtt", outcome: "ok" },
] as const;

type Wire = Record<string, unknown> & { seq: number };

function sampleOf(e: End, seq: number): fc.Arbitrary<Wire> {
  return fc
    .record({
      shape: fc.constantFrom(...SHAPES),
      t: epoch(e),
      lateMs: latency,
      timed: fc.boolean(),
      ms: latency,
      otherMs: latency,
      winner: fc.constantFrom("ws", "jsonp"),
      minrtt: latency,
      hiddenMs: ends(0, HIDDEN_MS_MAX, 1),
      serverLagMs: latency,
      serverMs: latency,
      flags: fc.record(
        {
          visibleAtSend: fc.boolean(),
          visibleAtReply: fc.boolean(),
          froze: fc.boolean(),
          fresh: fc.boolean(),
          reportInFlight: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
      peerTarget: fc.boolean(),
    })
    .map((g) => {
      const { method, outcome } = g.shape;
      const s: Wire = { seq, t: g.t, method, target: g.peerTarget ? e.peer : e.name, ms: null, outcome };
      if ("reason" in g.shape) s.reason = g.shape.reason;
      if (outcome === "ok" || outcome === "timeout") s.ms = g.ms;
      if (method === "best2") {
        s.target = best2Target(e.name, e.peer);
        if (outcome === "ok") Object.assign(s, { winner: g.winner, otherMs: g.otherMs, otherOutcome: "ok" });
        else Object.assign(s, { otherMs: null, otherOutcome: "error" });
      }
      if (method === "tcprtt") s.minrtt = g.minrtt;
      if ((PAGE_METHODS as readonly string[]).includes(method)) {
        // The tick was due lateMs before the probe left (the page's own lateness), never before the window.
        const scheduledT = Math.max(e.loMs, g.t - Math.round(g.lateMs));
        Object.assign(s, { scheduledT, ...g.flags, hiddenMs: g.hiddenMs });
        if (g.timed) Object.assign(s, { lateMs: g.t - scheduledT });
        if (outcome !== "skipped") Object.assign(s, { serverLagMs: g.serverLagMs, serverMs: g.serverMs });
      }
      return s;
    });
}

const token = (n: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9_-]{${n}}$`));

function batchOf(e: End) {
  return fc
    .record({
      clientId: fc.oneof(token(8), token(64)),
      sessionId: fc.oneof(token(8), token(64)),
      label: fc.option(
        fc.oneof(fc.constant(""), fc.string({ minLength: LABEL_CHARS_MAX, maxLength: LABEL_CHARS_MAX })),
        {
          nil: undefined,
        },
      ),
      timerResolutionMs: fc.option(ends(0, TIMER_RESOLUTION_MS_MAX), { nil: undefined }),
      engine: fc.option(fc.constantFrom(...BROWSER_ENGINES), { nil: undefined }),
      seqs: fc.uniqueArray(fc.oneof(fc.constant(0), fc.constant(SEQ_MAX), fc.integer({ min: 1, max: SEQ_MAX - 1 })), {
        minLength: 1,
        maxLength: 12,
      }),
    })
    .chain(({ seqs, ...b }) => fc.tuple(...seqs.map((seq) => sampleOf(e, seq))).map((samples) => ({ ...b, samples })));
}

/** What the export says of a sample: its wire fields, absent ones null (the export's columns). */
/** The session's fields every exported sample carries: the page's clock step (µs) and engine. */
interface SessionFields {
  timerResolutionMs?: number | undefined;
  engine?: string | undefined;
}

function expectedRecord(s: Wire, sessionId: string, session: SessionFields): Record<string, unknown> {
  const out: Record<string, unknown> = { sessionId };
  for (const k of [
    "t",
    "seq",
    "method",
    "target",
    "ms",
    "outcome",
    "scheduledT",
    "lateMs",
    "hiddenMs",
    "visibleAtSend",
    "visibleAtReply",
    "froze",
    "fresh",
    "reason",
    "winner",
    "otherMs",
    "otherOutcome",
    "minrtt",
    "serverLagMs",
    "serverMs",
    "reportInFlight",
    "load",
    "stressRun",
  ])
    out[k] = s[k] ?? null;
  out.timerResolutionUs = session.timerResolutionMs === undefined ? null : Math.round(session.timerResolutionMs * 1000);
  out.engine = session.engine ?? null;
  return out;
}

/** Which contract ends were posted, by field: the property must have reached both of every field. */
let runs = 0;
const reached = new Map<string, Set<"lo" | "hi">>();
function note(field: string, v: unknown, lo: number, hi: number): void {
  if (v !== lo && v !== hi) return;
  const set = reached.get(field) ?? new Set();
  set.add(v === lo ? "lo" : "hi");
  reached.set(field, set);
}

describe.each(STORE_KINDS)("samples at the contract's ends, %s store", (kind) => {
  for (const e of ENDS) {
    describe(e.what, () => {
      let server: Awaited<ReturnType<typeof startInProcess>>;
      const started = Date.now();
      beforeAll(async () => {
        server = await startInProcess(
          [
            "--db",
            await freshDb(kind, `extremes_${e.what.replace(/\W/g, "_")}`),
            "--name",
            e.name,
            "--peer",
            `${e.peer}=http://127.0.0.1:9`,
            "--raw-days",
            "3",
            "--no-rate-limit",
          ],
          [],
          { nowMs: () => e.nowMs + (Date.now() - started) },
        );
      });
      afterAll(async () => {
        await server?.close();
      });

      it("stores every batch the contract accepts and reads each field back as posted", async () => {
        await fc.assert(
          fc.asyncProperty(batchOf(e), async (generated) => {
            // Shrinking posts a batch again: fresh ids each time, of the generated lengths.
            const run = String(++runs).padStart(6, "0");
            const batch = {
              ...generated,
              clientId: run + generated.clientId.slice(run.length),
              sessionId: run + generated.sessionId.slice(run.length),
            };
            const res = await fetch(`${server.url}/api/samples`, {
              method: "POST",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify(batch),
            });
            const text = await res.text();
            expect(res.status, text).toBe(200);
            expect(JSON.parse(text)).toEqual({ accepted: batch.samples.length, duplicates: 0 });

            const client = publicIdOf(server.store, batch.clientId);
            const ndjson = await (
              await fetch(`${server.url}/api/samples.ndjson?from=${e.loMs}&to=${e.hiMs}&client=${client}`)
            ).text();
            const records = ndjson
              .split("\n")
              .filter((line) => line !== "")
              .map((line) => JSON.parse(line) as Record<string, unknown>)
              .filter((r) => r.sessionId === batch.sessionId);
            const bySeq = new Map(records.map((r) => [r.seq as number, r]));
            expect(records).toHaveLength(batch.samples.length);
            for (const s of batch.samples) {
              const { client: exportedClient, ...got } = bySeq.get(s.seq) ?? {};
              expect(exportedClient).toBe(client);
              expect(got).toEqual(expectedRecord(s, batch.sessionId, batch));
            }

            const clients = (await (await fetch(`${server.url}/api/clients`)).json()) as {
              clients: { id: string; label: string | null }[];
            };
            expect(clients.clients.find((c) => c.id === client)?.label).toBe(batch.label ?? null);
            const stats = (await (
              await fetch(`${server.url}/api/stats?from=${e.loMs}&to=${e.hiMs}&client=${client}`)
            ).json()) as { timerResolutionMs: number | null };
            expect(stats.timerResolutionMs).toBe(batch.timerResolutionMs ?? null);

            note("timerResolutionMs", batch.timerResolutionMs, 0, TIMER_RESOLUTION_MS_MAX);
            note("label", batch.label?.length, 0, LABEL_CHARS_MAX);
            note("clientId", batch.clientId.length, 8, 64);
            note("sessionId", batch.sessionId.length, 8, 64);
            for (const s of batch.samples) {
              note("seq", s.seq, 0, SEQ_MAX);
              note("t", s.t, EPOCH_MS_MIN, EPOCH_MS_MAX);
              note("scheduledT", s.scheduledT, EPOCH_MS_MIN, EPOCH_MS_MAX);
              note("target", (s.target as string).length, 1, 65);
              for (const f of ["ms", "lateMs", "otherMs", "minrtt", "serverLagMs", "serverMs"])
                note(f, s[f], 0, LATENCY_MS_MAX);
              note("hiddenMs", s.hiddenMs, 0, HIDDEN_MS_MAX);
            }
          }),
          { numRuns: 40 },
        );
      }, 120_000);
    });
  }

  it("reached both ends of every field", () => {
    for (const f of [
      "timerResolutionMs",
      "label",
      "clientId",
      "sessionId",
      "seq",
      "t",
      "scheduledT",
      "target",
      "ms",
      "lateMs",
      "otherMs",
      "minrtt",
      "serverLagMs",
      "serverMs",
      "hiddenMs",
    ])
      expect([...(reached.get(f) ?? [])].sort(), f).toEqual(["hi", "lo"]);
  });
});
