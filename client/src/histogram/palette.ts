// Colours readers with colour-vision deficiencies can tell apart: the
// Okabe–Ito palette for series (colour = method, dash = server) and a
// viridis-like ramp for heatmap counts (monotonic in lightness, so it also
// survives greyscale).
import { methodOrder } from "../../../shared/methods.js";

export const OKABE_ITO = {
  orange: "#E69F00",
  skyBlue: "#56B4E9",
  green: "#009E73",
  yellow: "#F0E442",
  blue: "#0072B2",
  vermillion: "#D55E00",
  purple: "#CC79A7",
  grey: "#999999",
} as const;

const METHOD_COLOURS: Record<string, string> = {
  xhr: OKABE_ITO.blue,
  jsonp: OKABE_ITO.orange,
  ws: OKABE_ITO.green,
  best2: OKABE_ITO.purple,
  ping: OKABE_ITO.vermillion,
  wsping: OKABE_ITO.skyBlue,
  tcprtt: OKABE_ITO.grey,
  tcpminrtt: OKABE_ITO.yellow,
  // Okabe–Ito has eight colours and all are taken: the servers' own probes of
  // their peers take darker shades of the browser methods they mirror (XHR, WebSocket).
  peerhttp: "#003F63",
  peerws: "#00573F",
};

export function methodColour(method: string): string {
  return METHOD_COLOURS[method] ?? [OKABE_ITO.blue, OKABE_ITO.orange, OKABE_ITO.green][methodOrder(method) % 3]!;
}

/** Dash pattern (CSS px) per server: the home server solid, the others dashed or dotted. */
export function targetDash(target: string, targets: readonly string[]): number[] {
  const i = Math.max(0, targets.indexOf(target));
  return [[], [8, 4], [2, 3], [10, 3, 2, 3]][i % 4]!;
}

/** Lines of a latency-over-time panel. */
export const PERCENTILE_COLOURS = {
  p50: OKABE_ITO.blue,
  p90: OKABE_ITO.green,
  p99: OKABE_ITO.orange,
  max: OKABE_ITO.vermillion,
  failures: OKABE_ITO.purple,
} as const;

// Viridis at six stops (dark purple → yellow).
const RAMP: [number, number, number][] = [
  [68, 1, 84],
  [65, 68, 135],
  [42, 120, 142],
  [34, 168, 132],
  [122, 209, 81],
  [253, 231, 37],
];

/**
 * Colour of a heatmap cell. Counts are spread on a log scale: a tail bucket
 * holding 1 sample must stay visible next to the mode holding thousands.
 */
export function heatColour(count: number, maxCount: number): string {
  const f = maxCount <= 1 ? 1 : Math.log(count) / Math.log(maxCount);
  const x = Math.min(1, Math.max(0, f)) * (RAMP.length - 1);
  const i = Math.min(RAMP.length - 2, Math.floor(x));
  const w = x - i;
  const a = RAMP[i]!;
  const b = RAMP[i + 1]!;
  const c = (k: 0 | 1 | 2) => Math.round(a[k] + (b[k] - a[k]) * w);
  return `rgb(${c(0)}, ${c(1)}, ${c(2)})`;
}

/** Incident bands on the time charts: an outage in vermillion, a degradation in orange (hex, alpha appended). */
export const INCIDENT_COLOURS = { down: OKABE_ITO.vermillion, degraded: OKABE_ITO.orange } as const;
