// The upgrades' edge cases, each from a database an older version wrote
// (server/store/<engine>/migrations/fixtures/): a row the packed layout cannot hold stops
// the upgrade and leaves the file as it was; rollups stored in the form
// before the compact one are read as they are and rewritten compact only
// when their row changes; a database of a newer version is refused.
import fs from "node:fs";
import Database from "better-sqlite3";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { withQueries } from "../../server/query/with-queries.js";
import { openPostgresStore } from "../../server/store/postgres/store.js";
import { UnpackableRowError } from "../../server/store/sqlite/raw-layout.js";
import { SCHEMA_VERSION } from "../../server/store/sqlite/schema.js";
import { openStore } from "../../server/store/sqlite/store.js";
import type { Store } from "../../server/store/store.js";
import { asAccepted, fixtureBatches } from "../../testkit/migration-samples.js";
import { postgresAvailable } from "../../testkit/postgres.js";
import { tempDir } from "../../testkit/server-process.js";
import { loadFixture, MIGRATION_FIXTURES } from "../helpers/migration-fixtures.js";

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const KEEP = { rawDays: 36_500, rollupDays: 36_500 };
const HOUR_MS = 3_600_000;

describe("a version 4 file with a row the packed layout cannot hold", () => {
  const all = (db: Database.Database) => db.prepare("SELECT * FROM raw_samples ORDER BY t, session, seq").all();

  it("refuses the upgrade, naming the row, and leaves the file at version 4 as it was; completes once mended", async () => {
    const file = await loadFixture("sqlite-v4", dir);
    const damage = new Database(file);
    // Flags past the 16 bits the packed status holds (a writer bug, a hand edit).
    const { session, seq, flags } = damage
      .prepare("SELECT session, seq, flags FROM raw_samples WHERE seq = 7 ORDER BY session LIMIT 1")
      .get() as { session: number; seq: number; flags: number };
    damage.prepare("UPDATE raw_samples SET flags = 65536 WHERE session = ? AND seq = ?").run(session, seq);
    const before = all(damage);
    damage.close();

    expect(() => openStore(file, { log: () => {}, ...KEEP })).toThrow(UnpackableRowError);
    expect(() => openStore(file, { log: () => {}, ...KEEP })).toThrow(`session ${session}, seq ${seq}`);
    const db = new Database(file);
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: "4" });
    expect(all(db)).toEqual(before);
    db.prepare("UPDATE raw_samples SET flags = ? WHERE session = ? AND seq = ?").run(flags, session, seq);
    db.close();

    const store = openStore(file, { log: () => {}, ...KEEP });
    try {
      expect(store.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
        value: String(SCHEMA_VERSION),
      });
    } finally {
      await store.close();
    }
  });
});

/** Stored rollup histograms: the compact form starts with its tag 0, the older form with its count (never 0). */
async function blobs(store: Store): Promise<{ compact: number; legacy: number }> {
  const rows = await store.readPool.all<{ lat: Uint8Array | null; tmo: Uint8Array | null; margin: Uint8Array | null }>(
    "SELECT lat, tmo, margin FROM rollups",
    [],
  );
  const all = rows.flatMap((r) => [r.lat, r.tmo, r.margin]).filter((b): b is Uint8Array => b !== null);
  return { compact: all.filter((b) => b[0] === 0).length, legacy: all.filter((b) => b[0] !== 0).length };
}

const OLD_FORM = ["sqlite-v5", "postgres-v4"].filter(
  (n) => MIGRATION_FIXTURES[n]!.engine === "sqlite" || postgresAvailable(),
);

describe.each(OLD_FORM)("rollups stored in the older form (%s)", (name) => {
  it("are read as they are, and a row is rewritten compact when a write changes it", async () => {
    const fx = MIGRATION_FIXTURES[name]!;
    const location = await loadFixture(name, dir);
    const store = withQueries(
      fx.engine === "sqlite"
        ? openStore(location, { log: () => {}, ...KEEP })
        : await openPostgresStore(location, { log: () => {}, ...KEEP }),
    );
    try {
      const stored = await blobs(store);
      expect(stored.legacy).toBeGreaterThan(50);
      expect(stored.compact).toBe(0);
      // New seqs of the fixture's sessions, in the same buckets: their rows merge and are written compact.
      for (const batch of fixtureBatches(fx.t0).map((b) => asAccepted(b, fx.refused))) {
        const samples = batch.samples.map((s) => ({ ...s, seq: s.seq + 100_000, t: s.t + 1 }));
        expect(await store.insertBatch({ ...batch, samples }, { userAgent: null, receivedAtMs: fx.t0 })).toMatchObject({
          accepted: samples.length,
        });
      }
      const after = await blobs(store);
      expect(after.compact).toBeGreaterThan(50);
      expect(after.legacy).toBeLessThan(stored.legacy);
      // Old and new forms merged answer as the raw samples do.
      const range = { fromMs: fx.t0 - HOUR_MS, toMs: fx.t0 + HOUR_MS };
      const exact = await withQueries(store, { answerFrom: "raw" }).stats(range);
      const rollups = await withQueries(store, { answerFrom: "rollups" }).stats(range);
      expect(rollups.map((r) => [r.method, r.target, r.count, r.failures, r.skipped, r.min, r.max])).toEqual(
        exact.map((r) => [r.method, r.target, r.count, r.failures, r.skipped, r.min, r.max]),
      );
    } finally {
      await store.close();
    }
  });
});

describe("a database of a newer version", () => {
  it("is refused by the SQLite store, and left as it was", async () => {
    const file = await loadFixture("sqlite-v7", dir);
    const db = new Database(file);
    db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    db.close();
    expect(() => openStore(file, { log: () => {} })).toThrow(/newer than this tailprobe/);
    const again = new Database(file, { readonly: true });
    expect(again.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: "99" });
    again.close();
  });

  it.runIf(postgresAvailable())("is refused by the PostgreSQL store", async () => {
    const url = await loadFixture("postgres-v5", dir);
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    await sql`UPDATE meta SET value = '99' WHERE key = 'schema_version'`;
    await sql.end();
    await expect(openPostgresStore(url, { log: () => {} })).rejects.toThrow(/newer than this tailprobe/);
  });
});
