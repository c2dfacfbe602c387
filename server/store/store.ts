// The one module that owns the database: everything reads and writes samples through here.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { IngestResult, SampleBatch, StatsQuery, StatsRow } from "../../shared/protocol.js";
import { methodOrder } from "../../shared/methods.js";
import { summarize } from "../../shared/stats.js";
import { FLAG, FLAG_KNOWN_SHIFT, migrate } from "./schema.js";
import type { RacesResponse } from "../../shared/races.js";
import { queryRaces } from "./race-queries.js";

export interface IngestMeta {
  userAgent: string | null;
  receivedAtMs: number;
}

export class SessionOwnerError extends Error {
  readonly code = "SESSION_CLIENT_MISMATCH";
}

export interface SampleFilter {
  fromMs: number;
  toMs: number;
  clientId?: string | undefined;
}

export interface Store {
  /** Stores a batch in one transaction; returns after the commit. */
  insertBatch(batch: SampleBatch, meta: IngestMeta): IngestResult;
  stats(filter: SampleFilter): StatsRow[];
  /** Availability per server and best-of-two's wins and savings (GET /api/races). */
  races(filter: SampleFilter): Promise<RacesResponse>;
  /** Raw access for integrity checks and tests. */
  readonly db: Database.Database;
  close(): void;
}

export function filterFromQuery(q: StatsQuery, nowMs: number): SampleFilter {
  return { fromMs: q.from ?? 0, toMs: q.to ?? nowMs, clientId: q.client };
}

function packFlags(s: SampleBatch["samples"][number]): number {
  let flags = 0;
  for (const key of Object.keys(FLAG) as (keyof typeof FLAG)[]) {
    const v = s[key];
    if (v === undefined) continue;
    flags |= FLAG[key] << FLAG_KNOWN_SHIFT;
    if (v) flags |= FLAG[key];
  }
  return flags;
}

export function openStore(dbPath: string): Store {
  if (dbPath !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
  const db = new Database(dbPath);
  // WAL lets queries read while ingest writes; NORMAL still survives a process
  // crash (SIGKILL) with every committed transaction, and skips an fsync per commit.
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(db);

  const findSession = db.prepare<[string], { id: number; client_id: string }>(
    "SELECT id, client_id FROM sessions WHERE session_key = ?",
  );
  const addSession = db.prepare(
    "INSERT INTO sessions (session_key, client_id, label, user_agent, first_seen_ms) VALUES (?, ?, ?, ?, ?)",
  );
  const updateLabel = db.prepare("UPDATE sessions SET label = ? WHERE id = ? AND label IS NOT ?");
  const addSample = db.prepare(`
    INSERT OR IGNORE INTO samples
      (session, seq, t, method, target, ms, outcome, scheduled_t, late_ms, hidden_ms, flags,
       reason, winner, other_ms, other_outcome, minrtt, server_lag_ms)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);

  const insertBatchTx = db.transaction((batch: SampleBatch, meta: IngestMeta): IngestResult => {
    let session = findSession.get(batch.sessionId);
    if (session === undefined) {
      const info = addSession.run(
        batch.sessionId,
        batch.clientId,
        batch.label ?? null,
        meta.userAgent,
        meta.receivedAtMs,
      );
      session = { id: Number(info.lastInsertRowid), client_id: batch.clientId };
    } else if (session.client_id !== batch.clientId) {
      throw new SessionOwnerError("sessionId belongs to another clientId");
    }
    if (batch.label !== undefined) updateLabel.run(batch.label, session.id, batch.label);
    let accepted = 0;
    for (const s of batch.samples) {
      const info = addSample.run(
        session.id,
        s.seq,
        s.t,
        s.method,
        s.target,
        s.ms,
        s.outcome,
        s.scheduledT ?? null,
        s.lateMs ?? null,
        s.hiddenMs ?? null,
        packFlags(s),
        s.reason ?? null,
        s.winner ?? null,
        s.otherMs ?? null,
        s.otherOutcome ?? null,
        s.minrtt ?? null,
        s.serverLagMs ?? null,
      );
      accepted += info.changes;
    }
    return { accepted, duplicates: batch.samples.length - accepted };
  });

  const statsAll = db.prepare<[number, number]>(
    "SELECT method, target, outcome, ms, minrtt FROM samples WHERE t >= ? AND t <= ?",
  );
  const statsClient = db.prepare<[number, number, string]>(`
    SELECT method, target, outcome, ms, minrtt FROM samples
    WHERE t >= ? AND t <= ? AND session IN (SELECT id FROM sessions WHERE client_id = ?)`);

  function stats(filter: SampleFilter): StatsRow[] {
    const groups = new Map<string, { method: string; target: string; values: number[]; failures: number; skipped: number }>();
    const group = (method: string, target: string) => {
      const key = `${method}\u0000${target}`;
      let g = groups.get(key);
      if (g === undefined) {
        g = { method, target, values: [], failures: 0, skipped: 0 };
        groups.set(key, g);
      }
      return g;
    };
    const rows =
      filter.clientId === undefined
        ? statsAll.raw().iterate(filter.fromMs, filter.toMs)
        : statsClient.raw().iterate(filter.fromMs, filter.toMs, filter.clientId);
    for (const r of rows as Iterable<[string, string, string, number | null, number | null]>) {
      const [method, target, outcome, ms, minrtt] = r;
      const g = group(method, target);
      if (outcome === "ok" && ms !== null) g.values.push(ms);
      else if (outcome === "skipped") g.skipped++;
      else g.failures++;
      // The kernel's min RTT is a series of its own beside the smoothed RTT.
      if (minrtt !== null) group("tcpminrtt", target).values.push(minrtt);
    }
    return [...groups.values()]
      .map((g) => ({ method: g.method, target: g.target, failures: g.failures, skipped: g.skipped, ...summarize(g.values) }))
      .sort((a, b) => a.target.localeCompare(b.target) || methodOrder(a.method) - methodOrder(b.method));
  }

  return {
    db,
    insertBatch: (batch, meta) => insertBatchTx.immediate(batch, meta),
    stats,
    races: (filter) => Promise.resolve().then(() => queryRaces(db, filter)),
    close: () => db.close(),
  };
}
