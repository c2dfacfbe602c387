// Alert state on SQLite (../alert-state.ts): read through the read pool,
// written through the writer's statements (statements.ts), so the event loop
// never writes nor waits on a lock. One server per file: the conditional
// writes still say whether this call made the transition.
import type { AlertStateStore, StoredAlert } from "../alert-state.js";
import type { ReadPool } from "../read-pool.js";
import type { SqliteWrites } from "./statements.js";

interface Row {
  fingerprint: string;
  labels: string;
  annotations: string;
  starts_at_ms: number;
  ends_at_ms: number | null;
  generator_url: string;
  sent: string;
  owner: string;
  changed_ms: number;
}

const COLUMNS = "fingerprint, labels, annotations, starts_at_ms, ends_at_ms, generator_url, sent, owner, changed_ms";

export function rowToAlert(r: Row): StoredAlert {
  return {
    fingerprint: r.fingerprint,
    labels: JSON.parse(r.labels) as StoredAlert["labels"],
    annotations: JSON.parse(r.annotations) as StoredAlert["annotations"],
    startsAtMs: Number(r.starts_at_ms),
    endsAtMs: r.ends_at_ms === null ? null : Number(r.ends_at_ms),
    generatorUrl: r.generator_url,
    sent: JSON.parse(r.sent) as StoredAlert["sent"],
    owner: r.owner,
    changedMs: Number(r.changed_ms),
  };
}

export function sqliteAlertState(pool: ReadPool, writes: SqliteWrites): AlertStateStore {
  return {
    load: async () => (await pool.all<Row>(`SELECT ${COLUMNS} FROM alert_state`, [])).map(rowToAlert),
    fire: async (a) => {
      // A new episode replaces a resolved one; a firing row is left as it is (another life started it).
      const [inserted, stored] = await writes.run([
        {
          sql: `INSERT INTO alert_state (${COLUMNS}) VALUES (?, ?, ?, ?, NULL, ?, '{}', ?, ?)
                ON CONFLICT (fingerprint) DO UPDATE SET
                  labels = excluded.labels, annotations = excluded.annotations, starts_at_ms = excluded.starts_at_ms,
                  ends_at_ms = NULL, generator_url = excluded.generator_url, sent = '{}',
                  owner = excluded.owner, changed_ms = excluded.changed_ms
                WHERE alert_state.ends_at_ms IS NOT NULL
                RETURNING fingerprint`,
          params: [
            a.fingerprint,
            JSON.stringify(a.labels),
            JSON.stringify(a.annotations),
            a.startsAtMs,
            a.generatorUrl,
            a.owner,
            a.changedMs,
          ],
        },
        { sql: `SELECT ${COLUMNS} FROM alert_state WHERE fingerprint = ?`, params: [a.fingerprint] },
      ]);
      return { won: inserted!.rows.length === 1, row: rowToAlert(stored!.rows[0] as Row) };
    },
    resolve: async (fingerprint, startsAtMs, endsAtMs, owner, nowMs) => {
      const [r] = await writes.run([
        {
          sql: `UPDATE alert_state SET ends_at_ms = ?, owner = ?, changed_ms = ?
                WHERE fingerprint = ? AND starts_at_ms = ? AND ends_at_ms IS NULL`,
          params: [endsAtMs, owner, nowMs, fingerprint, startsAtMs],
        },
      ]);
      return r!.changes === 1;
    },
    annotate: async (fingerprint, startsAtMs, annotations) => {
      await writes.run([
        {
          sql: "UPDATE alert_state SET annotations = ? WHERE fingerprint = ? AND starts_at_ms = ?",
          params: [JSON.stringify(annotations), fingerprint, startsAtMs],
        },
      ]);
    },
    markSent: async (fingerprint, startsAtMs, receiver, what) => {
      // One key of the JSON object, set in place: two receivers acknowledging at once both stay.
      await writes.run([
        {
          sql: `UPDATE alert_state SET sent = json_set(sent, '$.' || json_quote(?), ?)
                WHERE fingerprint = ? AND starts_at_ms = ?`,
          params: [receiver, what, fingerprint, startsAtMs],
        },
      ]);
    },
    prune: async (beforeMs) => {
      const [r] = await writes.run([
        { sql: "DELETE FROM alert_state WHERE ends_at_ms IS NOT NULL AND ends_at_ms < ?", params: [beforeMs] },
      ]);
      return r!.changes;
    },
  };
}
