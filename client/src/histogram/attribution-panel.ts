// "Why was this slow?": the panel a click on a chart opens. It shows the
// chosen sample's breakdown (tick lateness, server time, path, the rest)
// beside the same client's samples of every method and server in the same
// second, and the verdict of the attribution rules with their evidence.
import { seriesKey, type ForensicSample } from "../../../shared/forensics/attribution.js";
import { formatMs } from "../../../shared/format.js";
import { ApiError, getChecked, isAbort } from "./api.js";
import { attributionResponseSchema, type AttributionResponse } from "../../../shared/contract/index.js";
import type { ChartPick } from "./pick.js";
import { seriesLabel } from "./series-label.js";

const el = <K extends keyof HTMLElementTagNameMap>(tag: K, text = "", className = ""): HTMLElementTagNameMap[K] =>
  Object.assign(document.createElement(tag), { textContent: text, className });

const msText = (v: number | null) => (v === null ? "–" : formatMs(v));

export class AttributionPanel {
  private ctl: AbortController | null = null;

  /** `filters`: the population the click was made on (the page's filters without method and target). */
  constructor(
    private readonly host: HTMLElement,
    private readonly filters: () => URLSearchParams,
  ) {
    host.addEventListener("keydown", (e) => {
      if (e.key === "Escape") this.close();
    });
  }

  async open(pick: ChartPick): Promise<void> {
    this.ctl?.abort();
    const ctl = new AbortController();
    this.ctl = ctl;
    const q = this.filters();
    q.set("method", pick.method);
    q.set("target", pick.target);
    if (pick.fromMs !== undefined && pick.toMs !== undefined) {
      q.set("from", String(Math.floor(pick.fromMs)));
      q.set("to", String(Math.ceil(pick.toMs)));
      q.delete("exclude");
    }
    for (const k of ["ms", "msMin", "msMax"] as const) {
      const v = pick[k];
      if (v !== undefined) q.set(k, String(Math.max(0, +v.toFixed(6))));
    }
    this.render(pick, null, "looking…");
    try {
      const a = await getChecked("/api/attribution", q, attributionResponseSchema, ctl.signal);
      this.render(pick, a, null);
    } catch (err) {
      if (!isAbort(err)) this.render(pick, null, err instanceof ApiError ? err.message : String(err));
    }
  }

  close(): void {
    this.ctl?.abort();
    this.host.hidden = true;
    this.host.replaceChildren();
  }

  private render(pick: ChartPick, a: AttributionResponse | null, status: string | null): void {
    this.host.hidden = false;
    const close = el("button", "×", "close");
    close.type = "button";
    close.title = "close (Esc)";
    close.addEventListener("click", () => this.close());
    const head = el("header");
    head.append(el("h2", `Why? ${seriesLabel(pick.method, pick.target)}`), close);
    const where = el("p", `from ${pick.where}`, "meta");
    this.host.replaceChildren(head, where);
    if (status !== null) {
      this.host.append(el("p", status, "meta"));
      return;
    }
    if (a === null || a.sample === null || a.verdict === null || a.breakdown === null) {
      this.host.append(el("p", "no sample of this series there", "empty"));
      return;
    }
    const s = a.sample;
    const typical = a.typicalMs[seriesKey(s.method, s.target)];
    this.host.append(
      el(
        "p",
        `${new Date(s.t).toLocaleTimeString()} · ${s.outcome === "ok" ? msText(s.ms) : `${s.outcome} (${msText(s.ms)})`}` +
          (typical === undefined ? "" : ` · typical ${formatMs(typical)}`),
      ),
    );
    const verdict = el("p", a.verdict.text, "verdict");
    verdict.id = "attribution-verdict";
    verdict.dataset.cause = a.verdict.cause;
    this.host.append(verdict, this.breakdown(a), el("h3", "Evidence"));
    const evidence = el("ul", "", "evidence");
    for (const e of a.verdict.evidence) evidence.append(el("li", e));
    this.host.append(evidence, el("h3", "The same second, every method and server"), this.neighbours(s, a));
    this.host.querySelector<HTMLButtonElement>("button.close")?.focus();
  }

  /** One bar: where the probe's time went (ms), lateness before it left drawn apart. */
  private breakdown(a: AttributionResponse): HTMLElement {
    const b = a.breakdown!;
    const wrap = el("div", "", "breakdown");
    const parts: [string, number | null, string][] = [
      ["tick late", b.lateMs, "late"],
      ["server", b.serverMs, "server"],
      [`path (${b.pathMethod ?? "no baseline"})`, b.pathMs, "path"],
      ["browser + protocol", b.restMs, "rest"],
    ];
    const total = parts.reduce((sum, [, v]) => sum + (v ?? 0), 0) || 1;
    const bar = el("div", "", "breakdown-bar");
    const legend = el("dl");
    for (const [label, v, cls] of parts) {
      const seg = el("span", "", cls);
      seg.style.flexGrow = String((v ?? 0) / total);
      seg.title = `${label}: ${msText(v)}`;
      bar.append(seg);
      const dt = el("dt", label, cls);
      legend.append(dt, el("dd", msText(v)));
    }
    wrap.append(bar, legend);
    return wrap;
  }

  private neighbours(s: ForensicSample, a: AttributionResponse): HTMLElement {
    const table = el("table", "", "stats neighbours");
    const head = el("tr");
    for (const h of ["Method", "Server", "Sent", "Latency", "Typical", "Tick late", "Server time"])
      head.append(el("th", h));
    table.append(el("thead"), el("tbody"));
    table.tHead!.append(head);
    const rows = [s, ...a.neighbours].sort((x, y) => x.t - y.t);
    for (const n of rows) {
      const tr = el("tr");
      if (n === s) tr.className = "picked";
      const typical = a.typicalMs[seriesKey(n.method, n.target)];
      const cells = [
        n.method,
        n.target,
        `${n.t - s.t >= 0 ? "+" : "−"}${Math.abs(n.t - s.t)} ms`,
        n.outcome === "ok" ? msText(n.ms) : n.outcome,
        typical === undefined ? "–" : formatMs(typical),
        msText(n.lateMs),
        msText(n.serverMs),
      ];
      for (const c of cells) tr.append(el("td", c));
      table.tBodies[0]!.append(tr);
    }
    return table;
  }
}
