// The histogram page's state machine: one view (mirrored in the URL), one
// refresh at a time (a newer view aborts the stale requests; a periodic tick
// lets a slow one finish), and every chart redrawn from what arrived.
import {
  type Incident,
  configSchema,
  parseWith,
  statsResponseSchema,
  cdfResponseSchema,
  clientsResponseSchema,
  heatmapResponseSchema,
  histogramResponseSchema,
  timeseriesResponseSchema,
} from "../../../shared/contract/index.js";
import { best2Target } from "../../../shared/names.js";
import { ApiError, getChecked, isAbort } from "./api.js";
import { CdfChart } from "./chart-cdf.js";
import { HeatmapChart } from "./chart-heatmap.js";
import { HistogramChart } from "./chart-histogram.js";
import { TimeseriesPanels } from "./chart-timeseries.js";
import { FocusBar } from "./focus-bar.js";
import type { ChangeMark, PeriodMark } from "./chart-timeseries.js";
import type { ChartPick, OnPick } from "./pick.js";
import { Picker } from "./picker.js";
import { Progress } from "./progress.js";
import { heatmapQuery, populations, timeseriesQuery, type Populations } from "./queries.js";
import { describeBucket, describeRange, RangeControls } from "./range-controls.js";
import { quantisationNote } from "./quantisation-note.js";
import { orderRows, renderStatsTable, timerNote } from "./stats-table.js";
import { timelineStart } from "./transforms.js";
import { seriesLabel } from "./series-label.js";
import { readView, seriesId, setSampleFilters, writeView, type TimeWindow, type ViewState } from "./url-state.js";

