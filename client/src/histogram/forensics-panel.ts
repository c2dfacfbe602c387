// Three questions one click away under the tables, each answered by its
// endpoint over the page's current filters:
//   Compare two series (or a series against its previous range): intervals, p-value, one sentence.
//   Periodicity and aligned tails: a repeating period, marked on the time charts.
//   Fan-out and hedging: the share of page views a tail reaches, and what a second server buys.
import { formatMs } from "../../../shared/format.js";
import { PROBE_METHODS } from "../../../shared/methods.js";
import { ApiError, getChecked, isAbort } from "./api.js";
import type { PeriodMark } from "./chart-timeseries.js";
import {
  type Change,
  compareResponseSchema,
  fanoutResponseSchema,
  FANOUT_N_DEFAULT,
  periodicityResponseSchema,
} from "../../../shared/contract/index.js";
import { seriesLabel } from "./series-label.js";

export interface ForensicsHost {
  /** The table's population without method and target (compare, fan-out). */
  panelFilters(): URLSearchParams;
  /** The time charts' population without method and target (periodicity). */
  timelineFilters(): URLSearchParams;
  /** Series ids ("method@target") with samples, in table order. */
  seriesIds(): string[];
  /** Server names, home first. */
  servers(): string[];
  markPeriods(periods: Map<string, PeriodMark>): void;
  onViewChange(cb: () => void): void;
}

const el = <K extends keyof HTMLElementTagNameMap>(tag: K, text = "", className = ""): HTMLElementTagNameMap[K] =>
  Object.assign(document.createElement(tag), { textContent: text, className });
const pct = (v: number) => `${(100 * v).toPrecision(3)} %`;
const signed = (v: number) => `${v < 0 ? "−" : "+"}${formatMs(Math.abs(v))}`;

function labelOf(id: string): string {
  const at = id.indexOf("@");
  return seriesLabel(id.slice(0, at), id.slice(at + 1));
}

function section(summary: string, id: string): { details: HTMLDetailsElement; body: HTMLElement } {
  const details = el("details", "", "card forensics");
  details.id = id;
  const body = el("div");
  details.append(el("summary", summary), body);
  return { details, body };
}

async function run(
  out: HTMLElement,
  task: (signal: AbortSignal) => Promise<void>,
  ctl: { current: AbortController | null },
): Promise<void> {
  ctl.current?.abort();
  const c = new AbortController();
  ctl.current = c;
  out.replaceChildren(el("p", "computing…", "meta"));
  try {
    await task(c.signal);
  } catch (err) {
    if (!isAbort(err)) out.replaceChildren(el("p", err instanceof ApiError ? err.message : String(err), "warning"));
  }
}

export interface ForensicsPanel {
  /**
   * Opens "Compare two series" on a change: its series after the change (A)
   * against before it (B), the buckets either side of it left out (either may
   * hold both levels), with the bootstrap intervals and the rank test.
   */
  compareChange(c: Change): void;
}

export function mountForensicsPanel(root: HTMLElement, host: ForensicsHost): ForensicsPanel {
  const cmp = compare(host);
  root.replaceChildren(cmp.details, periodicity(host), fanout(host));
  return { compareChange: cmp.compareChange };
}

