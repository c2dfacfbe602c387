// The whole view lives in the URL: whatever a user sets must come back
// unchanged after a reload, and a hand-edited URL must not break the page.
import { describe, expect, it } from "vitest";
import { DEFAULT_VIEW, readView, writeView, type ViewState } from "../../client/src/histogram/url-state.js";
import { mulberry32 } from "../../shared/prng.js";

describe("histogram URL state", () => {
  it("a newcomer's URL is just the range, and reads back as the defaults", () => {
    expect(writeView(DEFAULT_VIEW)).toBe("?range=1h");
    expect(readView("")).toEqual(DEFAULT_VIEW);
    expect(readView("?range=1h")).toEqual(DEFAULT_VIEW);
  });

  it("round-trips a full view", () => {
    const v: ViewState = {
      range: { preset: "custom", fromMs: 1_700_000_000_000, toMs: 1_700_000_600_000 },
      methods: ["xhr", "ws", "ping"],
      targets: ["A", "A+B"],
      client: "client-abc_123",
      visibleOnly: true,
      maxLateMs: 250,
      timeoutsInTail: true,
      loads: ["none", "download"],
      histScale: "share",
      focus: { fromMs: 1_700_000_100_000, toMs: 1_700_000_130_000 },
      invert: true,
      heat: "best2@A+B",
    };
    const url = writeView(v);
    expect(readView(url)).toEqual(v);
    // Readable, shareable: commas and @ are not percent-encoded.
    expect(url).toContain("method=xhr,ws,ping");
    expect(url).toContain("focus=1700000100000-1700000130000");
    expect(url).toContain("invert=1");
    expect(url).toContain("timeouts=1");
    expect(url).toContain("load=none,download");
  });

  it("round-trips random views", () => {
    const rnd = mulberry32(7);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
    for (let i = 0; i < 200; i++) {
      const from = 1_600_000_000_000 + Math.floor(rnd() * 1e10);
      const focus = rnd() < 0.5 ? null : { fromMs: from + 1000, toMs: from + 1000 + 1 + Math.floor(rnd() * 1e6) };
      const v: ViewState = {
        range: pick([
          { preset: "15m" },
          { preset: "24h" },
          { preset: "all" },
          { preset: "custom", fromMs: from, toMs: from + 1 + Math.floor(rnd() * 1e8) },
        ] as const),
        methods: ["xhr", "jsonp", "ws", "best2", "ping", "wsping", "tcprtt"].filter(() => rnd() < 0.4),
        targets: ["A", "B", "A+B", "C"].filter(() => rnd() < 0.5),
        client: rnd() < 0.3 ? "abcdefgh1234" : null,
        visibleOnly: rnd() < 0.5,
        maxLateMs: rnd() < 0.5 ? Math.floor(rnd() * 60_000) : null,
        timeoutsInTail: rnd() < 0.5,
        loads: ["none", "idle", "download", "upload", "bidirectional", "cooldown"].filter(() => rnd() < 0.3),
        histScale: rnd() < 0.5 ? "count" : "share",
        focus,
        invert: focus !== null && rnd() < 0.5,
        heat: rnd() < 0.3 ? "ws@B" : null,
      };
      expect(readView(writeView(v)), writeView(v)).toEqual(v);
    }
  });

  it("drops what does not parse instead of trusting it", () => {
    const v = readView(
      "?range=bogus&method=xhr,<script>,ws&client=short&maxLateMs=-5&hist=pie&focus=20-10&invert=1&heat=x&load=download,Download,nonsense",
    );
    expect(v.loads).toEqual(["download"]);
    expect(v.range).toEqual({ preset: "1h" });
    expect(v.methods).toEqual(["xhr", "ws"]);
    expect(v.client).toBeNull();
    expect(v.maxLateMs).toBeNull();
    expect(v.histScale).toBe("count");
    // An invalid focus takes its invert with it: there is nothing to invert.
    expect(v.focus).toBeNull();
    expect(v.invert).toBe(false);
    expect(v.heat).toBeNull();
    expect(readView("?maxLateMs=999999").maxLateMs).toBe(60_000);
  });
});
