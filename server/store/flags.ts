// A sample's booleans as one integer, the same in both engines' raw samples
// and in the `flags` column of their exports: a bit for the value, and one
// FLAG_KNOWN_SHIFT higher for whether the sample said at all (absent ≠ false).

/** Bits of a stored sample's flags: booleans of the wire sample packed into one integer. */
export const FLAG = {
  visibleAtSend: 1,
  visibleAtReply: 2,
  froze: 4,
  fresh: 8,
  /** The wire's `reportInFlight` (a report was being sent when the probe ran). */
  reportInFlight: 16,
} as const;
/** Bits recording that the boolean was present at all (absent ≠ false). */
export const FLAG_KNOWN_SHIFT = 8;

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
