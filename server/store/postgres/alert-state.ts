// Alert state on PostgreSQL (../alert-state.ts), shared by every server on
// the database: each transition is one conditional statement, so when two
// servers see the same alert start or end, exactly one of them records it
// (and so sends its messages).
import type postgres from "postgres";
import type { AlertStateStore, StoredAlert } from "../alert-state.js";

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

const toAlert = (r: Row): StoredAlert => ({
  fingerprint: r.fingerprint,
  labels: JSON.parse(r.labels) as StoredAlert["labels"],
  annotations: JSON.parse(r.annotations) as StoredAlert["annotations"],
  startsAtMs: Number(r.starts_at_ms),
  endsAtMs: r.ends_at_ms === null ? null : Number(r.ends_at_ms),
  generatorUrl: r.generator_url,
  sent: JSON.parse(r.sent) as StoredAlert["sent"],
  owner: r.owner,
  changedMs: Number(r.changed_ms),
});

/** @param guarded maps the driver's errors to StorageError (errors.ts), as the store's other calls do. */
export function postgresAlertState(
  sql: postgres.Sql,
  guarded: <T>(run: () => Promise<T>) => Promise<T>,
): AlertStateStore {
  return {
    load: () => guarded(async () => (await sql<Row[]>`SELECT * FROM alert_state`).map(toAlert)),
    fire: (a) =>
      guarded(async () => {
        const inserted = await sql`
          INSERT INTO alert_state (fingerprint, labels, annotations, starts_at_ms, ends_at_ms, generator_url, sent, owner, changed_ms)
          VALUES (${a.fingerprint}, ${JSON.stringify(a.labels)}, ${JSON.stringify(a.annotations)}, ${a.startsAtMs},
                  NULL, ${a.generatorUrl}, '{}', ${a.owner}, ${a.changedMs})
          ON CONFLICT (fingerprint) DO UPDATE SET
            labels = excluded.labels, annotations = excluded.annotations, starts_at_ms = excluded.starts_at_ms,
            ends_at_ms = NULL, generator_url = excluded.generator_url, sent = '{}',
            owner = excluded.owner, changed_ms = excluded.changed_ms
          WHERE alert_state.ends_at_ms IS NOT NULL
          RETURNING fingerprint`;
        const [row] = await sql<Row[]>`SELECT * FROM alert_state WHERE fingerprint = ${a.fingerprint}`;
        return { won: inserted.length === 1, row: toAlert(row!) };
      }),
    resolve: (fingerprint, startsAtMs, endsAtMs, owner, nowMs) =>
      guarded(async () => {
        const r = await sql`
          UPDATE alert_state SET ends_at_ms = ${endsAtMs}, owner = ${owner}, changed_ms = ${nowMs}
          WHERE fingerprint = ${fingerprint} AND starts_at_ms = ${startsAtMs} AND ends_at_ms IS NULL`;
        return r.count === 1;
      }),
    annotate: (fingerprint, startsAtMs, annotations) =>
      guarded(async () => {
        await sql`UPDATE alert_state SET annotations = ${JSON.stringify(annotations)}
                  WHERE fingerprint = ${fingerprint} AND starts_at_ms = ${startsAtMs}`;
      }),
    markSent: (fingerprint, startsAtMs, receiver, what) =>
      guarded(async () => {
        // One key set in place, in one statement: two servers' or receivers' acknowledgements both stay.
        await sql`UPDATE alert_state SET sent = (sent::jsonb || jsonb_build_object(${receiver}::text, ${what}::text))::text
                  WHERE fingerprint = ${fingerprint} AND starts_at_ms = ${startsAtMs}`;
      }),
    prune: (beforeMs) =>
      guarded(async () => {
        const r = await sql`DELETE FROM alert_state WHERE ends_at_ms IS NOT NULL AND ends_at_ms < ${beforeMs}`;
        return r.count;
      }),
  };
}
