// Writing samples: the raw samples (in blocks, block-writer.ts) and the
// rollups they add to in one transaction (a group of batches, see
// batchWriter), so a query never sees one without the other. Redelivery is
// idempotent on (t, session, seq) (a re-sent sample keeps its t): only
// samples actually stored count in the rollups.
import type Database from "better-sqlite3";
import { TCP_MIN_RTT_SERIES, type IngestResult, type Sample, type SampleBatch } from "../../shared/contract/index.js";
import { packRaw, PACKED_RAW_COLUMNS } from "./raw-layout.js";
import { blockStore, type BlockItem } from "./block-writer.js";
import { classOf } from "./rollup-class.js";
import { mergedRow, RollupBatch, type StoredCell } from "./rollup-batch.js";
import { FLAG, FLAG_KNOWN_SHIFT, outcomeCode, toUs, toUsOrNull, winnerCode } from "./schema.js";

export interface IngestMeta {
  userAgent: string | null;
  receivedAtMs: number;
}

export class SessionOwnerError extends Error {
  readonly code = "SESSION_CLIENT_MISMATCH";
}

export function packFlags(s: Partial<Record<keyof typeof FLAG, boolean | undefined>>): number {
  let flags = 0;
  for (const key of Object.keys(FLAG) as (keyof typeof FLAG)[]) {
    const v = s[key];
    if (v === undefined) continue;
    flags |= FLAG[key] << FLAG_KNOWN_SHIFT;
    if (v) flags |= FLAG[key];
  }
  return flags;
}

/** Small-integer codes for series, reasons and clients, cached; a row is added on first use. */
export class Codes {
  private series = new Map<string, number>();
  private reasons = new Map<string, number>();
  private clients = new Map<string, number>();
  private readonly addSeries: Database.Statement;
  private readonly addReason: Database.Statement;
  private readonly addClient: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.addSeries = db.prepare("INSERT INTO series (method, target) VALUES (?, ?)");
    this.addReason = db.prepare("INSERT INTO reasons (text) VALUES (?)");
    this.addClient = db.prepare("INSERT INTO clients (client_key) VALUES (?)");
    this.reload();
  }

  /** After a rolled-back transaction, codes it added are gone again. */
  reload(): void {
    const rows = <T>(sql: string) => this.db.prepare(sql).all() as T[];
    this.series = new Map(
      rows<{ id: number; method: string; target: string }>("SELECT id, method, target FROM series").map((r) => [
        `${r.method} ${r.target}`,
        r.id,
      ]),
    );
    this.reasons = new Map(
      rows<{ id: number; text: string }>("SELECT id, text FROM reasons").map((r) => [r.text, r.id]),
    );
    this.clients = new Map(
      rows<{ id: number; client_key: string }>("SELECT id, client_key FROM clients").map((r) => [r.client_key, r.id]),
    );
  }

  seriesOf(method: string, target: string): number {
    const key = `${method} ${target}`;
    let id = this.series.get(key);
    if (id === undefined) this.series.set(key, (id = Number(this.addSeries.run(method, target).lastInsertRowid)));
    return id;
  }

  reasonOf(text: string): number {
    let id = this.reasons.get(text);
    if (id === undefined) this.reasons.set(text, (id = Number(this.addReason.run(text).lastInsertRowid)));
    return id;
  }

  clientOf(key: string): number {
    let id = this.clients.get(key);
    if (id === undefined) this.clients.set(key, (id = Number(this.addClient.run(key).lastInsertRowid)));
    return id;
  }
}

/** Merges a batch's rollups into the table (read, merge, write back per cell). */
export function rollupWriter(db: Database.Database): (batch: RollupBatch) => void {
  const get = db.prepare<[number, number, number, number, number], StoredCell>(
    "SELECT failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin FROM rollups WHERE level = ? AND start_ms = ? AND series = ? AND client = ? AND class = ?",
  );
  const put = db.prepare(
    "INSERT OR REPLACE INTO rollups (level, start_ms, series, client, class, failures, skipped, lat, tmo, wins_ws, wins_jsonp, margin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  return (batch) => {
    for (const c of batch.cells.values()) {
      const m = mergedRow(c, get.get(c.level, c.startMs, c.series, c.client, c.cls));
      put.run(
        c.level,
        c.startMs,
        c.series,
        c.client,
        c.cls,
        m.failures,
        m.skipped,
        m.lat,
        m.tmo,
        m.winsWs,
        m.winsJsonp,
        m.margin,
      );
    }
  };
}

/** What rawValues needs of the codes: the SQLite Codes, or the PostgreSQL store's prepared ones. */
export type CodeLookup = Pick<Codes, "seriesOf" | "reasonOf">;