/** How often the page refreshes while open and visible (ms). */
export const REFRESH_MS = 5000;
/** How often the client list is reloaded (ms). */
const CLIENTS_REFRESH_MS = 60_000;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export class Workbench {
  private view: ViewState = readView(location.search);
  private inFlight: AbortController | null = null;
  private generation = 0;
  private completed = 0;
  private lastRange: TimeWindow | null = null;
  /** What the time charts drew: lastRange, or from its first sample on. */
  private lastAxis: TimeWindow | null = null;
  private readonly knownTargets = new Set<string>();
  private readonly viewListeners: (() => void)[] = [];
  private readonly pickListeners: OnPick[] = [];
  /** Series of the latest table, in its order ("method@target"). */
  private lastSeries: string[] = [];
  private readonly picked = (pick: ChartPick) => {
    for (const cb of this.pickListeners) cb(pick);
  };
  private readonly rangeControls = new RangeControls($("range"), (range) =>
    this.apply({ range, focus: null, invert: false }),
  );
  private readonly picker = new Picker($("picker"), { onChange: (patch) => this.apply(patch) });
  private readonly focusBar = new FocusBar($("focus-bar"), {
    onChange: (patch) => this.apply(patch),
    onZoom: (w) =>
      this.apply({ range: { preset: "custom", fromMs: w.fromMs, toMs: w.toMs }, focus: null, invert: false }),
  });
  private readonly focusSource = {
    focus: () => this.view.focus,
    inverted: () => this.view.invert,
    setFocus: (w: TimeWindow) => this.apply({ focus: w }),
  };
  private readonly histogram = new HistogramChart($("histogram-chart"));
  private readonly cdf = new CdfChart($("cdf-chart"), this.picked);
  private readonly panels = new TimeseriesPanels($("timeseries-panels"), this.focusSource, this.picked);
  private readonly heatmap = new HeatmapChart($("heatmap-chart"), $("heatmap-scale"), this.focusSource, this.picked);
  private readonly heatSelect = $<HTMLSelectElement>("heat-series");
  private readonly progress = new Progress($("updated"), document.querySelector("main")!);

  start(): void {
    this.setTheme();
    // On a phone the picker would push every chart below the fold: start folded.
    if (window.matchMedia("(max-width: 640px)").matches) $<HTMLDetailsElement>("picker-wrap").open = false;
    window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
      this.setTheme();
      void this.refresh("view");
    });
    $<HTMLSelectElement>("hist-scale").addEventListener("change", (e) => {
      this.apply({ histScale: (e.target as HTMLSelectElement).value === "share" ? "share" : "count" });
    });
    this.heatSelect.addEventListener("change", () => this.apply({ heat: this.heatSelect.value || null }));
    window.addEventListener("popstate", () => {
      this.view = readView(location.search);
      for (const cb of this.viewListeners) cb();
      this.render();
      void this.refresh("view");
    });
    this.expose();
    void this.loadConfig().then(() => this.render());
    void this.loadClients();
    this.render();
    void this.refresh("view");
    setInterval(() => {
      if (document.visibilityState === "visible") void this.refresh("tick");
    }, REFRESH_MS);
    setInterval(() => void this.loadClients(), CLIENTS_REFRESH_MS);
  }

  /** The resolved time range now (epoch ms), for panels mounted beside the workbench. */
  range(): TimeWindow {
    return populations(this.view, Date.now()).range;
  }

  /**
   * The table's query (its window or "everything except", client, sample
   * flags) over every method and server: for panels beside the table that
   * must describe the same samples but need all series, such as the races.
   */
  panelFilters(): URLSearchParams {
    const q = new URLSearchParams(populations(this.view, Date.now()).summary);
    q.delete("method");
    q.delete("target");
    return q;
  }

  /** The time charts' query over every method and server (periodicity reads the same buckets). */
  timelineFilters(): URLSearchParams {
    const q = new URLSearchParams(timeseriesQuery(populations(this.view, Date.now())));
    q.delete("method");
    q.delete("target");
    return q;
  }

  /** Series with samples in the latest table ("method@target"), in its order. */
  seriesIds(): string[] {
    return [...this.lastSeries];
  }

  /** Server names (no best-of-two pairs), home first as /api/config lists them. */
  servers(): string[] {
    return this.targetList().filter((t) => !t.includes("+"));
  }

  markPeriods(periods: Map<string, PeriodMark>): void {
    this.panels.setPeriods(periods);
  }

  /** Marks level shifts on the time charts (key "method@target"). */
  markChanges(marks: Map<string, ChangeMark[]>): void {
    this.panels.setChanges(marks);
  }

  /** Calls back with a change's id when its mark on a time chart is clicked. */
  onChangeMark(cb: (id: string) => void): void {
    this.panels.onChangeMark(cb);
  }

  /** Shades incidents on their servers' time charts. */
  markIncidents(incidents: readonly Incident[]): void {
    this.panels.setIncidents(incidents);
  }

  /** The focus window now (epoch ms), or null. */
  focus(): TimeWindow | null {
    return this.view.focus;
  }

  /** Calls back when a chart is clicked to ask why (a tail point, a heatmap cell, a time bucket). */
  onPick(cb: OnPick): void {
    this.pickListeners.push(cb);
  }

  /** Calls back after each change of the view (not on periodic refreshes). */
  onViewChange(cb: () => void): void {
    this.viewListeners.push(cb);
  }

  apply(patch: Partial<ViewState>): void {
    this.view = { ...this.view, ...patch };
    if (this.view.focus === null) this.view.invert = false;
    history.replaceState(null, "", writeView(this.view));
    for (const cb of this.viewListeners) cb();
    this.render();
    // The band moves at once; the numbers follow when the queries answer.
    this.panels.redraw();
    this.heatmap.redraw();
    void this.refresh("view");
  }

  private render(p: Populations = populations(this.view, Date.now())): void {
    this.rangeControls.render(this.view.range);
    this.picker.setTargets(this.targetList());
    this.picker.render(this.view);
    this.focusBar.render(this.view, p, describeRange(this.view.range));
    $<HTMLSelectElement>("hist-scale").value = this.view.histScale;
    $("population-note").innerHTML = this.view.timeoutsInTail
      ? "Percentiles, histogram and tail include each <em>timeout</em> at its timeout value beside the <em>ok</em> samples (Samples counts both); timeouts still count as failures, errors stay apart."
      : "Percentiles are nearest-rank over the <em>ok</em> samples; failures (timeouts and errors) are counted apart.";
  }

  private targetList(): string[] {
    return [...this.knownTargets].sort(
      (a, b) => Number(a.includes("+")) - Number(b.includes("+")) || a.localeCompare(b),
    );
  }

  private setTheme(): void {
    document.documentElement.dataset.theme = window.matchMedia("(prefers-color-scheme: dark)").matches
      ? "dark"
      : "light";
  }

  private async refresh(reason: "view" | "tick"): Promise<void> {
    // A periodic tick never cancels a query still running: on a large range
    // that would restart it forever and the page would never show anything.
    if (reason === "tick" && this.inFlight !== null) return;
    this.inFlight?.abort();
    const ctl = new AbortController();
    this.inFlight = ctl;
    const gen = ++this.generation;
    const p = populations(this.view, Date.now());
    this.lastRange = p.range;
    if (reason === "tick") this.focusBar.render(this.view, p, describeRange(this.view.range));
    const view = this.view;
    const signal = ctl.signal;
    this.progress.begin(reason === "view");
    const stats = getChecked("/api/stats", p.summary, statsResponseSchema, signal);
    const tasks = [
      stats.then((s) => {
        const before = this.knownTargets.size;
        for (const r of s.rows) this.knownTargets.add(r.target);
        if (this.knownTargets.size !== before) this.render(p);
        this.lastSeries = orderRows(s.rows.filter((r) => r.count > 0)).map((r) => seriesId(r.method, r.target));
        $("timer-note").textContent = timerNote(s.timerResolutionMs);
        if (s.rows.length === 0) return this.renderEmptyTable(view, signal);
        renderStatsTable($<HTMLTableSectionElement>("stats-rows"), s.rows);
      }),
      // Drawn once the clock steps are known (or known to be unknown): a grid coarser than the bins is spread over its step.
      Promise.all([
        getChecked("/api/histogram", p.summary, histogramResponseSchema, signal),
        stats.catch(() => null),
      ]).then(([h, s]) => {
        const steps = new Map((s?.rows ?? []).map((r) => [seriesId(r.method, r.target), r.timerResolutionMs ?? null]));
        const stepMsOf = (method: string, target: string) => steps.get(seriesId(method, target)) ?? null;
        this.histogram.update(h, view.histScale, this.targetList(), stepMsOf);
        $("quantisation-note").textContent = quantisationNote(h, stepMsOf);
      }),
      getChecked("/api/cdf", p.summary, cdfResponseSchema, signal).then((c) => this.cdf.update(c, this.targetList())),
      getChecked("/api/timeseries", timeseriesQuery(p), timeseriesResponseSchema, signal).then(async (ts) => {
        // The server's from is the resolved one ("all" starts at the first
        // sample); a range that begins before any sample starts at its first.
        const axis = { fromMs: timelineStart(ts), toMs: ts.to };
        this.lastAxis = axis;
        const trimmed =
          axis.fromMs > ts.from
            ? ` (from ${new Date(axis.fromMs).toLocaleTimeString()}, the first sample in the range)`
            : "";
        $("bucket-width").textContent = `${describeBucket(ts.bucketMs)} bucket${trimmed}`;
        this.panels.update(ts, axis);
        await this.refreshHeatmap(view, p, axis, ts.series, signal);
      }),
    ];
    const results = await Promise.allSettled(tasks);
    if (gen !== this.generation) return; // superseded by a newer view
    this.inFlight = null;
    const errors = results.flatMap((r) => (r.status === "rejected" && !isAbort(r.reason) ? [r.reason as unknown] : []));
    this.progress.end(
      errors.length === 0 ? null : errors.map((e) => (e instanceof ApiError ? e.message : String(e))).join("; "),
    );
    this.completed = gen;
  }

  private async refreshHeatmap(
    view: ViewState,
    p: Populations,
    axis: TimeWindow,
    series: { method: string; target: string }[],
    signal: AbortSignal,
  ): Promise<void> {
    const ordered = orderRows(series);
    const ids = ordered.map((s) => seriesId(s.method, s.target));
    const chosen = view.heat !== null && ids.includes(view.heat) ? view.heat : ids[0];
    // Rebuilt only when the series change, so a refresh does not close an open dropdown.
    if (Array.from(this.heatSelect.options, (o) => o.value).join(",") !== ids.join(",")) {
      this.heatSelect.replaceChildren(
        ...ordered.map((s) => new Option(seriesLabel(s.method, s.target), seriesId(s.method, s.target))),
      );
    }
    if (chosen === undefined) {
      this.heatmap.update(
        { from: axis.fromMs, to: axis.toMs, bucketMs: 60_000, binsPerDecade: 20, t: [], edges: [], series: [] },
        0,
        axis,
      );
      return;
    }
    this.heatSelect.value = chosen;
    const [method, target] = [chosen.slice(0, chosen.indexOf("@")), chosen.slice(chosen.indexOf("@") + 1)];
    // The heatmap asks for its one series only: all of them would be most of the payload.
    const h = await getChecked("/api/heatmap", heatmapQuery(p, method, target), heatmapResponseSchema, signal);
    this.heatmap.update(h, 0, axis);
  }

  private async loadConfig(): Promise<void> {
    try {
      const res = await fetch("/api/config", { cache: "no-store" });
      const parsed = parseWith(configSchema, await res.json());
      if (!parsed.ok) return;
      const names = parsed.value.servers.map((s) => s.name);
      for (const n of names) this.knownTargets.add(n);
      // The best-of-two target joins the first two servers; with one server it only shows up once it has data.
      if (names.length >= 2) this.knownTargets.add(best2Target(names[0]!, names[1]!));
    } catch (err) {
      // The picker still lists the servers seen in the data.
      console.warn("tailprobe: /api/config:", err);
    }
  }

  /** An empty table says whether anything is stored at all (asked afresh: a tab may have reported since the page loaded). */
  private async renderEmptyTable(view: ViewState, signal: AbortSignal): Promise<void> {
    const tbody = $<HTMLTableSectionElement>("stats-rows");
    let lastReportMs: number | null = null;
    try {
      const c = await getChecked("/api/clients", null, clientsResponseSchema, signal);
      for (const x of c.clients) lastReportMs = Math.max(lastReportMs ?? x.lastSeen, x.lastSeen);
    } catch (err) {
      if (isAbort(err)) throw err;
      // The table still says it is empty, as it did before it asked.
      console.warn("tailprobe: /api/clients:", err);
      return renderStatsTable(tbody, []);
    }
    // The filters as the queries send them (one list of them, url-state.ts); timeouts in the tail narrow nothing.
    const sent = new URLSearchParams();
    setSampleFilters(sent, view);
    const filtered = [...sent.keys()].some((k) => k !== "timeouts") || view.focus !== null;
    renderStatsTable(tbody, [], {
      lastReportMs,
      filtered,
      onShowAll: view.range.preset === "all" ? null : () => this.apply({ range: { preset: "all" }, focus: null }),
      nowMs: Date.now(),
    });
  }

  private async loadClients(): Promise<void> {
    try {
      const c = await getChecked("/api/clients", null, clientsResponseSchema, new AbortController().signal);
      this.picker.setClients(c.clients);
      this.picker.render(this.view);
    } catch (err) {
      console.warn("tailprobe: /api/clients:", err);
    }
  }

  /** Read-only facts for tests and the curious: which refresh is done. */
  private expose(): void {
    const self = this;
    (window as unknown as { tailprobeHistogram: object }).tailprobeHistogram = {
      get generation() {
        return self.generation;
      },
      get completed() {
        return self.completed;
      },
      /** The range (epoch ms) the latest refresh asked for; the time charts' buckets are chosen for it. */
      get range() {
        return self.lastRange;
      },
      /** The time charts' x range (epoch ms) as drawn: `range`, or from its first sample on. */
      get axis() {
        return self.lastAxis;
      },
      get idle() {
        return self.inFlight === null && self.completed === self.generation;
      },
    };
  }
}