function compare(host: ForensicsHost): { details: HTMLElement; compareChange: (c: Change) => void } {
  const { details, body } = section("Compare two series", "compare");
  const a = el("select");
  const b = el("select");
  a.name = "a";
  b.name = "b";
  const previous = el("input");
  previous.type = "checkbox";
  const prevLabel = el("label", " B over the previous range of the same length");
  prevLabel.prepend(previous);
  const go = el("button", "Compare");
  go.type = "button";
  const out = el("div", "", "compare-out");
  const ctl = { current: null as AbortController | null };
  const fill = () => {
    const ids = host.seriesIds();
    for (const [sel, i] of [
      [a, 0],
      [b, 1],
    ] as const) {
      const keep = sel.value;
      if (Array.from(sel.options, (o) => o.value).join() !== ids.join())
        sel.replaceChildren(...ids.map((id) => new Option(labelOf(id), id)));
      sel.value = ids.includes(keep) ? keep : (ids[Math.min(i, ids.length - 1)] ?? "");
    }
  };
  details.addEventListener("toggle", () => details.open && fill());
  host.onViewChange(() => details.open && fill());
  /** Asks /api/compare and shows its answer, under `caption` when it compares a change's two sides. */
  const ask = (q: URLSearchParams, caption: string | null) =>
    run(
      out,
      async (signal) => {
        const r = await getChecked("/api/compare", q, compareResponseSchema, signal);
        const head = caption === null ? [] : [Object.assign(el("p", caption, "meta"), { id: "compare-caption" })];
        if (r.comparison === null) {
          out.replaceChildren(
            ...head,
            el("p", `nothing to compare: ${r.a.label} has ${r.a.count} ok samples, ${r.b.label} ${r.b.count}`, "empty"),
          );
          return;
        }
        const c = r.comparison;
        const sentence = el("p", c.sentence, "sentence");
        sentence.id = "compare-sentence";
        const table = el("table", "", "stats");
        const ci = `${Math.round(c.confidence * 100)} % CI`;
        const rows: [string, string][] = [
          ["Samples (A / B)", `${c.countA} / ${c.countB}${r.capped ? " (newest 200,000 a side)" : ""}`],
          [
            `Median A − B (${ci})`,
            `${signed(c.medianDiff.estimate)} (${signed(c.medianDiff.lo)} to ${signed(c.medianDiff.hi)})`,
          ],
          [`p99 A − B (${ci})`, `${signed(c.p99Diff.estimate)} (${signed(c.p99Diff.lo)} to ${signed(c.p99Diff.hi)})`],
          [`Mann–Whitney U (${c.rank.method})`, `U = ${c.rank.u}, p = ${c.rank.p.toPrecision(3)}`],
        ];
        for (const [k, v] of rows) {
          const tr = el("tr");
          tr.append(el("th", k), el("td", v));
          table.append(tr);
        }
        out.replaceChildren(
          ...head,
          sentence,
          table,
          el(
            "p",
            "Bootstrap: 2,000 resamples, percentile intervals, fixed seed; nearest-rank percentiles as in the table.",
            "meta",
          ),
        );
      },
      ctl,
    );
  go.addEventListener("click", () => {
    const q = host.panelFilters();
    q.set("a", a.value);
    q.set("b", previous.checked ? a.value : b.value);
    if (previous.checked) {
      const from = Number(q.get("from"));
      const to = Number(q.get("to"));
      q.set("bFrom", String(from - (to - from) - 1));
      q.set("bTo", String(from - 1));
    }
    void ask(q, null);
  });
  const compareChange = (c: Change) => {
    const id = `${c.method}@${c.target}`;
    details.open = true;
    fill();
    for (const sel of [a, b]) {
      if (!Array.from(sel.options, (o) => o.value).includes(id)) sel.append(new Option(labelOf(id), id));
      sel.value = id;
    }
    previous.checked = false;
    const q = host.panelFilters();
    q.delete("client");
    q.set("a", id);
    q.set("b", id);
    q.set("aFrom", String(c.t + c.resolutionMs));
    q.set("aTo", String(c.afterTo - 1));
    q.set("bFrom", String(c.beforeFrom));
    q.set("bTo", String(c.earliestT - 1));
    if (c.client !== null) {
      q.set("aClient", c.client);
      q.set("bClient", c.client);
    }
    const at = new Date(c.t).toLocaleString();
    const caption =
      `A: ${labelOf(id)} after the change at ${at}, B: before it` +
      `${c.client === null ? "" : ` (client ${c.client})`}; ${c.statistic} ${formatMs(c.before)} → ${formatMs(c.after)}.`;
    void ask(q, caption);
    details.scrollIntoView({ block: "nearest" });
  };
  const form = el("div", "", "controls");
  form.append(el("span", "A "), a, el("span", " B "), b, prevLabel, go);
  body.append(form, out);
  return { details, compareChange };
}

function periodicity(host: ForensicsHost): HTMLElement {
  const { details, body } = section("Periodicity and aligned tails", "periodicity");
  const out = el("div");
  const ctl = { current: null as AbortController | null };
  const load = () =>
    run(
      out,
      async (signal) => {
        const r = await getChecked("/api/periodicity", host.timelineFilters(), periodicityResponseSchema, signal);
        const marks = new Map<string, PeriodMark>();
        const list = el("ul");
        for (const s of r.series) {
          const id = `${s.method}@${s.target}`;
          const [pc, found] = s.p99.periodMs !== null ? ["p99", s.p99] : ["p90", s.p90];
          if (found.periodMs === null || found.firstPeakMs === null) continue;
          marks.set(id, { periodMs: found.periodMs, peakAtMs: r.t0 + found.firstPeakMs, percentile: pc });
          list.append(
            el(
              "li",
              `${labelOf(id)}: ${pc} repeats every ${formatMs(found.periodMs)} (explains ${pct(found.strength)} of its variation, ` +
                `autocorrelation ${found.autocorrelation?.toFixed(2) ?? "–"}, p = ${found.p.toPrecision(2)})`,
            ),
          );
        }
        host.markPeriods(marks);
        const aligned = r.pairs.filter((p) => p.aligned);
        const alignedList = el("ul");
        for (const p of aligned)
          alignedList.append(
            el("li", `${labelOf(p.a)} and ${labelOf(p.b)}: r = ${p.r.toFixed(2)} over ${p.n} buckets`),
          );
        out.replaceChildren(
          el(
            "p",
            marks.size === 0
              ? "No series repeats: no period stands out of the noise."
              : "Dashed lines on the time charts mark the peaks.",
            "meta",
          ),
          list,
          el("h3", "Tails that move together (bucketed p90)"),
          aligned.length === 0 ? el("p", "none: no two series' p90 correlate (r ≥ 0.5).", "meta") : alignedList,
        );
      },
      ctl,
    );
  details.addEventListener("toggle", () => {
    if (details.open) void load();
    else host.markPeriods(new Map());
  });
  host.onViewChange(() => details.open && void load());
  body.append(out);
  return details;
}

