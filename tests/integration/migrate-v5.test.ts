// A database whose rollups are in the form store versions 2-5 wrote (SQLite 5,
// PostgreSQL 4) opens in the current version with nothing converted and every
// answer as before; samples added into those rows leave them in the compact
// form, and the answers are those of a database that took every sample in the
// compact form from the start. Both stores.
import Database from "better-sqlite3";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/app.js";
import { SCHEMA_VERSION as POSTGRES_VERSION } from "../../server/store/postgres/schema.js";
import { SCHEMA_VERSION as SQLITE_VERSION } from "../../server/store/sqlite/schema.js";
import { EXACT_ROWS_MAX } from "../../server/query/reader.js";
import { BATCH_SAMPLES_MAX } from "../../shared/contract/samples.js";
import { emptyRollup, encodeRollupLegacy, isCompactRollup, mergeEncoded } from "../../shared/rollup.js";
import { startInProcess } from "../helpers/in-process.js";
import { executeOn, freshDb, selectAll, STORE_KINDS } from "../helpers/store-kinds.js";

const DAY_MS = 86_400_000;
const BLOBS = ["lat", "tmo", "margin"] as const;
type Server = Awaited<ReturnType<typeof startInProcess>>;
type RollupRow = Record<"level" | "start_ms" | "series" | "client" | "class", number> &
  Record<(typeof BLOBS)[number], Uint8Array | null>;

/**
 * A client's samples on three days, every outcome, a race and a kernel min
 * RTT, BATCH_SAMPLES_MAX a batch: batch 0-50 (part 0) are more than
 * EXACT_ROWS_MAX, so the queries read rollups rather than every raw sample;
 * batch 51 (part 1) lands in the same rollup rows.
 */
function batchOf(b: number, now: number) {
  return Array.from({ length: BATCH_SAMPLES_MAX }, (_, k) => {
    const i = b * BATCH_SAMPLES_MAX + k;
    const t = now - (i % 3) * DAY_MS - 60_000 - Math.floor(i / 3) * 5;
    const outcome = i % 11 === 0 ? "timeout" : i % 13 === 0 ? "error" : "ok";
    const ms = outcome === "ok" ? 1 + ((i * 37) % 900) / 30 : outcome === "timeout" ? 5000 : null;
    const base = { seq: i, t, outcome, ms, visibleAtSend: i % 5 !== 0, visibleAtReply: true };
    if (i % 4 === 0)
      return {
        ...base,
        method: "best2",
        target: "A+B",
        ...(outcome === "ok" ? { winner: "ws", otherMs: 40 + (i % 7), otherOutcome: "ok" } : {}),
      };
    if (i % 4 === 1)
      return { ...base, method: "tcprtt", target: "A", ...(outcome === "ok" ? { minrtt: 0.25 + (i % 3) / 10 } : {}) };
    return { ...base, method: i % 2 === 0 ? "xhr" : "ws", target: "A" };
  });
}
const PART_BATCHES = [Math.ceil((EXACT_ROWS_MAX + 1) / BATCH_SAMPLES_MAX), 1];

async function post(server: RunningServer, part: number, now: number): Promise<void> {
  const first = part === 0 ? 0 : PART_BATCHES[0]!;
  for (let b = first; b < first + PART_BATCHES[part]!; b++) {
    const res = await fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ clientId: "client_v5", sessionId: "client_v5_s", samples: batchOf(b, now) }),
    });
    expect(res.status, await res.text()).toBe(200);
  }
}

