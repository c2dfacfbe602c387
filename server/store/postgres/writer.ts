// Ingest on PostgreSQL: one transaction per batch, the raw rows by one
// multi-row INSERT (unnest of one array per column) ON CONFLICT DO NOTHING,
// and the rollups of the rows actually inserted merged in the same
// transaction, so a query never sees one without the other and redelivery
// never counts twice.
//
// Why merge in the transaction rather than in a background step: it is what
// the SQLite store does (one design, and any server's answer includes every
// acknowledged sample at once); the histograms are merged JS-side, in a fixed
// lock order so two servers never deadlock (rollup-writer.ts).
import type postgres from "postgres";
import type { IngestResult, SampleBatch } from "../../../shared/contract/index.js";
import { SessionOwnerError } from "../errors.js";
import { RAW_COLUMNS, rawValues, rollupRowOf, spanOf, STRESS_COLUMNS, toUs } from "../logical-row.js";
import { RollupBatch } from "../rollup-batch.js";
import type { IngestMeta } from "../store.js";
import type { PgCodes } from "./codes.js";
import { dayOf, ensurePartitions } from "./partitions.js";
import { arrayLiteral, mergeRollups, type Tx } from "./rollup-writer.js";

/** Column types of raw_samples, in RAW_COLUMNS then STRESS_COLUMNS order. */
const RAW_TYPES = [
  "integer",
  "bigint",
  "bigint",
  "integer",
  "smallint",
  "bigint",
  "bigint",
  "bigint",
  "bigint",
  "integer",
  "integer",
  "smallint",
  "bigint",
  "smallint",
  "bigint",
  "bigint",
  "bigint",
  "bigint",
  "smallint",
];
const RAW_WIDTH = RAW_TYPES.length;
const INSERT_RAW_UNNEST = `INSERT INTO raw_samples (${RAW_COLUMNS}, ${STRESS_COLUMNS})
  SELECT * FROM unnest(${RAW_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(", ")})
  ON CONFLICT DO NOTHING RETURNING seq`;

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
        await codes.prepare(s.method, s.target, s.reason, s.stressRun);
        rows.push({ s, v: rawValues(0, s, codes.sync) });
      }
      return sql.begin(async (tx) => {
        const session = await sessionOf(tx, batch, meta, client);
        if (batch.label !== undefined)
          await tx`UPDATE sessions SET label = ${batch.label} WHERE id = ${session.id} AND label IS DISTINCT FROM ${batch.label}`;
        if (batch.timerResolutionMs !== undefined)
          await tx`UPDATE sessions SET timer_resolution_us = ${toUs(batch.timerResolutionMs)} WHERE id = ${session.id} AND timer_resolution_us IS NULL`;
        for (const r of rows) r.v[0] = session.id;
        const span = spanOf(batch.samples);
        if (span !== null)
          await tx`UPDATE sessions SET first_t = LEAST(first_t, ${span.lo}), last_t = GREATEST(last_t, ${span.hi}) WHERE id = ${session.id}`;
        // One array per column (unnest): a fixed statement, prepared once,
        // where a VALUES list of 17 × 1000 parameters is parsed and planned
        // anew for every batch (3× slower, measured with 1000-row batches).
        const columns = Array.from({ length: RAW_WIDTH }, (_, c) => arrayLiteral(rows.map((r) => r.v[c] ?? null)));
        const inserted = await tx.unsafe(INSERT_RAW_UNNEST, columns);
        const accepted = new Set(inserted.map((r) => Number(r.seq)));
        const rollups = new RollupBatch();
        for (const { s, v } of rows) {
          if (!accepted.has(s.seq)) continue;
          rollups.add(rollupRowOf(v, session.client, s.method, s.target, codes.sync));
        }
        await mergeRollups(tx, rollups);
        return { accepted: accepted.size, duplicates: batch.samples.length - accepted.size };
      }) as Promise<IngestResult>;
    },
  };
}

async function sessionOf(
  tx: Tx,
  batch: SampleBatch,
  meta: IngestMeta,
  client: number,
): Promise<{ id: number; client: number }> {
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
