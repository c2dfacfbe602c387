// This wave's three upgrade steps, each from every fixture written before it
// (server/store/<engine>/migrations/fixtures/: databases as the older
// versions' own code wrote them), opened as the server opens its --db:
//   sessions.engine      SQLite 8 → 9, PostgreSQL 6 → 7: the old sessions'
//                        engine NULL, a new batch's kept;
//   rollups.srv          SQLite 9 → 10, PostgreSQL 7 → 8: the old rollups hold
//                        no server time (the change finder says "not
//                        measured" there), new probes record theirs;
//   a sample's stress    SQLite 10 → 11, PostgreSQL 8 → 9: old samples read as
//   run and phase        outside any test, new ones keep their run and phase.
// Each step says its line once; a second opening upgrades nothing and finds
// what was written after the upgrade as it was (migrations.test.ts checks
// every sample and every answer of the same fixtures).
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeChange } from "../../server/changes/describe-change.js";
import { FineCache } from "../../server/changes/fine-cache.js";
import { HourCache } from "../../server/changes/hour-cache.js";
import { RollupCells } from "../../server/changes/rollup-cells.js";
import { Pace } from "../../server/store/pace.js";
import { openPostgresStore } from "../../server/store/postgres/store.js";
import type { RawSampleRow } from "../../server/store/page-reader.js";
import { ANY_CLASS, ANY_CLIENT } from "../../server/store/rollup-batch.js";
import { openStore } from "../../server/store/sqlite/store.js";
import type { Store } from "../../server/store/store.js";
import { FINE_MS, HOUR_MS } from "../../shared/changes/find.js";
import type { Sample } from "../../shared/contract/index.js";
import { encodedCount } from "../../shared/rollup-codec.js";
import { postgresAvailable } from "../../testkit/postgres.js";
import { tempDir } from "../../testkit/server-process.js";
import { loadFixture, MIGRATION_FIXTURES as MANIFEST, storedSamples } from "../helpers/migration-fixtures.js";

/** The version each step leaves, and the lines it says (exactly these, once each, in this order). */
const STEPS = {
  engine: {
    sqlite: {
      to: 9,
      lines: ["upgrading database schema 8 → 9: the engine of each session's page", "upgraded database schema 8 → 9"],
    },
    postgres: { to: 7, lines: ["tailprobe: upgrading the PostgreSQL schema 6 → 7: the engine of each session's page"] },
  },
  serverTime: {
    sqlite: {
      to: 10,
      lines: [
        "upgrading database schema 9 → 10: rollups keep the server's handler time from now on",
        "upgraded database schema 9 → 10",
      ],
    },
    postgres: {
      to: 8,
      lines: ["tailprobe: upgrading the PostgreSQL schema 7 → 8: rollups keep the server's handler time from now on"],
    },
  },
  stress: {
    sqlite: { to: 11, lines: ["upgraded database schema 10 → 11"] },
    postgres: {
      to: 9,
      lines: ["tailprobe: upgrading the PostgreSQL schema 8 → 9: samples may carry a stress test's run and phase"],
    },
  },
} as const;
const STEP_LINES: readonly string[] = Object.values(STEPS).flatMap((s) => [...s.sqlite.lines, ...s.postgres.lines]);

const NAMES = Object.keys(MANIFEST).filter((n) => MANIFEST[n]!.engine === "sqlite" || postgresAvailable());
const KEEP = { rawDays: 36_500, rollupDays: 36_500 };
const floorFine = (t: number) => t - (t % FINE_MS);
const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function rows(store: Store): Promise<RawSampleRow[]> {
  const reader = store.openPageReader();
  const out: RawSampleRow[] = [];
  try {
    for await (const page of reader.pages({ fromMs: 0, toMs: Number.MAX_SAFE_INTEGER })) out.push(...page);
  } finally {
    reader.close();
  }
  return out;
}

