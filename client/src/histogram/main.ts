// The histogram page: the seed's table for the chosen range, refreshed live.
import "../common/page.css";
import type { StatsResponse } from "../../../shared/protocol.js";
import { readRange, resolveRange, writeRange, type Preset, type RangeState } from "./range.js";
import { renderStatsTable } from "./stats-table.js";
import { mountRacesPanel } from "./races-panel.js";

/** How often the table refreshes while the page is open (ms). */
const REFRESH_MS = 5000;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const presetSelect = $<HTMLSelectElement>("range-preset");
const fromInput = $<HTMLInputElement>("range-from");
const toInput = $<HTMLInputElement>("range-to");

let range: RangeState = readRange(location.search);
let inFlight: AbortController | undefined;

function toLocalInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 19);
}

function syncControls(): void {
  presetSelect.value = range.preset;
  $("custom-range").hidden = range.preset !== "custom";
  if (range.preset === "custom") {
    fromInput.value = toLocalInput(range.fromMs ?? Date.now() - 3_600_000);
    toInput.value = toLocalInput(range.toMs ?? Date.now());
  }
}

async function refresh(): Promise<void> {
  inFlight?.abort();
  const ctl = new AbortController();
  inFlight = ctl;
  const { fromMs, toMs } = resolveRange(range, Date.now());
  try {
    const res = await fetch(`/api/stats?from=${fromMs}&to=${toMs}`, { signal: ctl.signal, cache: "no-store" });
    if (!res.ok) throw new Error(`GET /api/stats answered ${res.status}`);
    const body = (await res.json()) as StatsResponse;
    renderStatsTable($<HTMLTableSectionElement>("stats-rows"), body.rows);
    $("updated").textContent = `updated ${new Date().toLocaleTimeString()}`;
  } catch (err) {
    if ((err as Error).name === "AbortError") return;
    $("updated").textContent = `could not refresh: ${(err as Error).message}`;
  }
}

function setRange(next: RangeState): void {
  range = next;
  history.replaceState(null, "", writeRange(range, location.search));
  syncControls();
  void refresh();
}

presetSelect.addEventListener("change", () => {
  const preset = presetSelect.value as Preset;
  if (preset === "custom") {
    const { fromMs, toMs } = resolveRange(range, Date.now());
    setRange({ preset, fromMs: Math.max(fromMs, Date.now() - 86_400_000), toMs });
  } else {
    setRange({ preset });
  }
});
for (const input of [fromInput, toInput]) {
  input.addEventListener("change", () => {
    const fromMs = new Date(fromInput.value).getTime();
    const toMs = new Date(toInput.value).getTime();
    if (Number.isFinite(fromMs) && Number.isFinite(toMs) && fromMs <= toMs) setRange({ preset: "custom", fromMs, toMs });
  });
}

syncControls();
void refresh();
setInterval(() => {
  if (document.visibilityState === "visible") void refresh();
}, REFRESH_MS);
mountRacesPanel($("races"), () => resolveRange(range, Date.now()));
