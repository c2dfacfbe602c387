// The scalar notations of the rules file: Prometheus' durations ("15m",
// "1h30m"), latencies ("250ms", "1.5s"), percentages ("99.5%") and factors
// ("2x"). Each parser returns a value or a sentence saying what was expected.
import { fail, ok, type Result } from "../../shared/result.js";

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** Prometheus' duration notation: units from largest to smallest, each at most once ("1h30m", "90s", "0s"). */
export function parseDuration(text: string): Result<number> {
  const re = /(\d+)(ms|s|m|h|d|w)/gy;
  if (text === "") return fail("a duration such as 30s, 5m or 1h30m");
  let total = 0;
  let last = Infinity;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(text)) !== null) {
    const unit = DURATION_UNITS[m[2]!]!;
    if (unit >= last) return fail("a duration with each unit once, largest first (e.g. 1h30m)");
    last = unit;
    total += Number(m[1]) * unit;
    end = re.lastIndex;
  }
  if (end !== text.length) return fail("a duration such as 30s, 5m or 1h30m (units ms, s, m, h, d, w)");
  return ok(total);
}

/** "250ms", "1.5s" or a bare number of ms. */
export function parseLatencyMs(text: string): Result<number> {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s)?$/.exec(text);
  if (m === null) return fail("a latency such as 250ms or 1.5s");
  return ok(Number(m[1]) * (m[2] === "s" ? 1000 : 1));
}

/** "99.5%" or a bare number (percent). */
export function parsePercent(text: string): Result<number> {
  const m = /^(\d+(?:\.\d+)?)\s*%?$/.exec(text);
  if (m === null) return fail("a percentage such as 99.5%");
  const v = Number(m[1]);
  if (v > 100) return fail("a percentage between 0% and 100%");
  return ok(v);
}

/** "2x": a factor of the series' own past value. */
export function parseFactor(text: string): Result<number> {
  const m = /^(\d+(?:\.\d+)?)\s*x$/.exec(text);
  if (m === null) return fail("a factor such as 2x");
  const v = Number(m[1]);
  if (v <= 0) return fail("a factor above 0x");
  return ok(v);
}

export const isFactor = (text: string): boolean => /x\s*$/.test(text);