/** Values in the all-clients 5-minute rows' server-time histograms, per series id, from `fromMs` on. */
async function serverTimes(store: Store, fromMs: number, toMs: number): Promise<Map<number, number>> {
  const found = await store.readPool.all<{ series: number; srv: Uint8Array | null }>(
    `SELECT series, srv FROM rollups WHERE level = 0 AND client = ${ANY_CLIENT} AND class = ${ANY_CLASS} AND start_ms >= ? AND start_ms < ?`,
    [fromMs, toMs],
  );
  const out = new Map<number, number>();
  for (const r of found)
    if (r.srv !== null) out.set(Number(r.series), (out.get(Number(r.series)) ?? 0) + encodedCount(r.srv));
  return out;
}

describe.each(NAMES)("a database written by %s", (name) => {
  const fx = MANIFEST[name]!;
  const predates = (step: keyof typeof STEPS) => fx.version < STEPS[step][fx.engine].to;
  const meta = { userAgent: null, receivedAtMs: fx.t0 };
  /** After the fixture's samples, in 5-minute cells of their own. */
  const laterMs = floorFine(fx.t0) + 2 * FINE_MS;
  const lines: string[] = [];
  let location = "";
  let store: Store;
  // The server's own opening (openStoreFor) upgrades the same way, with SQLite's writes on a thread: here on this one.
  const open = async (log: (line: string) => void): Promise<Store> =>
    fx.engine === "sqlite" ? openStore(location, { log, ...KEEP }) : openPostgresStore(location, { log, ...KEEP });

  beforeAll(async () => {
    location = await loadFixture(name, dir);
    store = await open((l) => lines.push(l));
  });
  afterAll(async () => {
    await store?.close();
  });

  it("is upgraded by each of this wave's steps it predates, each saying its lines once", () => {
    const wanted = (["engine", "serverTime", "stress"] as const)
      .filter(predates)
      .flatMap((s) => STEPS[s][fx.engine].lines)
      // Version 1's step (v1-to-v6-codes.ts) rewrites the sessions with today's table, engine and all:
      // 8 → 9 finds the column there and says only that it upgraded.
      .filter((l) => !(name === "sqlite-v1" && l === STEPS.engine.sqlite.lines[0]));
    expect(lines.filter((l) => STEP_LINES.includes(l))).toEqual(wanted);
  });

  if (predates("serverTime"))
    it("reads its rollups as holding no server time (the change finder: not measured); new probes record theirs", async () => {
      expect(await store.readPool.all("SELECT level, start_ms FROM rollups WHERE srv IS NOT NULL", [])).toEqual([]);
      const series = await store.readPool.all<{ id: number; method: string; target: string }>(
        "SELECT id, method, target FROM series",
        [],
      );
      const idOf = new Map(series.map((s) => [`${s.method} ${s.target}`, Number(s.id)]));
      const xhr = idOf.get("xhr A")!;
      // An XHR a second for a minute, each with its server time, two cells after the fixture's.
      const probes: Sample[] = Array.from({ length: 60 }, (_, i) => ({
        seq: 30_000 + i,
        t: laterMs + i * 1000,
        method: "xhr",
        target: "A",
        ms: 40 + (i % 5),
        outcome: "ok",
        serverMs: 3 + (i % 3) * 0.5,
      }));
      const batch = { clientId: "client_fixture_b", sessionId: "session_fixture_b1", samples: probes };
      expect(await store.insertBatch(batch, meta)).toEqual({ accepted: 60, duplicates: 0 });
      expect(await serverTimes(store, 0, laterMs)).toEqual(new Map());
      expect(await serverTimes(store, laterMs, laterMs + FINE_MS)).toEqual(new Map([[xhr, 60]]));

      // The change finder's account of a move between the fixture's cell and the new one, on these rollups.
      const cells = new RollupCells(
        { pool: store.readPool, rawKeptFromMs: () => store.rawKeptFromMs() },
        new HourCache(),
        new FineCache(),
        new Pace(),
      );
      await cells.prepare([...idOf.values()], null, floorFine(fx.t0) - HOUR_MS, [xhr]);
      const change = await describeChange(
        cells,
        { method: "xhr", target: "A", series: xhr, idOf, clientIdOf: () => null, nameOf: () => null },
        {
          index: 1,
          t: floorFine(fx.t0) + FINE_MS,
          earliestT: floorFine(fx.t0) + FINE_MS,
          beforeFromMs: floorFine(fx.t0),
          afterToMs: laterMs + FINE_MS,
          samplesBefore: 30,
          samplesAfter: 60,
          // What the finder would have measured: these figures only head the sentence.
          moves: [{ statistic: "p50", beforeUs: 15_000, afterUs: 42_000, logRatio: 1, t: 10, p: 1e-6 }],
          cellMs: FINE_MS,
          client: null,
        },
      );
      const server = change.parts.find((p) => p.method === "server")!;
      expect(server.before).toBeNull();
      expect(server.after).toBeCloseTo(3.5, 1);
      expect(change.evidence).toContain("server time not measured");
    });
  else
    it("keeps the server time its version recorded", async () => {
      // Ok samples that reported one (migration-samples.ts), by series.
      const series = await store.readPool.all<{ id: number; method: string; target: string }>(
        "SELECT id, method, target FROM series",
        [],
      );
      const want = new Map<number, number>();
      for (const { sample: s } of storedSamples(fx))
        if (s.outcome === "ok" && s.serverMs !== undefined) {
          const id = Number(series.find((x) => x.method === s.method && x.target === s.target)!.id);
          want.set(id, (want.get(id) ?? 0) + 1);
        }
      expect(await serverTimes(store, 0, laterMs)).toEqual(want);
    });

  if (predates("engine"))
    it("leaves its sessions' engine empty, and keeps a new batch's", async () => {
      const batch = {
        clientId: "client_fixture_b",
        sessionId: "session_after_upgrade",
        engine: "webkit" as const,
        samples: [{ seq: 0, t: laterMs + FINE_MS, method: "ping", target: "A", ms: 1, outcome: "ok" } satisfies Sample],
      };
      expect(await store.insertBatch(batch, meta)).toEqual({ accepted: 1, duplicates: 0 });
      const sessions = await store.readPool.all<{ session_key: string; engine: string | null }>(
        "SELECT session_key, engine FROM sessions ORDER BY session_key",
        [],
      );
      expect(sessions).toEqual([
        { session_key: "session_after_upgrade", engine: "webkit" },
        { session_key: "session_fixture_a1", engine: null },
        { session_key: "session_fixture_a2", engine: null },
        { session_key: "session_fixture_b1", engine: null },
      ]);
      const engines = new Set((await rows(store)).map((r) => `${r[2]} ${r[21]}`));
      expect([...engines].sort()).toEqual([
        "session_after_upgrade webkit",
        "session_fixture_a1 null",
        "session_fixture_a2 null",
        "session_fixture_b1 null",
      ]);
    });

  it("reads its samples as outside any stress test, and keeps a new sample's run and phase", async () => {
    const old = await rows(store);
    expect(old.filter((r) => r[0] < laterMs)).toHaveLength(storedSamples(fx).length);
    expect(old.filter((r) => r[22] !== null || r[23] !== null)).toEqual([]);
    const tagged: Sample = { seq: 40_000, t: laterMs + 2 * FINE_MS, method: "ws", target: "A", ms: 9, outcome: "ok" };
    const batch = {
      clientId: "client_fixture_a",
      sessionId: "session_fixture_a1",
      samples: [{ ...tagged, stressRun: "run_after_upgrade", load: "upload" as const }],
    };
    expect(await store.insertBatch(batch, meta)).toEqual({ accepted: 1, duplicates: 0 });
    const after = await rows(store);
    expect(after).toHaveLength(old.length + 1);
    expect(after.filter((r) => r[22] !== null || r[23] !== null).map((r) => [r[2], r[3], r[22], r[23]])).toEqual([
      ["session_fixture_a1", 40_000, "upload", "run_after_upgrade"],
    ]);
  });

  it("opens again upgrading nothing, with what was written after the upgrade as it was", async () => {
    const was = (await rows(store)).map((r) => [r[2], r[3], r[21], r[22], r[23]]);
    await store.close();
    const again: string[] = [];
    store = await open((l) => again.push(l));
    expect(again.filter((l) => /upgrad|creating|compact/.test(l))).toEqual([]);
    expect((await rows(store)).map((r) => [r[2], r[3], r[21], r[22], r[23]])).toEqual(was);
  });
});
