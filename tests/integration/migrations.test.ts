// Databases written by every older schema version, as that version's own
// code wrote them (server/store/<engine>/migrations/fixtures/, made by
// scripts/dev/migration-fixtures.mts from the commits named in its
// manifest), open in the current version: every sample with every field, the
// legacy second copy of a seq where that version stored one, exact answers
// from the raw samples and ±1 % ones from the rollups at every level, the
// running totals, the sessions; each step said so, in pages of a few rows
// (so paging across many pages is what is tested), and nothing is upgraded
// twice. Afterwards the store keeps a seq once whatever t it is re-sent with.
import fs from "node:fs";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coarsestResolutionMs } from "../../server/query/timer-resolution.js";
import { type StoreWithQueries, withQueries } from "../../server/query/with-queries.js";
import { packFlags } from "../../server/store/flags.js";
import type { RawSampleRow } from "../../server/store/page-reader.js";
import { SCHEMA_VERSION as PG_VERSION } from "../../server/store/postgres/schema.js";
import { openPostgresStore } from "../../server/store/postgres/store.js";
import { migrate, SQLITE_STEPS } from "../../server/store/sqlite/migrations/migrate.js";
import { SCHEMA_VERSION as SQLITE_VERSION } from "../../server/store/sqlite/schema.js";
import { openStore } from "../../server/store/sqlite/store.js";
import { PG_STEPS } from "../../server/store/postgres/migrations/migrate.js";
import type { Sample, StatsRow } from "../../shared/contract/index.js";
import { summarize } from "../../shared/stats.js";
import { asAccepted, type FixtureBatch, fixtureBatches } from "../../testkit/migration-samples.js";
import { postgresAvailable } from "../../testkit/postgres.js";
import { tempDir } from "../../testkit/server-process.js";
import {
  type Fixture,
  loadFixture,
  MIGRATION_FIXTURES as MANIFEST,
  storedSamples,
} from "../helpers/migration-fixtures.js";

const NAMES = Object.keys(MANIFEST).filter((n) => MANIFEST[n]!.engine === "sqlite" || postgresAvailable());
/** Rows an upgrade step reads at a time here: the fixtures' few hundred samples cross many pages. */
const CHUNK_ROWS = 37;
const HOUR_MS = 3_600_000;
const KEEP_DAYS = 36_500;
const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A sample as the export shows it: the wire's fields, the flags packed. */
interface Row {
  sessionId: string;
  seq: number;
  t: number;
  method: string;
  target: string;
  ms: number | null;
  outcome: string;
  scheduledT: number | null;
  lateMs: number | null;
  hiddenMs: number | null;
  flags: number;
  reason: string | null;
  winner: string | null;
  otherMs: number | null;
  otherOutcome: string | null;
  minrtt: number | null;
  serverLagMs: number | null;
  serverMs: number | null;
}

function comparable(sessionId: string, s: Sample): Row {
  return {
    sessionId,
    seq: s.seq,
    t: s.t,
    method: s.method,
    target: s.target,
    ms: s.ms,
    outcome: s.outcome,
    scheduledT: s.scheduledT ?? null,
    lateMs: s.lateMs ?? null,
    hiddenMs: s.hiddenMs ?? null,
    flags: packFlags(s),
    reason: s.reason ?? null,
    winner: s.winner ?? null,
    otherMs: s.otherMs ?? null,
    otherOutcome: s.otherOutcome ?? null,
    minrtt: s.minrtt ?? null,
    serverLagMs: s.serverLagMs ?? null,
    serverMs: (s as { serverMs?: number }).serverMs ?? null,
  };
}

const fromRow = (r: RawSampleRow): Row => ({
  sessionId: r[2],
  seq: r[3],
  t: r[0],
  method: r[4],
  target: r[5],
  ms: r[6],
  outcome: r[7],
  scheduledT: r[8],
  lateMs: r[9],
  hiddenMs: r[10],
  flags: r[11],
  reason: r[12],
  winner: r[13],
  otherMs: r[14],
  otherOutcome: r[15],
  minrtt: r[16],
  serverLagMs: r[17],
  serverMs: r[18],
});

const byKey = (a: Row, b: Row) => a.sessionId.localeCompare(b.sessionId) || a.seq - b.seq || a.t - b.t;

/** What the fixture's version stored (the accepted batches, and the second copy of a seq where it kept one), as rows. */
function storedBy(fx: Fixture): { batches: FixtureBatch[]; rows: Row[] } {
  const batches = fixtureBatches(fx.t0).map((b) => asAccepted(b, fx.refused));
  const rows = storedSamples(fx).map(({ sessionId, sample }) => comparable(sessionId, sample));
  return { batches, rows: rows.sort(byKey) };
}

