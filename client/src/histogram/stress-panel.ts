// The stress tests of the range (GET /api/stress): per run, the seed
// article's table with idle beside every loaded phase (p50 / p99 per method
// and baseline), goodput, the latency the load added, the bufferbloat grade,
// RPM, and the verdict on where the added latency sits (docs/stress.md).
import { formatMs } from "../../../shared/format.js";
import { parseWith } from "../../../shared/contract/parse.js";
import { stressResponseSchema, type StressPhaseResult, type StressRun } from "../../../shared/contract/stress.js";
import { methodOrder } from "../../../shared/methods.js";
import { methodLabel } from "./series-label.js";

/** How often the panel refreshes while the page is visible (ms): runs are minutes apart. */
const REFRESH_MS = 15_000;
/** Runs shown at most, newest first: an hourly schedule makes 24 a day. */
const RUNS_SHOWN_MAX = 12;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text = "", cls = ""): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

const mbps = (v: number | null) => (v === null ? "–" : `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} Mbit/s`);
const signedMs = (v: number | null) => (v === null ? "–" : `${v >= 0 ? "+" : "−"}${formatMs(Math.abs(v))}`);
const pair = (s: { p50: number | null; p99: number | null } | null | undefined) =>
  s === null || s === undefined ? "–" : `${formatMs(s.p50)} / ${formatMs(s.p99)}`;

/** One run's table: a row per series (probes, then baselines), a column per phase. */
function runTable(run: StressRun): HTMLTableElement {
  const t = el("table", "", "stats stress-table");
  const head = t.createTHead().insertRow();
  head.append(el("th", "p50 / p99"));
  for (const p of run.phases) head.append(el("th", p.name, "num"));
  const body = t.createTBody();
  const series = [...new Set(run.phases.flatMap((p) => Object.keys(p.latency)))].sort(
    (a, b) => methodOrder(a) - methodOrder(b) || a.localeCompare(b),
  );
  const row = (label: string, cells: (p: StressPhaseResult) => string, title = "") => {
    const tr = body.insertRow();
    const th = el("th", label);
    if (title) th.title = title;
    tr.append(th);
    for (const p of run.phases) tr.append(el("td", cells(p), "num"));
    return tr;
  };
  for (const s of series) row(methodLabel(s), (p) => pair(p.latency[s])).dataset.series = s;
  row(
    "Load connections (self probe)",
    (p) => pair(p.self),
    "a small GET on a load-generating connection between two load requests: RPM's self probe",
  ).dataset.series = "self";
  row("Added (WebSocket p50 − idle)", (p) => signedMs(p.addedMs)).dataset.series = "added";
  row("Goodput ↓ / ↑", (p) =>
    p.downMbps === null && p.upMbps === null ? "–" : `${mbps(p.downMbps)} / ${mbps(p.upMbps)}`,
  ).dataset.series = "goodput";
  row("Streams ↓ / ↑", (p) => (p.streamsDown + p.streamsUp === 0 ? "–" : `${p.streamsDown} / ${p.streamsUp}`));
  row("RPM", (p) => (p.rpm === null ? "–" : p.rpm.toFixed(0))).dataset.series = "rpm";
  return t;
}

function runCard(run: StressRun): HTMLElement {
  const card = el("article", "", "card stress-run");
  card.dataset.run = run.id;
  card.dataset.verdict = run.verdict;
  const when = new Date(run.start).toLocaleString();
  const h = el("h3", `${when} · ${run.target} · ${run.outcome}`);
  const grade = el("span", run.grade ?? "–", `grade grade-${(run.grade ?? "none").replace("+", "plus")}`);
  grade.title = "bufferbloat grade (DSLReports' bands): mean of download's and upload's added latency";
  h.prepend(grade, " ");
  const facts = el(
    "p",
    [
      `added: ↓ ${signedMs(run.addedMs.download)}, ↑ ${signedMs(run.addedMs.upload)}, both ${signedMs(run.addedMs.bidirectional)}`,
      `RPM ${run.rpm === null ? "–" : run.rpm.toFixed(0)}`,
    ].join(" · "),
    "meta",
  );
  const verdict = el("p", run.summary, `stress-verdict verdict-${run.verdict}`);
  const phaseNotes = el("ul", "", "meta");
  for (const p of run.phases)
    if (p.summary !== null && p.verdict !== run.verdict) phaseNotes.append(el("li", p.summary));
  const wrap = el("div", "", "table-wrap");
  wrap.append(runTable(run));
  card.append(h, verdict, facts, wrap);
  if (phaseNotes.childElementCount > 0) card.append(phaseNotes);
  if (run.reason !== null) card.append(el("p", `ended: ${run.reason}`, "meta"));
  return card;
}

/**
 * Mounts the panel into `section`; `filters` gives the table's window and
 * client, `onViewChange` tells it when they change.
 */
export function mountStressPanel(
  section: HTMLElement,
  filters: () => URLSearchParams,
  onViewChange: (cb: () => void) => void,
): { refresh(): Promise<void> } {
  const list = el("div", "", "stress-runs");
  const status = el("p", "", "meta");
  section.replaceChildren(
    el("h2", "Stress tests"),
    el(
      "p",
      "Runs of the probe page's stress test in this window: idle beside each loaded phase for every method and baseline. If ping rose with the WebSocket probe, the queue is in the network path (bufferbloat); if it stayed flat, the time went in the browser or in TCP on the loaded connection. Start one on the probe page (or open it with ?stress=1).",
      "hint",
    ),
    list,
    status,
  );
  let inFlight: AbortController | undefined;
  async function refresh(): Promise<void> {
    inFlight?.abort();
    const ctl = new AbortController();
    inFlight = ctl;
    const f = filters();
    const q = new URLSearchParams();
    for (const k of ["from", "to", "client"]) {
      const v = f.get(k);
      if (v !== null) q.set(k, v);
    }
    try {
      const res = await fetch(`/api/stress?${q.toString()}`, { signal: ctl.signal, cache: "no-store" });
      if (!res.ok) throw new Error(`GET /api/stress answered ${res.status}`);
      const parsed = parseWith(stressResponseSchema, await res.json());
      if (!parsed.ok) throw new Error(`GET /api/stress: ${parsed.error}`);
      const runs = parsed.value.runs.slice(-RUNS_SHOWN_MAX).reverse();
      list.replaceChildren(...runs.map(runCard));
      section.hidden = false;
      status.textContent =
        runs.length === 0
          ? "no stress test in this window"
          : parsed.value.runs.length > runs.length
            ? `the newest ${runs.length} of ${parsed.value.runs.length} runs`
            : "";
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