/** Rewrites every stored histogram into the legacy form, on one connection beside the (closed) server. */
async function toLegacy(kind: string, dbPath: string, rows: RollupRow[]): Promise<number> {
  const legacy = (blob: Uint8Array) => {
    const decoded = emptyRollup();
    mergeEncoded(decoded, blob);
    return Buffer.from(encodeRollupLegacy(decoded));
  };
  const updates = rows.flatMap((r) =>
    BLOBS.filter((c) => r[c] !== null).map((c) => ({
      c,
      blob: legacy(r[c]!),
      key: [r.level, r.start_ms, r.series, r.client, r.class],
    })),
  );
  const where = (p: (k: number) => string) =>
    `level = ${p(2)} AND start_ms = ${p(3)} AND series = ${p(4)} AND client = ${p(5)} AND class = ${p(6)}`;
  if (kind === "sqlite") {
    const db = new Database(dbPath);
    try {
      db.transaction(() => {
        for (const u of updates)
          db.prepare(`UPDATE rollups SET ${u.c} = ? WHERE ${where(() => "?")}`).run(u.blob, ...u.key);
      })();
    } finally {
      db.close();
    }
  } else {
    const pg = postgres(dbPath, { max: 1, onnotice: () => {} });
    try {
      await pg.begin(async (tx) => {
        for (const u of updates)
          await tx.unsafe(`UPDATE rollups SET ${u.c} = $1 WHERE ${where((k) => `$${k}`)}`, [u.blob, ...u.key]);
      });
    } finally {
      await pg.end();
    }
  }
  return updates.length;
}

/** The answers a page reads off rollups: stats (all, and filtered by class and client) and the histogram. */
async function answers(server: RunningServer, now: number): Promise<unknown[]> {
  const range = `from=${now - 4 * DAY_MS}&to=${now + 1000}`;
  const paths = [
    `/api/stats?${range}`,
    `/api/stats?${range}&visible=1`,
    `/api/stats?${range}&method=best2,tcpminrtt`,
    `/api/histogram?${range}`,
    `/api/races?${range}`,
  ];
  return Promise.all(paths.map(async (p) => (await fetch(`${server.url}${p}`)).json()));
}

const rollupsOf = (server: Server) =>
  selectAll<RollupRow>(server, "SELECT level, start_ms, series, client, class, lat, tmo, margin FROM rollups");
const storedBlobs = (rows: RollupRow[]) =>
  rows.flatMap((r) => BLOBS.map((c) => r[c]).filter((b): b is Uint8Array => b !== null));

describe.each(STORE_KINDS)("a %s database whose rollups are in the old form", (kind) => {
  it("opens in the current version unconverted, answers as before, and stores what it adds compact", async () => {
    const now = Date.now();
    const args = (db: string) => ["--db", db, "--no-rate-limit", "--peer", "B=http://127.0.0.1:9"];
    const dbOld = await freshDb(kind, "v5_old");
    const first = await startInProcess(args(dbOld));
    await post(first, 0, now);
    const before = await answers(first, now);
    const rows = await rollupsOf(first);
    await first.close();
    expect(rows.length).toBeGreaterThan(50);

    // What an older tailprobe wrote: every histogram in the legacy form, the older version number.
    expect(await toLegacy(kind, dbOld, rows)).toBe(storedBlobs(rows).length);
    await executeOn(first, "UPDATE meta SET value = ? WHERE key = 'schema_version'", [
      String(kind === "sqlite" ? SQLITE_VERSION - 1 : POSTGRES_VERSION - 1),
    ]);

    const upgraded = await startInProcess(args(dbOld));
    let after: unknown[];
    try {
      const version = kind === "sqlite" ? SQLITE_VERSION : POSTGRES_VERSION;
      expect(await selectAll(upgraded, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([
        { value: String(version) },
      ]);
      const legacy = storedBlobs(await rollupsOf(upgraded));
      expect(legacy.length).toBe(storedBlobs(rows).length);
      expect(legacy.every((b) => !isCompactRollup(b))).toBe(true);
      expect(await answers(upgraded, now)).toEqual(before);

      await post(upgraded, 1, now);
      expect(storedBlobs(await rollupsOf(upgraded)).filter(isCompactRollup).length).toBeGreaterThan(20);
      after = await answers(upgraded, now);
    } finally {
      await upgraded.close();
    }

    // The same samples into a database that never held the old form.
    const fresh = await startInProcess(args(await freshDb(kind, "v5_fresh")));
    try {
      await post(fresh, 0, now);
      await post(fresh, 1, now);
      expect(storedBlobs(await rollupsOf(fresh)).every(isCompactRollup)).toBe(true);
      expect(after).toEqual(await answers(fresh, now));
    } finally {
      await fresh.close();
    }
  }, 60_000);
});
