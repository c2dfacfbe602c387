// Unsigned LEB128 varints: the byte form of stored rollups (rollup.ts) and
// raw sample blocks (server/store/sqlite/raw-block.ts). Multiplication, not shifts:
// values reach 2^53 (µs sums), past JavaScript's 32-bit bit operations.

/** Appends v (an integer, 0 ≤ v < 2^53) as an unsigned LEB128 varint. */
export function pushVarint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** n ≥ 0 → 2n, n < 0 → −2n − 1: small magnitudes of either sign become small varints. */
export const zigzag = (n: number): number => (n >= 0 ? 2 * n : -2 * n - 1);
export const unzigzag = (z: number): number => (z % 2 === 1 ? -(z + 1) / 2 : z / 2);
