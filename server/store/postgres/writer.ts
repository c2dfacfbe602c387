// Ingest on PostgreSQL: one transaction per batch, the raw rows by one
// multi-row INSERT … ON CONFLICT DO NOTHING, and the rollups of the rows
// actually inserted merged in the same transaction, so a query never sees
// one without the other and redelivery never counts twice.
//
// Why merge in the transaction rather than in a background step: it is what
// the SQLite store does (one design, and any server's answer includes every
// acknowledged sample at once); the histograms are encoded JS-side
// (shared/rollup.ts), so merging means read, merge, write back. Two servers
// may touch the same rollup rows: each transaction creates the missing rows
// and then locks them, both in one fixed order (the key's), so concurrent
// batches wait for each other instead of losing an update or deadlocking.
import type postgres from "postgres";
import { TCP_MIN_RTT_SERIES, type IngestResult, type SampleBatch } from "../../../shared/contract/index.js";
import { blobOf, mergeStored, RollupBatch, type RollupCell, type StoredCell } from "../rollup-batch.js";
import { classOf } from "../rollup-class.js";
import { toUs } from "../schema.js";
import { rawValues, SessionOwnerError, type IngestMeta } from "../writer.js";
import { dayOf, ensurePartitions } from "./schema.js";
import { PgCodes } from "./codes.js";

const RAW_COLUMNS = "session, seq, t, series, outcome, us, sched_ms, late_us, hidden_us, flags, reason, winner, other_us, other_outcome, minrtt_us, lag_us, server_us";
const RAW_WIDTH = 17;
/** Column types of raw_samples, in RAW_COLUMNS order. */
const RAW_TYPES = ["integer", "bigint", "bigint", "integer", "smallint", "bigint", "bigint", "bigint", "bigint", "integer", "integer", "smallint", "bigint", "smallint", "bigint", "bigint", "bigint"];
const INSERT_RAW_UNNEST = `INSERT INTO raw_samples (${RAW_COLUMNS})
  SELECT * FROM unnest(${RAW_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(", ")})
  ON CONFLICT DO NOTHING RETURNING seq`;
/** A PostgreSQL array literal of integers and NULLs (text: no quoting needed). */
const arrayLiteral = (xs: readonly (number | null)[]) => `{${xs.map((x) => (x === null ? "NULL" : String(x))).join(",")}}`;
const KEY = "level, client, class, start_ms, series";

type Tx = postgres.TransactionSql;
type Value = number | string | null | Buffer;

const placeholders = (rows: number, width: number, casts: readonly string[] = []) =>
  Array.from({ length: rows }, (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}${casts[c] ?? ""}`).join(", ")})`).join(", ");

