// /status as HTML, rendered on the server from the same answer as
// /api/status: readable with no script at all, refreshed by the browser
// every minute, bars and latency lines as SVG shapes (no inline style: the
// pages' CSP). Every text is escaped; no client, label or address is in the
// data it is given.
import { formatMs } from "../../shared/format.js";
import type { HealthState, StatusDay, StatusResponse, StatusServer } from "../../shared/contract/status.js";
import { utcClock } from "../health/summary.js";
import { DAY_MS } from "./status-data.js";

/** The browser reloads the page this often (s). */
export const STATUS_REFRESH_S = 60;
/** A day below this uptime is drawn degraded (and down with a down incident or below DAY_DOWN_SHARE). */
const DAY_DEGRADED_SHARE = 0.999;
const DAY_DOWN_SHARE = 0.95;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const STATE_WORDS: Record<HealthState, string> = { up: "Up", degraded: "Degraded", down: "Down", unknown: "No data" };

const percent = (share: number | null) =>
  share === null ? "–" : `${(Math.floor(share * 10_000) / 100).toFixed(share === 1 ? 0 : 2)} %`;

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

function dayClass(d: StatusDay): string {
  if (d.uptime === null) return "none";
  if (d.downMs > 0 || d.uptime < DAY_DOWN_SHARE) return "down";
  return d.uptime < DAY_DEGRADED_SHARE || d.incidents > 0 ? "degraded" : "up";
}

function dayTitle(d: StatusDay): string {
  const date = new Date(d.start).toISOString().slice(0, 10);
  if (d.uptime === null) return `${date}: no probes`;
  const parts = [
    `${date}: ${percent(d.uptime)} of ${d.probes.toLocaleString("en-US")} probes answered`,
    `p50 ${formatMs(d.p50)}, p99 ${formatMs(d.p99)}`,
  ];
  if (d.downMs > 0) parts.push(`down ${duration(d.downMs)}`);
  if (d.incidents > 0) parts.push(`${d.incidents} incident${d.incidents === 1 ? "" : "s"}`);
  return parts.join("; ");
}

function bars(s: StatusServer): string {
  const w = 10;
  const gap = 2;
  const width = s.days.length * (w + gap) - gap;
  const rects = s.days
    .map(
      (d, i) =>
        `<rect class="day ${dayClass(d)}" x="${i * (w + gap)}" y="0" width="${w}" height="34" rx="1.5"><title>${esc(dayTitle(d))}</title></rect>`,
    )
    .join("");
  const label = `${s.name}: one bar per day over ${s.days.length} days`;
  return `<svg class="bars" viewBox="0 0 ${width} 34" role="img" aria-label="${esc(label)}">${rects}</svg>`;
}

/** p50 and p99 per day on a log scale, gaps where a day has none. */
function latency(s: StatusServer): string {
  const values = s.days.flatMap((d) => [d.p50, d.p99]).filter((v): v is number => v !== null && v > 0);
  if (values.length === 0) return `<p class="meta">No latency measured yet.</p>`;
  const width = s.days.length * 12 - 2;
  const height = 70;
  const lo = Math.log10(Math.min(...values));
  const hi = Math.max(lo + 1, Math.log10(Math.max(...values)));
  const y = (v: number) => (height - 4 - ((Math.log10(v) - lo) / (hi - lo)) * (height - 14)).toFixed(1);
  const line = (key: "p50" | "p99") => {
    const parts: string[] = [];
    let run: string[] = [];
    s.days.forEach((d, i) => {
      const v = d[key];
      if (v === null || v <= 0) {
        if (run.length > 0) parts.push(run.join(" "));
        run = [];
        return;
      }
      run.push(`${i * 12 + 5},${y(v)}`);
    });
    if (run.length > 0) parts.push(run.join(" "));
    return parts
      .map((pts) =>
        pts.includes(" ")
          ? `<polyline class="${key}" points="${pts}"/>`
          : `<circle class="${key}" r="1.5" cx="${pts.split(",")[0]}" cy="${pts.split(",")[1]}"/>`,
      )
      .join("");
  };
  const top = 10 ** hi;
  const bottom = 10 ** lo;
  return (
    `<svg class="latency" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(`${s.name}: p50 and p99 latency per day`)}">` +
    `<line class="grid" x1="0" x2="${width}" y1="10" y2="10"/><line class="grid" x1="0" x2="${width}" y1="${height - 4}" y2="${height - 4}"/>` +
    `${line("p50")}${line("p99")}</svg>` +
    `<p class="legend">Latency per day as browsers measured it, log scale from ${esc(formatMs(bottom))} (bottom line) to ${esc(formatMs(top))} (top line):` +
    `<span class="swatch p50"></span>p50<span class="swatch p99"></span>p99</p>`
  );
}

