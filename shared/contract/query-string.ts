// The query-string vocabulary every query endpoint shares: how integers,
// flags and lists are written, and the sample filters (from, to, client,
// method, target, visible, maxLateMs, exclude, timeouts, reportInFlight,
// load, stressRun).
import { METHODS } from "../methods.js";
import { TARGET_PATTERN } from "../names.js";
import { LOAD_VALUES } from "../stress/phases.js";
import { z } from "../zod.js";
import { token } from "./fields.js";

const SAFE_INTEGER_ERROR = "must be an integer within ±2^53 (9007199254740991)";

/** A query string's digits as a number, or undefined past 2^53, where a number would round silently. */
const safeInteger = (digits: string): number | undefined => {
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : undefined;
};

/** Query-string integer: "123" → 123; anything else, or a magnitude past 2^53, is an error. */
export const queryInt = z.pipe(
  z.string().check(z.regex(/^-?\d{1,16}$/, "must be an integer")),
  z.transform((digits: string, ctx) => {
    const n = safeInteger(digits);
    if (n !== undefined) return n;
    ctx.issues.push({ code: "custom", input: digits, message: SAFE_INTEGER_ERROR });
    return z.NEVER;
  }),
);

/** Query-string integer within bounds. */
export const queryIntIn = (min: number, max: number) => z.pipe(queryInt, z.int().check(z.minimum(min), z.maximum(max)));

/** "0" or "1" → boolean. */
const queryFlag = z.pipe(
  z.enum(["0", "1"]),
  z.transform((v) => v === "1"),
);

/** Comma-separated list in a query string, each item checked. */
function queryList<T extends string>(item: z.core.$ZodType<T, string>, maxItems: number) {
  return z.pipe(
    z.pipe(
      z.string().check(z.maxLength(2000)),
      z.transform((s) => s.split(",").filter((x) => x !== "")),
    ),
    z.array(item).check(z.maxLength(maxItems)),
  );
}

/**
 * Series that are not stored methods but derived from one: `tcpminrtt` is the
 * kernel's min RTT that `tcprtt` samples carry. A method filter may name it
 * to get that series alone; naming `tcprtt` brings both.
 */
export const DERIVED_SERIES = { tcpminrtt: "tcprtt" } as const;
/** Series the kernel's min RTT is reported under, beside the smoothed `tcprtt`. */
export const TCP_MIN_RTT_SERIES = "tcpminrtt";
const SERIES_METHODS = [...METHODS, ...(Object.keys(DERIVED_SERIES) as (keyof typeof DERIVED_SERIES)[])] as const;

/** "FROM-TO" epoch-ms windows, comma-separated: the spikes a user chose to leave out. */
const excludeWindows = z.pipe(
  z.string().check(z.maxLength(2000)),
  z.transform((s: string, ctx) => {
    const out: { fromMs: number; toMs: number }[] = [];
    for (const part of s.split(",")) {
      if (part === "") continue;
      const m = /^(\d{1,16})-(\d{1,16})$/.exec(part);
      const fromMs = m ? safeInteger(m[1]!) : undefined;
      const toMs = m ? safeInteger(m[2]!) : undefined;
      if (fromMs === undefined || toMs === undefined || fromMs > toMs) {
        ctx.issues.push({
          code: "custom",
          input: s,
          message: `exclude window "${part.slice(0, 40)}" is not FROM-TO in epoch ms (each within 2^53)`,
        });
        return z.NEVER;
      }
      out.push({ fromMs, toMs });
    }
    if (out.length > 20) {
      ctx.issues.push({ code: "custom", input: s, message: "at most 20 exclude windows" });
      return z.NEVER;
    }
    return out;
  }),
);

/**
 * Filters shared by /api/stats and every chart endpoint. All optional:
 * - from, to: epoch ms (default: everything up to now)
 * - client: one client's public id (see ClientInfo)
 * - method, target: comma lists (default: all); method may name tcpminrtt (see DERIVED_SERIES)
 * - visible=1: only samples sent and answered while the tab was visible
 * - maxLateMs=N: only samples whose tick fired at most N ms late
 * - exclude=FROM-TO,...: leave these windows out (the focus window's "invert")
 * - timeouts=1: timeouts enter the latency figures at their timeout value
 *   (they are still counted as failures); default: latency figures are over ok samples only
 * - reportInFlight=1: only probes sent while a report to their server was in
 *   flight; reportInFlight=0: leave those out (samples that record nothing, e.g.
 *   baselines, stay)
 * - load=PHASE,...: only samples taken in these stress-test phases (idle,
 *   download, upload, bidirectional, cooldown), `none` for those taken outside
 *   any stress test (docs/stress.md)
 * - stressRun=ID: only the samples of one stress-test run
 */
export const sampleFilterQueryShape = {
  from: z.optional(queryInt),
  to: z.optional(queryInt),
  client: z.optional(token),
  method: z.optional(queryList(z.enum(SERIES_METHODS), 16)),
  target: z.optional(queryList(z.string().check(z.regex(TARGET_PATTERN)), 16)),
  visible: z.optional(queryFlag),
  maxLateMs: z.optional(z.pipe(queryInt, z.number().check(z.minimum(0)))),
  exclude: z.optional(excludeWindows),
  timeouts: z.optional(queryFlag),
  reportInFlight: z.optional(queryFlag),
  load: z.optional(queryList(z.enum(LOAD_VALUES), LOAD_VALUES.length)),
  stressRun: z.optional(token),
};

/**
 * The tick-lateness limits (maxLateMs) the histogram page offers. The store
 * keeps a rollup class per limit, so these answer from rollups in
 * milliseconds; any other value is answered from raw samples (slower).
 */
export const MAX_LATE_MS_CHOICES = [10, 50, 100, 500, 1000, 5000] as const;