const KEY_CASTS = ["::smallint", "::integer", "::smallint", "::bigint", "::integer"];
const cellKey = (c: RollupCell): number[] => [c.level, c.client, c.cls, c.startMs, c.series];
const compareKeys = (a: number[], b: number[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
};

/** Merges a batch's rollup cells into the rollups table inside `tx`. */
export async function mergeRollups(tx: Tx, batch: RollupBatch): Promise<void> {
  const cells = [...batch.cells.values()].sort((a, b) => compareKeys(cellKey(a), cellKey(b)));
  if (cells.length === 0) return;
  const keys = cells.flatMap(cellKey);
  // Missing rows first (in key order), then every row locked (in key order).
  await tx.unsafe(`INSERT INTO rollups (${KEY}) VALUES ${placeholders(cells.length, 5, KEY_CASTS)} ON CONFLICT DO NOTHING`, keys, { prepare: false });
  const stored = await tx.unsafe(
    `SELECT ${KEY}, failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin FROM rollups
     WHERE (${KEY}) IN (VALUES ${placeholders(cells.length, 5, KEY_CASTS)}) ORDER BY ${KEY} FOR UPDATE`,
    keys,
    { prepare: false },
  );
  const byKey = new Map(stored.map((r) => [`${r.level}|${r.client}|${r.class}|${r.start_ms}|${r.series}`, r as unknown as StoredCell]));
  const values: Value[] = [];
  for (const c of cells) {
    const s = byKey.get(`${c.level}|${c.client}|${c.cls}|${c.startMs}|${c.series}`);
    if (s !== undefined) mergeStored(c, s);
    const blob = (r: RollupCell["lat"]) => {
      const b = blobOf(r);
      return b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    };
    values.push(...cellKey(c), c.failures, c.skipped, blob(c.lat), blob(c.tmo), c.winsWs, c.winsJsonp, blob(c.margin));
  }
  const casts = [...KEY_CASTS, "::bigint", "::bigint", "::bytea", "::bytea", "::bigint", "::bigint", "::bytea"];
  await tx.unsafe(
    `UPDATE rollups r SET failures = v.failures, skipped = v.skipped, lat = v.lat, tmo = v.tmo, wins_ws = v.wins_ws, wins_jsonp = v.wins_jsonp, margin = v.margin
     FROM (VALUES ${placeholders(cells.length, 12, casts)}) AS v (${KEY}, failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin)
     WHERE r.level = v.level AND r.client = v.client AND r.class = v.class AND r.start_ms = v.start_ms AND r.series = v.series`,
    values,
    { prepare: false },
  );
}

export interface PgWriter {
  insertBatch(batch: SampleBatch, meta: IngestMeta): Promise<IngestResult>;
}

export function postgresWriter(sql: postgres.Sql, codes: PgCodes, partitions: Set<number>): PgWriter {
  return {
    async insertBatch(batch, meta) {
      // Codes and day partitions are created before the transaction, each
      // committed on its own: a code row without samples is harmless, and
      // the batch's transaction then only takes row locks.
      await ensurePartitions(sql, new Set(batch.samples.map((s) => dayOf(s.t))), partitions);
      const client = await codes.clientOf(batch.clientId);
      const rows: { s: SampleBatch["samples"][number]; v: (number | null)[] }[] = [];
      for (const s of batch.samples) {
        // rawValues asks the codes synchronously: resolve this batch's codes first.
        await codes.prepare(s.method, s.target, s.reason);
        rows.push({ s, v: rawValues(0, s, codes.sync) });
      }
      return sql.begin(async (tx) => {
        const session = await sessionOf(tx, batch, meta, client);
        if (batch.label !== undefined) await tx`UPDATE sessions SET label = ${batch.label} WHERE id = ${session.id} AND label IS DISTINCT FROM ${batch.label}`;
        if (batch.timerResolutionMs !== undefined)
          await tx`UPDATE sessions SET timer_resolution_us = ${toUs(batch.timerResolutionMs)} WHERE id = ${session.id} AND timer_resolution_us IS NULL`;
        for (const r of rows) r.v[0] = session.id;
        // One array per column (unnest): a fixed statement, prepared once,
        // where a VALUES list of 17 × 1000 parameters is parsed and planned
        // anew for every batch (3× slower, measured with 1000-row batches).
        const columns = Array.from({ length: RAW_WIDTH }, (_, c) => arrayLiteral(rows.map((r) => r.v[c] ?? null)));
        const inserted = await tx.unsafe(INSERT_RAW_UNNEST, columns);
        const accepted = new Set(inserted.map((r) => Number(r.seq)));
        const rollups = new RollupBatch();
        for (const { s, v } of rows) {
          if (!accepted.has(s.seq)) continue;
          const [, , t, series, outcome, us, , lateUs, , flags, , winner, otherUs, , minrttUs] = v;
          rollups.add({
            t: t!,
            series: series!,
            client: session.client,
            cls: classOf(flags!, lateUs ?? null),
            outcome: outcome!,
            us: us ?? null,
            winner: winner ?? null,
            otherUs: otherUs ?? null,
            minrttSeries: s.method === "tcprtt" && minrttUs !== null ? codes.sync.seriesOf(TCP_MIN_RTT_SERIES, s.target) : null,
            minrttUs: minrttUs ?? null,
          });
        }
        await mergeRollups(tx, rollups);
        return { accepted: accepted.size, duplicates: batch.samples.length - accepted.size };
      }) as Promise<IngestResult>;
    },
  };
}

async function sessionOf(tx: Tx, batch: SampleBatch, meta: IngestMeta, client: number): Promise<{ id: number; client: number }> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const [found] = await tx`SELECT id, client_id, client FROM sessions WHERE session_key = ${batch.sessionId}`;
    if (found !== undefined) {
      if (found.client_id !== batch.clientId) throw new SessionOwnerError("sessionId belongs to another clientId");
      return { id: found.id as number, client: found.client as number };
    }
    const [added] = await tx`INSERT INTO sessions (session_key, client_id, client, label, user_agent, first_seen_ms)
      VALUES (${batch.sessionId}, ${batch.clientId}, ${client}, ${batch.label ?? null}, ${meta.userAgent}, ${meta.receivedAtMs})
      ON CONFLICT (session_key) DO NOTHING RETURNING id`;
    if (added !== undefined) return { id: added.id as number, client };
    // Another server added it in the meantime: read it (and check its owner).
  }
  throw new Error("session could be neither found nor added");
}