function incidents(s: StatusServer, nowMs: number): string {
  if (s.incidents.length === 0) return `<p class="none-yet">No incidents in the last ${s.days.length} days.</p>`;
  const items = s.incidents.map((i) => {
    const end = i.end === null ? "ongoing" : utcClock(i.end, i.start);
    const took = duration((i.end ?? nowMs) - i.start);
    return (
      `<li><span class="kind ${i.kind}">${i.kind === "down" ? "Down" : "Degraded"}</span> ` +
      `<span class="when">${esc(utcClock(i.start, nowMs))} – ${esc(end)} (${took})</span><br>${esc(i.summary)}</li>`
    );
  });
  return `<ol class="incidents">${items.join("")}</ol>`;
}

function server(s: StatusServer, nowMs: number): string {
  const since = s.since === null ? "" : `<span class="since">since ${esc(utcClock(s.since, nowMs))}</span>`;
  return (
    `<section class="server" id="server-${esc(s.name)}" data-state="${s.state}">` +
    `<h2>${esc(s.name)} <span class="badge state-${s.state}">${STATE_WORDS[s.state]}</span>${since}</h2>` +
    `<dl class="uptime"><div><dt>Uptime, 24 hours</dt><dd>${percent(s.uptime["24h"])}</dd></div>` +
    `<div><dt>7 days</dt><dd>${percent(s.uptime["7d"])}</dd></div>` +
    `<div><dt>90 days</dt><dd>${percent(s.uptime["90d"])}</dd></div></dl>` +
    `${bars(s)}<div class="axis"><span>${s.days.length} days ago</span><span>today</span></div>` +
    `<p class="legend"><span class="swatch day up"></span>every probe answered<span class="swatch day degraded"></span>some failed, or an incident` +
    `<span class="swatch day down"></span>down for a while<span class="swatch day none"></span>no probes</p>` +
    `${latency(s)}<h3>Incidents</h3>${incidents(s, nowMs)}</section>`
  );
}

function overall(r: StatusResponse): { state: HealthState; text: string } {
  const down = r.servers.filter((s) => s.state === "down").map((s) => s.name);
  const degraded = r.servers.filter((s) => s.state === "degraded").map((s) => s.name);
  if (down.length > 0) return { state: "down", text: `Down: ${down.join(", ")}` };
  if (degraded.length > 0) return { state: "degraded", text: `Degraded: ${degraded.join(", ")}` };
  if (r.servers.length > 0 && r.servers.every((s) => s.state === "up")) return { state: "up", text: "All servers up" };
  return { state: "unknown", text: "Waiting for probes" };
}

export function statusHtml(r: StatusResponse): string {
  const o = overall(r);
  const firstDay = r.servers[0]?.days[0]?.start ?? r.generatedAt - 89 * DAY_MS;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="refresh" content="${STATUS_REFRESH_S}">
<title>${esc(o.text)} · tailprobe status</title>
<link rel="stylesheet" href="/status.css">
</head>
<body>
<header>
<h1>Status</h1>
<p class="overall state-${o.state}" id="overall">${esc(o.text)}</p>
<p class="meta">Measured from the browsers that keep tailprobe's probe page open and by the servers themselves, once a second. Uptime is the share of probes answered (UTC days since ${esc(new Date(firstDay).toISOString().slice(0, 10))}); hover a bar for its day. Updated ${esc(utcClock(r.generatedAt))}; this page reloads every minute.</p>
</header>
<main>
${r.servers.map((s) => server(s, r.generatedAt)).join("\n")}
</main>
<footer>The same as JSON: <a href="/api/status">/api/status</a>.</footer>
</body>
</html>
`;
}