/** A wire sample's logical raw values (RAW_COLUMNS' order): what packRaw packs and the rollups read. */
export function rawValues(session: number, s: Sample & { serverMs?: number }, codes: CodeLookup): (number | null)[] {
  return [
    session,
    s.seq,
    s.t,
    codes.seriesOf(s.method, s.target),
    outcomeCode(s.outcome),
    toUsOrNull(s.ms),
    s.scheduledT === undefined ? null : s.t - s.scheduledT,
    toUsOrNull(s.lateMs),
    toUsOrNull(s.hiddenMs),
    packFlags(s),
    s.reason === undefined ? null : codes.reasonOf(s.reason),
    s.winner === undefined ? null : winnerCode(s.winner),
    toUsOrNull(s.otherMs),
    s.otherOutcome === undefined ? null : outcomeCode(s.otherOutcome),
    toUsOrNull(s.minrtt),
    toUsOrNull(s.serverLagMs),
    toUsOrNull(s.serverMs),
  ];
}

/** Widens a session's [first_t, last_t] to a batch's samples (duplicates included: they were stored with the same t). */
export const WIDEN_SESSION_SPAN = `UPDATE sessions SET first_t = min(coalesce(first_t, @lo), @lo), last_t = max(coalesce(last_t, @hi), @hi) WHERE id = @id`;

/** The [lo, hi] of the samples' t, or null for none. */
export function spanOf(samples: readonly { t: number }[]): { lo: number; hi: number } | null {
  if (samples.length === 0) return null;
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of samples) {
    if (s.t < lo) lo = s.t;
    if (s.t > hi) hi = s.t;
  }
  return { lo, hi };
}

/** A raw sample's logical columns in rawValues' order: the PostgreSQL store's raw_samples, SQLite's before version 5 (raw-layout.ts packs them). */
export const RAW_COLUMNS =
  "session, seq, t, series, outcome, us, sched_ms, late_us, hidden_us, flags, reason, winner, other_us, other_outcome, minrtt_us, lag_us, server_us";

/** SQLite's insert of one row into version 6's raw_samples (the upgrades of older files write it first), its values as packRaw returns them. */
export const INSERT_RAW = `INSERT OR IGNORE INTO raw_samples (${PACKED_RAW_COLUMNS})
  VALUES (${PACKED_RAW_COLUMNS.split(",")
    .map(() => "?")
    .join(", ")})`;

/** Raises a session's highest stored seq (block-writer.ts looks up duplicates only at or below it). */
export const RAISE_MAX_SEQ = "UPDATE sessions SET max_seq = max(coalesce(max_seq, -1), ?) WHERE id = ?";

const maxSeqOf = (samples: readonly { seq: number }[]): number => samples.reduce((m, s) => Math.max(s.seq, m), -1);

/** Wire samples as blockStore's items: the packed row, and the logical values and sample the rollups read. */
function blockItems(
  session: number,
  samples: readonly Sample[],
  codes: CodeLookup,
): BlockItem<{ v: (number | null)[]; s: Sample }>[] {
  return samples.map((s) => {
    const v = rawValues(session, s, codes);
    return { row: packRaw(v, s.method), extra: { v, s } };
  });
}

/** Adds one raw row (values as rawValues returns them) to a rollup batch. */
export function addRawToBatch(
  batch: RollupBatch,
  v: readonly (number | null)[],
  client: number,
  codes: Codes,
  method: string,
  target: string,
): void {
  const [, , t, series, outcome, us, , lateUs, , flags, , winner, otherUs, , minrttUs] = v;
  batch.add({
    t: t!,
    series: series!,
    client,
    cls: classOf(flags!, lateUs ?? null),
    outcome: outcome!,
    us: us ?? null,
    winner: winner ?? null,
    otherUs: otherUs ?? null,
    minrttSeries: method === "tcprtt" && minrttUs !== null ? codes.seriesOf(TCP_MIN_RTT_SERIES, target) : null,
    minrttUs: minrttUs ?? null,
  });
}

export interface GroupItem {
  batch: SampleBatch;
  meta: IngestMeta;
}

/**
 * Stores one session's samples (those not stored yet) as blocks, adds them to
 * `rollups`, and widens the session's span and highest seq: what every
 * writer of a batch does once it has the session. Returns the samples stored.
 */
function sessionSamplesWriter(
  db: Database.Database,
  codes: Codes,
): (session: StoredSession, samples: readonly Sample[], rollups: RollupBatch) => Sample[] {
  const storeBlocks = blockStore(db);
  const raiseMaxSeq = db.prepare(RAISE_MAX_SEQ);
  const widenSpan = db.prepare(WIDEN_SESSION_SPAN);
  return (session, samples, rollups) => {
    const stored = storeBlocks(session.id, session.max_seq, blockItems(session.id, samples, codes));
    for (const { extra } of stored)
      addRawToBatch(rollups, extra.v, session.client, codes, extra.s.method, extra.s.target);
    const span = spanOf(samples);
    if (span !== null) widenSpan.run({ ...span, id: session.id });
    if (samples.length > 0) raiseMaxSeq.run(maxSeqOf(samples), session.id);
    return stored.map((item) => item.extra.s);
  };
}

