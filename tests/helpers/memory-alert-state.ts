// The alert-state contract (server/store/alert-state.ts) in memory, for the
// tests of the alert book and the receivers; the engines' own are tested
// against a real SQLite file and a real PostgreSQL (alert-state.test.ts).
import type { AlertStateStore, StoredAlert } from "../../server/store/alert-state.js";

/** The contract kept in a Map. */
export function memoryAlertState(): AlertStateStore {
  const rows = new Map<string, StoredAlert>();
  const copy = (r: StoredAlert): StoredAlert => ({ ...r, sent: { ...r.sent } });
  return {
    load: async () => [...rows.values()].map(copy),
    fire: async (a) => {
      const stored = rows.get(a.fingerprint);
      if (stored !== undefined && stored.endsAtMs === null) return { won: false, row: copy(stored) };
      const row: StoredAlert = { ...a, endsAtMs: null, sent: {} };
      rows.set(a.fingerprint, row);
      return { won: true, row: copy(row) };
    },
    resolve: async (fingerprint, startsAtMs, endsAtMs, owner, nowMs) => {
      const r = rows.get(fingerprint);
      if (r === undefined || r.startsAtMs !== startsAtMs || r.endsAtMs !== null) return false;
      rows.set(fingerprint, { ...r, endsAtMs, owner, changedMs: nowMs });
      return true;
    },
    annotate: async (fingerprint, startsAtMs, annotations) => {
      const r = rows.get(fingerprint);
      if (r !== undefined && r.startsAtMs === startsAtMs) rows.set(fingerprint, { ...r, annotations });
    },
    markSent: async (fingerprint, startsAtMs, receiver, what) => {
      const r = rows.get(fingerprint);
      if (r !== undefined && r.startsAtMs === startsAtMs)
        rows.set(fingerprint, { ...r, sent: { ...r.sent, [receiver]: what } });
    },
    prune: async (beforeMs) => {
      let n = 0;
      for (const [k, r] of rows)
        if (r.endsAtMs !== null && r.endsAtMs < beforeMs) {
          rows.delete(k);
          n++;
        }
      return n;
    },
  };
}
