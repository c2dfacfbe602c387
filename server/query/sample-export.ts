// One stored sample as a CSV line or an NDJSON object. Column names are the
// wire protocol's (shared/contract/samples.ts), plus client (the public id, never the
// clientId, which is the browser's secret) and sessionId; the
// flags are decoded back to booleans, empty (CSV) or null (NDJSON) where the
// page did not record them; load is the stress-test phase (empty outside a test).
import { FLAG, FLAG_KNOWN_SHIFT } from "../store/flags.js";
import type { RawSampleRow } from "../store/page-reader.js";

export const EXPORT_COLUMNS = [
  "t",
  "client",
  "sessionId",
  "seq",
  "method",
  "target",
  "ms",
  "outcome",
  "scheduledT",
  "lateMs",
  "hiddenMs",
  "visibleAtSend",
  "visibleAtReply",
  "froze",
  "fresh",
  "reason",
  "winner",
  "otherMs",
  "otherOutcome",
  "minrtt",
  "serverLagMs",
  "serverMs",
  "reportInFlight",
  // The session's: its page's clock step (µs; latencies are multiples of it) and engine.
  "timerResolutionUs",
  "engine",
  "load",
  "stressRun",
] as const;

type Cell = string | number | boolean | null;

function flag(flags: number, bit: number): boolean | null {
  return (flags & (bit << FLAG_KNOWN_SHIFT)) === 0 ? null : (flags & bit) !== 0;
}

/** Cells in EXPORT_COLUMNS order. */
export function exportCells(r: RawSampleRow): Cell[] {
  const f = r[11];
  return [
    r[0],
    r[1],
    r[2],
    r[3],
    r[4],
    r[5],
    r[6],
    r[7],
    r[8],
    r[9],
    r[10],
    flag(f, FLAG.visibleAtSend),
    flag(f, FLAG.visibleAtReply),
    flag(f, FLAG.froze),
    flag(f, FLAG.fresh),
    r[12],
    r[13],
    r[14],
    r[15],
    r[16],
    r[17],
    r[18],
    flag(f, FLAG.reportInFlight),
    r[20],
    r[21],
    r[22],
    r[23],
  ];
}

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
function csvField(v: Cell): string {
  if (v === null) return "";
  if (typeof v !== "string") return String(v);
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

export const CSV_HEADER = `${EXPORT_COLUMNS.join(",")}\n`;

export function csvLine(r: RawSampleRow): string {
  return `${exportCells(r).map(csvField).join(",")}\n`;
}

/**
 * What an export holds, in its response headers: an NDJSON body is records
 * only (one sample a line, as jq and pandas read NDJSON), so the range and
 * columns travel beside it, for the CSV too.
 */
export function exportHeaders(fromMs: number, toMs: number): Record<string, string> {
  return {
    "Tailprobe-Export": "samples; version=1",
    "Tailprobe-From": String(fromMs),
    "Tailprobe-To": String(toMs),
    "Tailprobe-Columns": EXPORT_COLUMNS.join(","),
  };
}

export function ndjsonLine(r: RawSampleRow): string {
  const cells = exportCells(r);
  const o: Record<string, Cell> = {};
  for (let i = 0; i < EXPORT_COLUMNS.length; i++) o[EXPORT_COLUMNS[i]!] = cells[i]!;
  return `${JSON.stringify(o)}\n`;
}
