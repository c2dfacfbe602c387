// What every schema upgrade step shares: how many rows it reads between two
// progress lines, and the line itself.

/** Rows converted between two progress lines (and rollup flushes, where a step has them). */
export const MIGRATE_CHUNK_ROWS = 50_000;

/** "upgrading database schema 6 → 7: 50000 / 120000 samples (41 %)" */
export function progressLine(step: string, done: number, total: number): string {
  return `upgrading database schema ${step}: ${done} / ${total} samples (${total === 0 ? 100 : Math.floor((100 * done) / total)} %)`;
}
