// The level shifts of the page's range (GET /api/changes), listed with the
// part of the path that moved, and marked on the time charts. Choosing one
// compares its series before against after (the compare panel's bootstrap
// intervals and rank test), so the jump can be told from noise. A component
// of its own: the incidents list sits beside it, not in it.
import { type Change, changesResponseSchema } from "../../../shared/contract/index.js";
import { formatMs } from "../../../shared/format.js";
import { ApiError, getChecked, isAbort } from "./api.js";
import type { ChangeMark } from "./chart-timeseries.js";
import { seriesLabel } from "./series-label.js";
import type { TimeWindow } from "./url-state.js";

export interface ChangesHost {
  /** The page's time range now (epoch ms). */
  range(): TimeWindow;
  /** The table's filters (the client among them); changes take the client only. */
  panelFilters(): URLSearchParams;
  onViewChange(cb: () => void): void;
  markChanges(marks: Map<string, ChangeMark[]>): void;
}

/** The list is read again this often while the page is visible (ms): changes move on the scale of minutes. */
export const CHANGES_REFRESH_MS = 30_000;

const VERDICT_WORDS: Record<Change["verdict"], string> = {
  network: "network path",
  server: "server",
  http: "HTTP or the browser",
  client: "browser or client machine",
  unexplained: "unexplained",
};

const el = <K extends keyof HTMLElementTagNameMap>(tag: K, text = "", className = ""): HTMLElementTagNameMap[K] =>
  Object.assign(document.createElement(tag), { textContent: text, className });

const when = (t: number) =>
  new Date(t).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });

/** Mounts the list into `root`; `onChoose` gets the change a user picked (from the list or a mark). */
export function mountChangesList(
  root: HTMLElement,
  host: ChangesHost,
  onChoose: (c: Change) => void,
): { choose(id: string): void } {
  const heading = el("h2", "Changes");
  const status = el("span", "", "meta");
  heading.append(" ", status);
  const list = el("ol", "", "changes");
  list.id = "changes-list";
  root.replaceChildren(heading, list);
  let changes: Change[] = [];
  let chosen: string | null = null;
  let ctl: AbortController | null = null;

  const render = () => {
    status.textContent =
      changes.length === 0
        ? "none in this range: no level shift in any series' median or tail"
        : `${changes.length} in this range: a level shift in a series' median or tail, and what moved`;
    list.replaceChildren(
      ...changes.map((c) => {
        const li = el("li", "", c.id === chosen ? "change chosen" : "change");
        li.dataset.id = c.id;
        li.dataset.verdict = c.verdict;
        const button = el("button", "", "change-pick");
        button.type = "button";
        const who = c.client === null ? "" : ` · client ${c.client}`;
        button.append(
          el("span", when(c.t), "change-when"),
          el("span", `${seriesLabel(c.method, c.target)}${who}`, "change-series"),
          el(
            "span",
            `${c.statistic} ${formatMs(c.before)} → ${formatMs(c.after)} (×${c.ratio.toFixed(2)})`,
            `change-move ${c.after > c.before ? "up" : "down"}`,
          ),
          el("span", VERDICT_WORDS[c.verdict], `change-verdict verdict-${c.verdict}`),
        );
        button.addEventListener("click", () => choose(c.id));
        li.append(button, el("p", c.evidence, "change-evidence meta"));
        return li;
      }),
    );
    const marks = new Map<string, ChangeMark[]>();
    for (const c of changes) {
      const key = `${c.method}@${c.target}`;
      const mark: ChangeMark = {
        id: c.id,
        t: c.t,
        earliestT: c.earliestT,
        up: c.after > c.before,
        oneClient: c.client !== null,
        chosen: c.id === chosen,
        title: c.evidence,
      };
      marks.set(key, [...(marks.get(key) ?? []), mark]);
    }
    host.markChanges(marks);
  };

  const choose = (id: string) => {
    const c = changes.find((x) => x.id === id);
    if (c === undefined) return;
    chosen = id;
    render();
    onChoose(c);
  };

  const load = async () => {
    ctl?.abort();
    const mine = new AbortController();
    ctl = mine;
    const { fromMs, toMs } = host.range();
    const q = new URLSearchParams({ from: String(Math.floor(fromMs)), to: String(Math.ceil(toMs)) });
    const client = host.panelFilters().get("client");
    if (client !== null) q.set("client", client);
    try {
      const r = await getChecked("/api/changes", q, changesResponseSchema, mine.signal);
      changes = r.changes;
      if (chosen !== null && !changes.some((c) => c.id === chosen)) chosen = null;
      render();
    } catch (err) {
      if (!isAbort(err)) status.textContent = err instanceof ApiError ? err.message : String(err);
    }
  };

  host.onViewChange(() => void load());
  setInterval(() => {
    if (document.visibilityState === "visible") void load();
  }, CHANGES_REFRESH_MS);
  void load();
  return { choose };
}
