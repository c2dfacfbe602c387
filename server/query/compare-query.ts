// GET /api/compare: the ok latencies of two series (or two ranges or clients
// of one) through shared/forensics/compare: bootstrap intervals with a fixed
// seed, so the same data gives the same interval on every reload.
import {
  COMPARE_SAMPLES_MAX,
  parseSeriesSpec,
  type CompareQuery,
  type CompareResponse,
} from "../../shared/contract/index.js";
import { compareSeries } from "../../shared/forensics/compare.js";
import { METHOD_LABELS, type Method } from "../../shared/methods.js";
import { mulberry32 } from "../../shared/prng.js";
import type { SampleFilter } from "../store/sample-filter.js";
import type { Store } from "../store/store.js";

/** Bootstrap seed: any fixed number; fixed so an interval does not flicker between refreshes. */
const BOOTSTRAP_SEED = 20261123;

interface Side {
  label: string;
  filter: SampleFilter;
}

function describe(method: string, target: string): string {
  const name = Object.hasOwn(METHOD_LABELS, method) ? METHOD_LABELS[method as Method] : method;
  return `${name} to ${target}`;
}

/** The newest COMPARE_SAMPLES_MAX latencies of a side (a ring: older ones are overwritten). */
async function latencies(
  store: Pick<Store, "openPageReader">,
  f: SampleFilter,
): Promise<{ values: Float64Array; capped: boolean }> {
  const ring = new Float64Array(COMPARE_SAMPLES_MAX);
  let n = 0;
  const reader = store.openPageReader();
  try {
    for await (const page of reader.pages(f))
      for (const r of page) {
        const counts = r[7] === "ok" || (f.timeoutsInTail === true && r[7] === "timeout");
        if (counts && r[6] !== null) ring[n++ % COMPARE_SAMPLES_MAX] = r[6];
      }
  } finally {
    reader.close();
  }
  return { values: n <= COMPARE_SAMPLES_MAX ? ring.slice(0, n) : ring, capped: n > COMPARE_SAMPLES_MAX };
}

export function compareSides(base: SampleFilter, q: CompareQuery): [Side, Side] | string {
  const a = parseSeriesSpec(q.a);
  const b = parseSeriesSpec(q.b);
  if (a === null || b === null) return "a and b must be METHOD@TARGET";
  const side = (s: { method: string; target: string }, from?: number, to?: number, client?: string): Side => ({
    label: describe(s.method, s.target),
    filter: {
      ...base,
      methods: [s.method],
      targets: [s.target],
      fromMs: from ?? base.fromMs,
      toMs: to ?? base.toMs,
      clientId: client ?? base.clientId,
    },
  });
  const sa = side(a, q.aFrom, q.aTo, q.aClient);
  const sb = side(b, q.bFrom, q.bTo, q.bClient);
  if (sa.filter.fromMs > sa.filter.toMs || sb.filter.fromMs > sb.filter.toMs)
    return "each side's from must not be after its to";
  // The same series over two ranges or two clients: name the difference.
  if (sa.label === sb.label) {
    const when = (f: SampleFilter) =>
      f.clientId !== (f === sa.filter ? sb.filter : sa.filter).clientId
        ? `client ${f.clientId ?? "all"}`
        : `${new Date(f.fromMs).toISOString().slice(11, 19)}–${new Date(f.toMs).toISOString().slice(11, 19)} UTC`;
    sa.label = `${sa.label} (${when(sa.filter)})`;
    sb.label = `${sb.label} (${when(sb.filter)})`;
  }
  return [sa, sb];
}

export async function compareQuery(
  store: Pick<Store, "openPageReader">,
  sides: [Side, Side],
): Promise<CompareResponse> {
  const [sa, sb] = sides;
  const [la, lb] = [await latencies(store, sa.filter), await latencies(store, sb.filter)];
  const info = (s: Side, l: { values: Float64Array }) => ({
    label: s.label,
    from: s.filter.fromMs,
    to: s.filter.toMs,
    count: l.values.length,
  });
  return {
    a: info(sa, la),
    b: info(sb, lb),
    comparison:
      la.values.length === 0 || lb.values.length === 0
        ? null
        : compareSeries(la.values, lb.values, { a: sa.label, b: sb.label }, { random: mulberry32(BOOTSTRAP_SEED) }),
    capped: la.capped || lb.capped,
  };
}
