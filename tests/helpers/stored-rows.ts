// Sample rows as the end-to-end tests read them from a server's database.

export interface StoredRow {
  t: number;
  method: string;
  target: string;
  ms: number | null;
  outcome: string;
  reason: string | null;
}

/**
 * A failure is a timeout or an error; a tick skipped because the whole page
 * stalled (an overloaded machine) is not, but a probe cap hit is.
 */
export const failedProbe = (r: Pick<StoredRow, "outcome" | "reason">): boolean =>
  r.outcome === "timeout" || r.outcome === "error" || r.reason === "outstanding-cap";