/** A session row as the writers read it. */
interface StoredSession {
  id: number;
  client: number;
  max_seq: number | null;
}

/**
 * Writes the batches that queued while the last write ran in one transaction
 * (group commit): each batch in a savepoint of its own, so one refused batch
 * leaves the others stored, and their rollups merged in memory and written
 * once, so a rollup row many clients add to (the all-clients rows) is read,
 * merged and rewritten once per group instead of once per batch. Each result
 * is final only after the group commits, and answers are sent after that.
 */
export function batchWriter(
  db: Database.Database,
  codes: Codes,
): (items: readonly GroupItem[]) => (IngestResult | Error)[] {
  const findSession = db.prepare<[string], StoredSession & { client_id: string }>(
    "SELECT id, client_id, client, max_seq FROM sessions WHERE session_key = ?",
  );
  const addSession = db.prepare(
    "INSERT INTO sessions (session_key, client_id, client, label, user_agent, first_seen_ms) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const writeSamples = sessionSamplesWriter(db, codes);
  const updateLabel = db.prepare("UPDATE sessions SET label = ? WHERE id = ? AND label IS NOT ?");
  // The first resolution a session reports is kept: it cannot change within a page's life.
  const setTimerResolution = db.prepare(
    "UPDATE sessions SET timer_resolution_us = ? WHERE id = ? AND timer_resolution_us IS NULL",
  );
  const writeRollups = rollupWriter(db);

  /** One batch's rows, its rollups gathered into `rollups`; run as a savepoint inside the group's transaction. */
  const one = db.transaction((batch: SampleBatch, meta: IngestMeta, rollups: RollupBatch): IngestResult => {
    let session = findSession.get(batch.sessionId);
    if (session === undefined) {
      const client = codes.clientOf(batch.clientId);
      const info = addSession.run(
        batch.sessionId,
        batch.clientId,
        client,
        batch.label ?? null,
        meta.userAgent,
        meta.receivedAtMs,
      );
      session = { id: Number(info.lastInsertRowid), client_id: batch.clientId, client, max_seq: null };
    } else if (session.client_id !== batch.clientId) {
      throw new SessionOwnerError("sessionId belongs to another clientId");
    }
    if (batch.label !== undefined) updateLabel.run(batch.label, session.id, batch.label);
    if (batch.timerResolutionMs !== undefined) setTimerResolution.run(toUs(batch.timerResolutionMs), session.id);
    const stored = writeSamples(session, batch.samples, rollups);
    return { accepted: stored.length, duplicates: batch.samples.length - stored.length };
  });

  const group = db.transaction((items: readonly GroupItem[]): (IngestResult | Error)[] => {
    const shared = new RollupBatch();
    const results = items.map(({ batch, meta }): IngestResult | Error => {
      const mine = new RollupBatch();
      try {
        const r = one(batch, meta, mine);
        shared.mergeFrom(mine);
        return r;
      } catch (err) {
        // Its savepoint is rolled back, codes it added with it; the other batches go on.
        codes.reload();
        return err instanceof Error ? err : new Error(String(err));
      }
    });
    writeRollups(shared);
    return results;
  });

  return (items) => {
    try {
      return group.immediate(items);
    } catch (err) {
      // The group's commit failed (a full disk, a lock held too long): no batch of it is stored.
      codes.reload();
      const e = err instanceof Error ? err : new Error(String(err));
      return items.map(() => e);
    }
  };
}

/**
 * Bulk loading for generated data (benchmarks): batches must come in time
 * order; rollups are kept in memory until their bucket has closed and then
 * written once, so a sparse month costs one rollup write per bucket, not per
 * batch. `finish` writes what is still open. Same rows as insertBatch.
 */
export function bulkLoader(db: Database.Database, codes: Codes): { add(batch: SampleBatch): void; finish(): void } {
  const addSession = db.prepare(
    "INSERT OR IGNORE INTO sessions (session_key, client_id, client, label, user_agent, first_seen_ms) VALUES (?, ?, ?, ?, NULL, 0)",
  );
  const findSession = db.prepare<[string], StoredSession>(
    "SELECT id, client, max_seq FROM sessions WHERE session_key = ?",
  );
  const writeSamples = sessionSamplesWriter(db, codes);
  const writeRollups = rollupWriter(db);
  let open = new RollupBatch();
  const flushBefore = (watermarkMs: number) => writeRollups(open.takeClosed(watermarkMs));
  const add = db.transaction((batch: SampleBatch) => {
    addSession.run(batch.sessionId, batch.clientId, codes.clientOf(batch.clientId), batch.label ?? null);
    const session = findSession.get(batch.sessionId)!;
    const stored = writeSamples(session, batch.samples, open);
    flushBefore(stored.reduce((min, s) => Math.min(s.t, min), Infinity));
  });
  return {
    add,
    finish: db.transaction(() => {
      writeRollups(open);
      open = new RollupBatch();
    }),
  };
}