/** The brute force of /api/stats over rows: per (method, target), with tcprtt's min RTT as tcpminrtt. */
function bruteStats(rows: readonly Row[]): Map<string, { ok: number[]; failures: number; skipped: number }> {
  const out = new Map<string, { ok: number[]; failures: number; skipped: number }>();
  const add = (key: string, r: { ms: number | null; outcome: string }) => {
    let e = out.get(key);
    if (e === undefined) out.set(key, (e = { ok: [], failures: 0, skipped: 0 }));
    if (r.outcome === "ok") e.ok.push(r.ms!);
    else if (r.outcome === "skipped") e.skipped++;
    else e.failures++;
  };
  for (const r of rows) {
    add(`${r.method} ${r.target}`, r);
    if (r.minrtt !== null) add(`tcpminrtt ${r.target}`, { ms: r.minrtt, outcome: "ok" });
  }
  return out;
}

const key = (r: Pick<StatsRow, "method" | "target">) => `${r.method} ${r.target}`;

describe.each(NAMES)("a database written by %s", (name) => {
  const fx = MANIFEST[name]!;
  const { batches, rows: want } = storedBy(fx);
  const range = { fromMs: fx.t0 - HOUR_MS, toMs: fx.t0 + HOUR_MS };
  const lines: string[] = [];
  let location = "";
  let store: StoreWithQueries;
  const open = async (log: (line: string) => void) =>
    withQueries(
      fx.engine === "sqlite"
        ? openStore(location, { log, rawDays: KEEP_DAYS, rollupDays: KEEP_DAYS })
        : await openPostgresStore(location, { log, rawDays: KEEP_DAYS, rollupDays: KEEP_DAYS }),
    );

  beforeAll(async () => {
    location = await loadFixture(name, dir);
    if (fx.engine === "sqlite") {
      // Upgraded here with small pages; the store then opens it as it is.
      const db = new Database(location);
      migrate(db, (l) => lines.push(l), CHUNK_ROWS);
      db.close();
    }
    store = await open((l) => lines.push(l));
  });
  afterAll(async () => {
    await store?.close();
  });

  it("is upgraded to the current version, each step saying so once", async () => {
    const [meta] = await store.readPool.all<{ value: string }>(
      "SELECT value FROM meta WHERE key = 'schema_version'",
      [],
    );
    if (fx.engine === "sqlite") {
      expect(meta).toEqual({ value: String(SQLITE_VERSION) });
      for (let v = fx.version; v < SQLITE_VERSION; ) {
        const step = SQLITE_STEPS.find((s) => s.from === v)!;
        expect(
          lines.filter((l) => l.startsWith(`upgraded database schema ${v} → ${step.to}`)),
          `${v} → ${step.to}`,
        ).toHaveLength(1);
        v = step.to;
      }
      // Files before version 7 have a row per sample: a step copies them all, a page at a time, a line each.
      const copying = lines.filter((l) => / \/ \d+ samples \(\d+ %\)$/.test(l));
      if (fx.version < 7) {
        expect(copying.length).toBeGreaterThan(want.length / CHUNK_ROWS);
        expect(copying.at(-1)).toBe(`upgrading database schema 6 → 7: ${want.length} / ${want.length} samples (100 %)`);
      }
      const objects = await store.readPool.all<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE tbl_name LIKE 'raw_%' OR name = 'samples' ORDER BY name",
        [],
      );
      expect(objects.map((o) => o.name)).toEqual(["raw_blocks", "raw_blocks_session_seq"]);
    } else {
      expect(meta).toEqual({ value: String(PG_VERSION) });
      for (let v = fx.version; v < PG_VERSION; v++) {
        expect(PG_STEPS.some((s) => s.from === v)).toBe(true);
        expect(lines.filter((l) => l.includes(`upgrading the PostgreSQL schema ${v} → ${v + 1}`))).toHaveLength(1);
      }
    }
  });

  it("keeps every sample with every field, and a seq its version stored twice as it stored it", async () => {
    const reader = store.openPageReader();
    const got: Row[] = [];
    try {
      for await (const page of reader.pages(range, 53)) got.push(...page.map(fromRow));
    } finally {
      reader.close();
    }
    expect(got.sort(byKey)).toEqual(want);
  });

  it("answers stats exactly from the raw samples and within ±1 % from the rollups", async () => {
    const brute = bruteStats(want);
    const exact = await withQueries(store, { answerFrom: "raw" }).stats(range);
    const rollups = await withQueries(store, { answerFrom: "rollups" }).stats(range);
    expect(exact.map(key).sort()).toEqual([...brute.keys()].sort());
    for (const row of exact) {
      const b = brute.get(key(row))!;
      expect(row, key(row)).toMatchObject({ ...summarize(b.ok), failures: b.failures, skipped: b.skipped });
      const r = rollups.find((x) => key(x) === key(row))!;
      expect({ count: r.count, failures: r.failures, skipped: r.skipped, min: r.min, max: r.max }).toEqual({
        count: row.count,
        failures: row.failures,
        skipped: row.skipped,
        min: row.min,
        max: row.max,
      });
      for (const p of ["p10", "p50", "p90", "p99"] as const)
        expect(Math.abs(r[p]! - row[p]!), `${key(row)} ${p}`).toBeLessThanOrEqual(0.01 * row[p]! + 1e-9);
    }
  });

  it("counts every sample once at every rollup level and in the running totals (/metrics)", async () => {
    const failures = want.filter((r) => r.outcome === "timeout" || r.outcome === "error").length;
    const skipped = want.filter((r) => r.outcome === "skipped").length;
    for (const client of ["client <> 0", "client = 0"]) {
      const perLevel = await store.readPool.all<{ level: number; failures: number; skipped: number }>(
        `SELECT level, sum(failures) AS failures, sum(skipped) AS skipped FROM rollups WHERE ${client} GROUP BY level ORDER BY level`,
        [],
      );
      expect(perLevel.map((r) => ({ ...r, failures: Number(r.failures), skipped: Number(r.skipped) }))).toEqual(
        [0, 1, 2, 3, 4].map((level) => ({ level, failures, skipped })),
      );
    }
    const brute = bruteStats(want);
    const totals = await store.seriesTotals();
    expect(totals.map((t) => `${t.method} ${t.target}`).sort()).toEqual([...brute.keys()].sort());
    for (const t of totals) {
      const b = brute.get(`${t.method} ${t.target}`)!;
      expect({ ok: t.ok.count, failures: t.failures, skipped: t.skipped }).toEqual({
        ok: b.ok.length,
        failures: b.failures,
        skipped: b.skipped,
      });
    }
  });

  it("keeps the sessions: clients, labels, user agents, timer resolutions and time spans", async () => {
    const clients = (await store.clients()).map(({ lastSeen: _l, firstSeen: _f, ...c }) => c);
    expect(clients.sort((a, b) => a.clientId.localeCompare(b.clientId))).toEqual(
      ["client_fixture_a", "client_fixture_b"].map((clientId) => ({
        clientId,
        label: clientId.endsWith("a") ? "laptop" : null,
        userAgent: batches[0]!.userAgent,
        browser: "Chrome 120",
        os: "Linux",
        sessions: clientId.endsWith("a") ? 2 : 1,
      })),
    );
    const spans = await store.readPool.all<{ session_key: string; first_t: number; last_t: number }>(
      "SELECT session_key, first_t, last_t FROM sessions ORDER BY session_key",
      [],
    );
    const span = (sessionId: string) => {
      const ts = want.filter((r) => r.sessionId === sessionId).map((r) => r.t);
      return { session_key: sessionId, first_t: Math.min(...ts), last_t: Math.max(...ts) };
    };
    expect(spans.map((r) => ({ ...r, first_t: Number(r.first_t), last_t: Number(r.last_t) }))).toEqual(
      [...new Set(batches.map((b) => b.sessionId))].sort().map(span),
    );
    // The coarsest resolution reported in the range: session a2's 0.1 ms, where the version kept them.
    expect(coarsestResolutionMs(await store.sessionClocks(range))).toBe(
      fx.refused.includes("timerResolutionMs") ? null : 0.1,
    );
  });

  it("stores what comes after the upgrade, a seq re-sent at another t once", async () => {
    const first = batches[0]!;
    const meta = { userAgent: null, receivedAtMs: fx.t0 };
    const later = first.samples.map((s) => ({ ...s, t: s.t + 5 * 60_000 }));
    expect(await store.insertBatch({ ...first, samples: later }, meta)).toEqual({
      accepted: 0,
      duplicates: later.length,
    });
    const next = { ...first.samples[0]!, seq: 10_000, t: fx.t0 + 30 * 60_000 };
    expect(await store.insertBatch({ ...first, samples: [next] }, meta)).toEqual({ accepted: 1, duplicates: 0 });
    const [row] = await withQueries(store, { answerFrom: "raw" }).stats({
      ...range,
      clientId: first.clientId,
      methods: [next.method],
      targets: [next.target],
    });
    expect(row!.count + row!.failures + row!.skipped).toBe(
      want.filter((r) => r.sessionId.includes("_a") && r.method === next.method && r.target === next.target).length + 1,
    );
  });

  it("opens again without upgrading twice", async () => {
    await store.close();
    const again: string[] = [];
    store = await open((l) => again.push(l));
    expect(again.filter((l) => /upgrad|creating/.test(l))).toEqual([]);
  });
});
