// Incidents on the histogram page: each server's charts get its own
// incidents' bands, clipped to what they show; a click focuses the page on
// an incident, widening the range when it does not hold it, and the view
// survives the URL.
import { describe, expect, it } from "vitest";
import { bandsFor, FOCUS_PAD_MS_MIN, focusOn } from "../../client/src/histogram/incident-bands.js";
import { populations } from "../../client/src/histogram/queries.js";
import { DEFAULT_VIEW, readView, writeView } from "../../client/src/histogram/url-state.js";
import type { Incident } from "../../shared/contract/index.js";

const NOW = 1_800_000_000_000;
const MIN = 60_000;

const incident = (patch: Partial<Incident>): Incident => ({
  id: "A.B.down.1",
  target: "B",
  kind: "down",
  start: NOW - 30 * MIN,
  end: NOW - 20 * MIN,
  verdict: "server",
  summary: "B down: failing from 1 of 1 client and from A's own probe since 05:14:07 UTC",
  methods: ["xhr"],
  clients: [],
  evidence: [],
  peak: { affected: 2, reporting: 2, failureShare: 1, latencyMs: null, typicalMs: null },
  observer: "A",
  ...patch,
});

describe("incident bands", () => {
  const axis = { fromMs: NOW - 60 * MIN, toMs: NOW };

  it("draws a server's incidents on its own charts only, clipped to the axis; an open one runs to now", () => {
    const list = [
      incident({ id: "b1" }),
      incident({ id: "a1", target: "A" }),
      incident({ id: "b2", start: NOW - 90 * MIN, end: NOW - 50 * MIN, kind: "degraded" }),
      incident({ id: "b3", start: NOW - 5 * MIN, end: null }),
      incident({ id: "old", start: NOW - 200 * MIN, end: NOW - 100 * MIN }),
    ];
    expect(bandsFor(list, "B", axis, NOW)).toEqual([
      { id: "b1", kind: "down", fromMs: NOW - 30 * MIN, toMs: NOW - 20 * MIN },
      { id: "b2", kind: "degraded", fromMs: NOW - 60 * MIN, toMs: NOW - 50 * MIN },
      { id: "b3", kind: "down", fromMs: NOW - 5 * MIN, toMs: NOW },
    ]);
    expect(bandsFor(list, "A+B", axis, NOW)).toEqual([]);
  });

  it("a click inside the range focuses on the incident and leaves the range alone", () => {
    const i = incident({});
    expect(focusOn(i, axis, NOW)).toEqual({ focus: { fromMs: i.start, toMs: i.end } });
  });

  it("a click on one reaching outside the range widens it, with context on either side, never past now", () => {
    const i = incident({ start: NOW - 70 * MIN, end: null });
    const patch = focusOn(i, axis, NOW);
    expect(patch.focus).toEqual({ fromMs: NOW - 70 * MIN, toMs: NOW });
    expect(patch.range).toEqual({ preset: "custom", fromMs: NOW - 70 * MIN - 35 * MIN, toMs: NOW });
    const short = focusOn(incident({ start: NOW - 120 * MIN, end: NOW - 119 * MIN }), axis, NOW);
    expect(short.range).toEqual({
      preset: "custom",
      fromMs: NOW - 120 * MIN - FOCUS_PAD_MS_MIN,
      toMs: NOW - 119 * MIN + FOCUS_PAD_MS_MIN,
    });
  });

  it("the focused view goes into the URL and back, and the table then describes the incident", () => {
    const i = incident({ start: NOW - 120 * MIN, end: NOW - 110 * MIN });
    const view = { ...DEFAULT_VIEW, ...focusOn(i, axis, NOW) };
    const back = readView(writeView(view));
    expect(back.focus).toEqual({ fromMs: i.start, toMs: i.end });
    expect(back.range).toEqual(view.range);
    const summary = Object.fromEntries(populations(back, NOW).summary.entries());
    expect(summary).toMatchObject({ from: String(i.start), to: String(i.end) });
  });
});
