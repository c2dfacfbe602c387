// The series picker: which servers, methods and client to show, and the
// sample flags ("tab visible only", "exclude late ticks"). It edits a view
// and hands the new one back; it never fetches anything itself.
import { DERIVED_SERIES, MAX_LATE_MS_CHOICES, type ClientInfo } from "../../../shared/contract/index.js";
import { METHODS, methodOrder } from "../../../shared/methods.js";
import { LOAD_NONE, LOAD_VALUES } from "../../../shared/stress/phases.js";
import { methodColour } from "./palette.js";
import { methodLabel } from "./series-label.js";
import type { ViewState } from "./url-state.js";

/** Lateness limit offered when "exclude late ticks" is ticked (ms). */
export const LATE_MS_DEFAULT = 100;

export interface PickerCallbacks {
  onChange(patch: Partial<ViewState>): void;
}

/**
 * Methods offered even before any sample of them exists (probes, baselines,
 * the derived kernel min RTT and the servers' own probes of their peers):
 * exactly those the API's method filter accepts, in the tables' order.
 */
export const PICKER_METHODS: readonly string[] = [...METHODS, ...Object.keys(DERIVED_SERIES)].sort(
  (a, b) => methodOrder(a) - methodOrder(b),
);

/** Ticked list → filter value: all ticked means no filter (so new series appear by themselves). */
export function listFilter(ticked: string[], all: readonly string[]): string[] {
  return ticked.length === all.length && all.every((x) => ticked.includes(x)) ? [] : ticked;
}

export function clientLabel(c: ClientInfo): string {
  const who = c.label ?? c.id.slice(0, 8);
  return c.browser === null || c.browser === "" ? who : `${who} — ${c.browser}`;
}

export class Picker {
  private targets: string[] = [];
  private clients: ClientInfo[] = [];

  constructor(
    private readonly root: HTMLElement,
    private readonly cb: PickerCallbacks,
  ) {}

  setTargets(targets: string[]): void {
    this.targets = targets;
  }

  setClients(clients: ClientInfo[]): void {
    this.clients = clients;
  }

  private shape = "";

  render(v: ViewState): void {
    // Same choices as last time: only update the controls' state, so a
    // keyboard user's focus stays on the box they just ticked.
    const shape = JSON.stringify([this.targets, this.clients.map(clientLabel), v.client]);
    if (shape === this.shape) return this.sync(v);
    this.shape = shape;
    const frag = document.createDocumentFragment();
    frag.append(
      this.group("Servers", "target", this.targets, v.targets, (t) => t),
      this.group("Methods", "method", PICKER_METHODS, v.methods, methodLabel, methodColour),
      this.clientSelect(v),
      this.flags(v),
      this.loadGroup(v),
    );
    this.root.replaceChildren(frag);
  }

  private sync(v: ViewState): void {
    for (const box of Array.from(
      this.root.querySelectorAll<HTMLInputElement>('input[name="target"], input[name="method"]'),
    )) {
      const chosen = box.name === "target" ? v.targets : v.methods;
      box.checked = chosen.length === 0 || chosen.includes(box.value);
    }
    const vis = this.root.querySelector<HTMLInputElement>("#flag-visible");
    if (vis) vis.checked = v.visibleOnly;
    const tail = this.root.querySelector<HTMLInputElement>("#flag-timeouts");
    if (tail) tail.checked = v.timeoutsInTail;
    for (const box of Array.from(this.root.querySelectorAll<HTMLInputElement>('input[name="load"]')))
      box.checked = v.loads.length === 0 || v.loads.includes(box.value);
    const late = this.root.querySelector<HTMLInputElement>("#flag-late");
    const lateMs = this.root.querySelector<HTMLSelectElement>("#flag-late-ms");
    if (late && lateMs) {
      late.checked = v.maxLateMs !== null;
      lateMs.disabled = v.maxLateMs === null;
      if (v.maxLateMs !== null) {
        ensureLateOption(lateMs, v.maxLateMs);
        lateMs.value = String(v.maxLateMs);
      }
    }
  }

  private group(
    title: string,
    name: "target" | "method",
    all: readonly string[],
    chosen: string[],
    label: (x: string) => string,
    colour?: (x: string) => string,
  ): HTMLElement {
    const fs = document.createElement("fieldset");
    fs.className = "pick";
    fs.append(Object.assign(document.createElement("legend"), { textContent: title }));
    for (const x of all) {
      const lab = document.createElement("label");
      const box = Object.assign(document.createElement("input"), { type: "checkbox", name, value: x });
      box.checked = chosen.length === 0 || chosen.includes(x);
      box.addEventListener("change", () => {
        const ticked = Array.from(fs.querySelectorAll<HTMLInputElement>("input:checked"), (i) => i.value);
        if (ticked.length === 0) {
          box.checked = true; // an empty selection would show nothing; keep at least one
          return;
        }
        this.cb.onChange(
          name === "target" ? { targets: listFilter(ticked, all) } : { methods: listFilter(ticked, all) },
        );
      });
      lab.append(box);
      if (colour) {
        const sw = document.createElement("span");
        sw.className = "swatch";
        sw.style.background = colour(x);
        lab.append(sw);
      }
      lab.append(document.createTextNode(label(x)));
      fs.append(lab);
    }
    return fs;
  }