function fanout(host: ForensicsHost): HTMLElement {
  const { details, body } = section("Fan-out and hedging", "fanout");
  const method = el("select");
  // best2: the legs of the page's own races (WebSocket to the first server, JSONP to the second).
  method.replaceChildren(...PROBE_METHODS.map((m) => new Option(m === "best2" ? "best2 (its two legs)" : m, m)));
  method.name = "method";
  const n = Object.assign(el("input"), {
    type: "number",
    min: "1",
    max: "1000",
    value: String(FANOUT_N_DEFAULT),
    name: "n",
  });
  const hedge = Object.assign(el("input"), {
    type: "number",
    min: "0",
    step: "1",
    placeholder: "p95",
    name: "hedgeMs",
  });
  const go = el("button", "Compute");
  go.type = "button";
  const out = el("div");
  const ctl = { current: null as AbortController | null };
  go.addEventListener("click", () =>
    run(
      out,
      async (signal) => {
        const servers = host.servers();
        if (servers.length < 2) {
          out.replaceChildren(el("p", "needs two servers: start tailprobe with a --peer", "empty"));
          return;
        }
        const q = host.panelFilters();
        q.set("method", method.value);
        q.set("target", `${servers[0]},${servers[1]}`);
        q.set("n", n.value || String(FANOUT_N_DEFAULT));
        if (hedge.value !== "") q.set("hedgeMs", hedge.value);
        const f = await getChecked("/api/fanout", q, fanoutResponseSchema, signal);
        const r = f.report;
        const race = r.race?.target ?? null;
        if (r.pairs === 0 || r.p99Ms === null) {
          const what =
            f.method === "best2"
              ? `race to ${race ?? `${f.primary}+${f.secondary}`} where both legs answered`
              : `tick with a ${f.method} sample to both ${f.primary} and ${f.secondary}`;
          out.replaceChildren(el("p", `no ${what}`, "empty"));
          return;
        }
        const legs = f.method === "best2";
        const primaryLabel = legs ? `WebSocket leg to ${f.primary}` : `${f.method} to ${f.primary}`;
        const sentence = el(
          "p",
          `With ${r.fanout} requests per page view, ${pct(r.viewsSeeingP99)} of views see at least one as slow as ` +
            `the p99 of ${primaryLabel} alone (${formatMs(r.p99Ms)}) or slower; ` +
            `best of two: ${pct(r.bestOfTwo.viewsSeeingP99)}, hedged after ${formatMs(r.hedged.delayMs)}: ${pct(r.hedged.viewsSeeingP99)}` +
            (r.race === null ? "." : `, the page's measured best-of-two probe: ${pct(r.race.viewsSeeingP99)}.`),
          "sentence",
        );
        sentence.id = "fanout-sentence";
        const table = el("table", "", "stats");
        const head = el("tr");
        for (const h of [
          "Strategy",
          "Requests per call",
          "Median",
          "p99",
          "p99.9",
          `Views reaching the p99 alone (${r.fanout} calls)`,
        ])
          head.append(el("th", h));
        table.append(head);
        const secondaryLabel = legs ? `JSONP leg to ${f.secondary}` : `${f.method} to ${f.secondary}`;
        const rows: [string, typeof r.single][] = [
          [`${primaryLabel} alone`, r.single],
          [`${secondaryLabel} alone`, r.secondary],
          [`best of two: both at once, first answer (${r.pairs} measured pairs)`, r.bestOfTwo],
          [`hedge: ${f.secondary} only after ${formatMs(r.hedged.delayMs)} without an answer`, r.hedged],
        ];
        if (r.race !== null)
          rows.push([
            `measured best-of-two probe ${race} (${r.race.count} races: WebSocket to ${f.primary}, JSONP to ${f.secondary})`,
            r.race,
          ]);
        for (const [label, h] of rows) {
          const tr = el("tr");
          for (const c of [
            label,
            h.requestsPerCall.toFixed(2),
            formatMs(h.p50),
            formatMs(h.p99),
            formatMs(h.p999),
            pct(h.viewsSeeingP99),
          ])
            tr.append(el("td", c));
          table.append(tr);
        }
        out.replaceChildren(
          sentence,
          table,
          el(
            "p",
            legs
              ? `From ${r.pairs} races where both legs answered, each leg timed from the race's start.`
              : `From ${r.pairs} ticks measured to both servers (same page, same tick): what the two paths share stays in the figures.`,
            "meta",
          ),
        );
      },
      ctl,
    ),
  );
  const form = el("div", "", "controls");
  form.append(
    el("span", "method "),
    method,
    el("span", " requests per view "),
    n,
    el("span", " hedge after (ms) "),
    hedge,
    go,
  );
  body.append(form, out);
  return details;
}
