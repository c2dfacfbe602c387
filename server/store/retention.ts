// Bounded storage, the same promise on both engines: raw samples are kept for
// rawDays, 5-minute rollups as long (a range without raw samples is answered
// at hour resolution), hour and day rollups for rollupDays. Each engine prunes
// its own way (sqlite/retention.ts: small batches; postgres/retention.ts: whole
// day partitions).

export const DAY_MS = 86_400_000;
export const RAW_DAYS_DEFAULT = 30;
export const ROLLUP_DAYS_DEFAULT = 400;
export const RETENTION_DAYS_MIN = 1;
export const RETENTION_DAYS_MAX = 36_500;
/** How often retention looks for old rows (ms). */
export const PRUNE_INTERVAL_MS = 60_000;

export interface RetentionOptions {
  rawDays: number;
  rollupDays: number;
}

export interface Retention {
  /** Epoch ms before which raw samples have been pruned (0 until a pass has run); kept in meta across restarts. */
  rawKeptFromMs(): number;
  /** One pass now (tests); resolves when nothing older is left. */
  pruneNow(): Promise<number>;
  stop(): void;
}

export const retentionOf = (opts: {
  rawDays?: number | undefined;
  rollupDays?: number | undefined;
}): RetentionOptions => ({
  rawDays: opts.rawDays ?? RAW_DAYS_DEFAULT,
  rollupDays: opts.rollupDays ?? ROLLUP_DAYS_DEFAULT,
});