  private clientSelect(v: ViewState): HTMLElement {
    const lab = document.createElement("label");
    lab.className = "pick-client";
    lab.append("Client ");
    const sel = document.createElement("select");
    sel.id = "client";
    sel.append(new Option("all clients", ""));
    for (const c of this.clients) sel.append(new Option(clientLabel(c), c.id));
    if (v.client !== null && !this.clients.some((c) => c.id === v.client)) sel.append(new Option(v.client, v.client));
    sel.value = v.client ?? "";
    sel.addEventListener("change", () => this.cb.onChange({ client: sel.value === "" ? null : sel.value }));
    lab.append(sel);
    return lab;
  }

  /** Samples by stress-test phase (docs/stress.md): all ticked is no filter, like the other groups. */
  private loadGroup(v: ViewState): HTMLElement {
    const fs = document.createElement("fieldset");
    fs.className = "pick";
    fs.id = "pick-load";
    fs.append(Object.assign(document.createElement("legend"), { textContent: "Load" }));
    fs.title = "samples taken in these phases of the probe page's stress test, or outside any test";
    for (const x of LOAD_VALUES) {
      const lab = document.createElement("label");
      const box = Object.assign(document.createElement("input"), { type: "checkbox", name: "load", value: x });
      box.checked = v.loads.length === 0 || v.loads.includes(x);
      box.addEventListener("change", () => {
        const ticked = Array.from(fs.querySelectorAll<HTMLInputElement>("input:checked"), (i) => i.value);
        if (ticked.length === 0) {
          box.checked = true;
          return;
        }
        this.cb.onChange({ loads: listFilter(ticked, LOAD_VALUES) });
      });
      lab.append(box, LOAD_LABELS[x] ?? x);
      fs.append(lab);
    }
    return fs;
  }

  private flags(v: ViewState): HTMLElement {
    const fs = document.createElement("fieldset");
    fs.className = "pick";
    fs.append(Object.assign(document.createElement("legend"), { textContent: "Samples" }));
    const vis = document.createElement("label");
    const visBox = Object.assign(document.createElement("input"), {
      type: "checkbox",
      id: "flag-visible",
      checked: v.visibleOnly,
    });
    visBox.addEventListener("change", () => this.cb.onChange({ visibleOnly: visBox.checked }));
    vis.append(visBox, " tab visible only");
    vis.title = "only probes sent and answered while the page was visible (background tabs are throttled)";

    const late = document.createElement("label");
    const lateBox = Object.assign(document.createElement("input"), {
      type: "checkbox",
      id: "flag-late",
      checked: v.maxLateMs !== null,
    });
    // The limits the store keeps rollup classes for: each answers in milliseconds over any range.
    const lateMs = Object.assign(document.createElement("select"), {
      id: "flag-late-ms",
      disabled: v.maxLateMs === null,
    });
    for (const ms of MAX_LATE_MS_CHOICES) lateMs.append(new Option(String(ms), String(ms)));
    ensureLateOption(lateMs, v.maxLateMs ?? LATE_MS_DEFAULT);
    lateMs.value = String(v.maxLateMs ?? LATE_MS_DEFAULT);
    lateMs.setAttribute("aria-label", "late tick limit in ms");
    const commit = () => {
      const n = Math.round(Number(lateMs.value));
      this.cb.onChange({ maxLateMs: lateBox.checked && Number.isFinite(n) && n >= 0 ? Math.min(n, 60_000) : null });
    };
    lateBox.addEventListener("change", commit);
    lateMs.addEventListener("change", commit);
    late.append(lateBox, " exclude ticks later than ", lateMs, " ms");
    late.title = "leave out probes whose tick fired late (a busy or frozen page measures itself, not the network)";
    const tail = document.createElement("label");
    const tailBox = Object.assign(document.createElement("input"), {
      type: "checkbox",
      id: "flag-timeouts",
      checked: v.timeoutsInTail,
    });
    tailBox.addEventListener("change", () => this.cb.onChange({ timeoutsInTail: tailBox.checked }));
    tail.append(tailBox, " timeouts in the tail");
    tail.title =
      "count each timeout at its timeout value in the percentiles, histogram, tail and charts (it still counts as a failure): with 2 % timeouts, p99 is the timeout";
    fs.append(vis, late, tail);
    return fs;
  }
}

/** How the load filter's choices read: a stress test's phase, or outside any test. */
export const LOAD_LABELS: Record<string, string> = {
  [LOAD_NONE]: "outside stress tests",
  idle: "idle",
  download: "download",
  upload: "upload",
  bidirectional: "both ways",
  cooldown: "cooldown",
};

/** A limit from a hand-edited URL that is not one of the choices is shown too (the server answers it from raw samples, slower). */
function ensureLateOption(select: HTMLSelectElement, ms: number): void {
  if (!Array.from(select.options).some((o) => o.value === String(ms)))
    select.append(new Option(`${ms} (slow over long ranges)`, String(ms)));
}
