// The incidents of the range (GET /api/incidents): listed above the time
// charts, drawn as bands on each server's charts; a click on one focuses the
// page on it (focus window = the incident, the range widened if needed).
import { formatMs } from "../../../shared/format.js";
import { incidentsResponseSchema, type Incident } from "../../../shared/contract/incidents.js";
import { getChecked, isAbort } from "./api.js";
import { focusOn, incidentWindow } from "./incident-bands.js";
import type { RangeState } from "./range.js";
import type { TimeWindow } from "./url-state.js";

/** How often the list refreshes while the page is visible (ms): the histogram page's own cadence. */
const REFRESH_MS = 5000;

export interface IncidentsHost {
  /** The time charts' range now. */
  range(): TimeWindow;
  /** The focus window now, to mark the incident it shows. */
  focus(): TimeWindow | null;
  apply(patch: { range?: RangeState; focus: TimeWindow }): void;
  onViewChange(cb: () => void): void;
  markIncidents(incidents: readonly Incident[]): void;
}

const VERDICT_WORDS: Record<Incident["verdict"], string> = {
  server: "the server",
  client: "a client or its path",
  network: "the network",
  http: "HTTP",
  browser: "the browsers",
  unknown: "not known",
};

/** Local time, as the time charts' axes (the summary, written by the server, says UTC). */
const when = (ms: number): string => new Date(ms).toLocaleString();

function item(i: Incident, nowMs: number, focused: boolean, onClick: () => void): HTMLLIElement {
  const li = document.createElement("li");
  li.dataset.id = i.id;
  li.dataset.target = i.target;
  li.className = `incident ${i.kind}${i.end === null ? " open" : ""}`;
  const button = document.createElement("button");
  button.type = "button";
  button.title = "Focus the page on this incident";
  button.setAttribute("aria-pressed", String(focused));
  const head = document.createElement("span");
  head.className = "incident-head";
  const kind = document.createElement("strong");
  kind.textContent = `${i.target} ${i.kind}`;
  const w = incidentWindow(i, nowMs);
  const meta = document.createElement("span");
  meta.className = "meta";
  meta.textContent = ` ${when(i.start)} · ${i.end === null ? "ongoing, " : ""}${formatMs(w.toMs - w.fromMs)} · fault: ${VERDICT_WORDS[i.verdict]}`;
  head.append(kind, meta);
  const summary = document.createElement("span");
  summary.className = "incident-summary";
  summary.textContent = i.summary;
  button.append(head, summary);
  button.addEventListener("click", onClick);
  li.appendChild(button);
  return li;
}

export function mountIncidentsPanel(section: HTMLElement, host: IncidentsHost): { refresh(): Promise<void> } {
  const heading = document.createElement("h2");
  heading.textContent = "Incidents";
  const hint = document.createElement("p");
  hint.className = "hint";
  hint.textContent =
    "Outages and degradations the servers saw in this range, with where the fault lies; they are shaded on their server's time charts. Click one to focus the page on it.";
  const list = document.createElement("ol");
  list.id = "incident-list";
  list.className = "incident-list";
  const status = document.createElement("p");
  status.className = "meta";
  section.replaceChildren(heading, hint, list, status);

  let inFlight: AbortController | undefined;
  let shown: Incident[] = [];
  const render = () => {
    const nowMs = Date.now();
    const focus = host.focus();
    list.replaceChildren(
      ...shown.map((i) => {
        const w = incidentWindow(i, nowMs);
        const focused = focus !== null && focus.fromMs === w.fromMs && (i.end === null || focus.toMs === w.toMs);
        return item(i, nowMs, focused, () => host.apply(focusOn(i, host.range(), Date.now())));
      }),
    );
    if (shown.length === 0) {
      const empty = document.createElement("li");
      empty.className = "empty";
      empty.textContent = "No incidents in this range.";
      list.appendChild(empty);
    }
  };
  async function refresh(): Promise<void> {
    inFlight?.abort();
    const ctl = new AbortController();
    inFlight = ctl;
    const r = host.range();
    const q = new URLSearchParams({ from: String(Math.floor(r.fromMs)), to: String(Math.ceil(r.toMs)) });
    try {
      const answer = await getChecked("/api/incidents", q, incidentsResponseSchema, ctl.signal);
      // Newest first in the list; the bands do not mind the order.
      shown = [...answer.incidents].reverse();
      status.textContent = answer.truncated ? "Only the newest incidents of this range are shown." : "";
      render();
      host.markIncidents(answer.incidents);
    } catch (err) {
      if (isAbort(err)) return;
      status.textContent = `could not refresh: ${(err as Error).message}`;
    }
  }
  host.onViewChange(() => void refresh());
  setInterval(() => {
    if (document.visibilityState === "visible") void refresh();
  }, REFRESH_MS);
  void refresh();
  return { refresh };
}
