// The panel under the stats table: per server, how often it answered (ok /
// all), and for best-of-two how often each leg won and what racing saved
// against the faster of its two legs run alone. Fetches GET /api/races itself,
// with the table's window and sample filters, so it always describes the
// table above it; the page only mounts it and says when the view changed.
import { formatCount, formatMs } from "../../../shared/format.js";
import { parseWith, racesResponseSchema, type AvailabilityRow, type Best2Row } from "../../../shared/contract/index.js";

/** How often the panel refreshes while the page is visible (ms). */
const REFRESH_MS = 5000;

export interface RacesPanel {
  refresh(): Promise<void>;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text = "", cls = ""): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function table(headers: string[], numericFrom: number): { table: HTMLTableElement; tbody: HTMLTableSectionElement } {
  const t = el("table", "", "stats");
  const tr = t.createTHead().insertRow();
  headers.forEach((h, i) => tr.appendChild(el("th", h, i >= numericFrom ? "num" : "")));
  return { table: t, tbody: t.createTBody() };
}

function cell(tr: HTMLTableRowElement, text: string, cls = ""): HTMLTableCellElement {
  const td = el("td", text, cls);
  tr.appendChild(td);
  return td;
}

const percent = (share: number | null) => (share === null ? "–" : `${(share * 100).toFixed(share === 1 ? 0 : 1)} %`);
/** A saving: "+3.2 ms" when racing was faster, "−1.0 ms" when it cost time. */
const signedMs = (ms: number | null) => (ms === null ? "–" : `${ms >= 0 ? "+" : "−"}${formatMs(Math.abs(ms))}`);

function availabilityRows(tbody: HTMLTableSectionElement, rows: AvailabilityRow[]): void {
  tbody.replaceChildren();
  for (const r of rows) {
    const tr = tbody.insertRow();
    tr.dataset.target = r.target;
    cell(tr, r.target.includes("+") ? `${r.target} (best of two)` : r.target);
    cell(tr, formatCount(r.ok), "num");
    cell(tr, formatCount(r.failures), r.failures > 0 ? "num bad" : "num");
    cell(tr, percent(r.share), r.share !== null && r.share < 1 ? "num bad" : "num");
  }
  if (rows.length === 0) cell(tbody.insertRow(), "no probes in this range", "empty").colSpan = 4;
}

function best2Rows(tbody: HTMLTableSectionElement, rows: Best2Row[]): void {
  tbody.replaceChildren();
  for (const r of rows) {
    const tr = tbody.insertRow();
    tr.dataset.target = r.target;
    const races = r.count + r.failures;
    const ws = r.single.find((s) => s.method === "ws");
    const jsonp = r.single.find((s) => s.method === "jsonp");
    cell(tr, r.target);
    cell(tr, formatCount(races), "num");
    cell(tr, formatCount(r.failures), r.failures > 0 ? "num bad" : "num");
    cell(tr, `${percent(r.count === 0 ? null : r.wins.ws / r.count)} WS ${ws?.target ?? ""}`, "num");
    cell(tr, `${percent(r.count === 0 ? null : r.wins.jsonp / r.count)} JSONP ${jsonp?.target ?? ""}`, "num");
    cell(tr, `${formatMs(r.p50)} / ${formatMs(r.p99)}`, "num");
    for (const s of [ws, jsonp]) cell(tr, s === undefined ? "–" : `${formatMs(s.p50)} / ${formatMs(s.p99)}`, "num");
    const saved = cell(tr, `${signedMs(r.saved.p50)} / ${signedMs(r.saved.p99)}`, "num");
    saved.dataset.savedP50 = String(r.saved.p50);
    saved.title = "faster single method's percentile minus best-of-two's, per percentile";
    cell(tr, `${formatMs(r.margin.p50)} / ${formatMs(r.margin.p99)}`, "num");
  }
  if (rows.length === 0) cell(tbody.insertRow(), "no best-of-two races in this range", "empty").colSpan = 10;
}

/**
 * Mounts the panel into `section` and keeps it fresh. `filters` gives the
 * table's current query (window, client, sample flags; every method and
 * server, since availability and races need them all); `onViewChange`
 * registers a callback for when the user changes the view.
 */
export function mountRacesPanel(
  section: HTMLElement,
  filters: () => URLSearchParams,
  onViewChange: (cb: () => void) => void,
): RacesPanel {
  const avail = table(["Server", "OK", "Failures", "Availability"], 1);
  avail.table.id = "availability-table";
  avail.table.style.minWidth = "0"; // four short columns need not span the page
  const best2 = table(
    [
      "Race",
      "Races",
      "Failures",
      "WS wins",
      "JSONP wins",
      "Best of two",
      "WS alone",
      "JSONP alone",
      "Saved",
      "Loser behind by",
    ],
    1,
  );
  best2.table.id = "best2-table";
  const status = el("p", "", "meta");
  const wrap = (t: HTMLTableElement) => {
    const d = el("div", "", "table-wrap");
    d.appendChild(t);
    return d;
  };
  section.replaceChildren(
    el("h2", "Availability"),
    el(
      "p",
      "Share of probes (XHR, JSONP, WebSocket; best-of-two races for A+B) that answered, over the table's window and sample filters.",
      "hint",
    ),
    wrap(avail.table),
    el("h2", "Best of two"),
    el(
      "p",
      "How often each leg won the race, and what racing saved against the faster of its legs run alone (that leg's percentile minus the race's). Latency cells read p50 / p99. A negative saving means the race cost more than it won (as on loopback, where both legs are fast and starting two probes at once costs the browser more than the race wins); it pays off when one server or path has a tail of its own, or is down.",
      "hint",
    ),
    wrap(best2.table),
    status,
  );

  let inFlight: AbortController | undefined;
  async function refresh(): Promise<void> {
    inFlight?.abort();
    const ctl = new AbortController();
    inFlight = ctl;
    try {
      const res = await fetch(`/api/races?${filters().toString()}`, { signal: ctl.signal, cache: "no-store" });
      if (!res.ok) throw new Error(`GET /api/races answered ${res.status}`);
      const parsed = parseWith(racesResponseSchema, await res.json());
      if (!parsed.ok) throw new Error(`GET /api/races: ${parsed.error}`);
      availabilityRows(avail.tbody, parsed.value.availability);
      best2Rows(best2.tbody, parsed.value.best2);
      status.textContent = "";
    } catch (err) {
      if ((err as Error).name === "AbortError") return;
      status.textContent = `could not refresh: ${(err as Error).message}`;
    }
  }
  onViewChange(() => void refresh());
  setInterval(() => {
    if (document.visibilityState === "visible") void refresh();
  }, REFRESH_MS);
  void refresh();
  return { refresh };
}
