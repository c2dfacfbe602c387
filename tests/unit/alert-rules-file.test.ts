// The --alerts rules file: the documented example parses into the rules it
// says, and every mistake is refused with its file, line and problem.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { parseAlertFlags } from "../../server/cli/alert-flags.js";
import { BUILTINS_DEFAULT } from "../../server/alerts/builtins.js";
import { parseRulesFile } from "../../server/alerts/rules-file.js";
import { parseDuration } from "../../server/alerts/rule-values.js";

const EXAMPLE = "docs/alerts/rules.example.yml";

describe("the rules file", () => {
  it("parses the documented example", () => {
    const r = parseRulesFile(fs.readFileSync(EXAMPLE, "utf8"), EXAMPLE);
    if (!r.ok) throw new Error(r.error);
    const [ws, median, avail] = r.value.rules;
    expect(r.value.rules).toHaveLength(3);
    expect(ws).toMatchObject({
      name: "WebSocketTailSlow",
      group: "latency",
      intervalMs: 30_000,
      series: { methods: ["ws"], targets: ["B"], client: "all" },
      statistic: "p99",
      windowMs: 900_000,
      threshold: { op: "above", value: 250, clear: 200, relative: false },
      minSamples: 500,
      forMs: 300_000,
      samples: "on-time",
      labels: { severity: "warning" },
      origin: `${EXAMPLE}:10`,
    });
    expect(median).toMatchObject({
      series: { methods: ["xhr", "jsonp", "ws"], targets: null, client: "each" },
      threshold: { op: "above", value: 2, clear: 1.5, relative: true, baselineMs: 7 * 86_400_000, minDeltaMs: 10 },
      minSamples: 10, // p50's default
      samples: "visible",
      flapping: { window: 21, startPct: 20, stopPct: 5 },
    });
    expect(avail).toMatchObject({
      intervalMs: 30_000,
      statistic: "availability",
      threshold: { op: "below", value: 99, clear: 99.5 },
      flapping: { window: 21, startPct: 30, stopPct: 10 },
    });
    expect(r.value.builtins).toEqual({
      targetDown: true,
      tailLatencyHigh: true,
      noReportsAfterMs: 30 * 60_000,
      tailRegressionWithinMs: 12 * 3_600_000,
    });
  });

  it("an empty file keeps the built-ins; builtins: false turns each off", () => {
    expect(parseRulesFile("", "r.yml")).toEqual({ ok: true, value: { rules: [], builtins: BUILTINS_DEFAULT } });
    const off = parseRulesFile(
      "builtins:\n  TargetDown: false\n  TailLatencyHigh: false\n  NoReports: false\n  TailRegression: false\n",
      "r.yml",
    );
    expect(off).toEqual({
      ok: true,
      value: {
        rules: [],
        builtins: { targetDown: false, tailLatencyHigh: false, noReportsAfterMs: null, tailRegressionWithinMs: null },
      },
    });
  });

  const rule = (body: string) => `groups:\n  - name: g\n    rules:\n      - alert: X\n${body}`;
  const base = "        statistic: p99\n        window: 15m\n";
  it.each([
    ["groups: [", 1, /flow sequence|Flow sequence|missing/i],
    ["groups:\n  - name: g\n    rulez: []\n", 3, /unknown field 'rulez'/],
    [rule(`${base}        above: 250ms\n        widnow: 5m\n`), 8, /unknown field 'widnow'/],
    [rule("        window: 15m\n        above: 250ms\n"), 4, /needs 'statistic'/],
    [rule(`${base}        above: 250ms\n        below: 100ms\n`), 4, /exactly one of 'above' or 'below'/],
    [rule("        statistic: p99\n        window: 7m\n        above: 1ms\n"), 6, /multiple of 5m/],
    [rule("        statistic: p99\n        window: 15 minutes\n        above: 1ms\n"), 6, /window must be a duration/],
    [rule(`${base}        above: 250ms\n        clear: 300ms\n`), 8, /clear must be at most/],
    [rule(`${base}        above: 2x\n        clear: 150ms\n`), 8, /clear must be a factor/],
    [rule("        statistic: availability\n        window: 5m\n        below: 2x\n"), 7, /factor threshold.*in %/],
    [rule("        statistic: availability\n        window: 5m\n        below: 120%\n"), 7, /between 0% and 100%/],
    [rule(`${base}        above: 250ms\n        baseline: 1d\n`), 8, /baseline is for factor thresholds/],
    [rule(`${base}        above: 1ms\n        method: smoke\n`), 8, /method 'smoke'/],
    [rule(`${base}        above: 1ms\n        client: bob\n`), 8, /client must be all, each or/],
    [rule(`${base}        above: 1ms\n        samples: foreground\n`), 8, /samples must be one of/],
    [rule(`${base}        above: 1ms\n        labels:\n          target: C\n`), 9, /'target' comes from the series/],
    [rule(`${base}        above: 1ms\n        min_samples: -3\n`), 8, /min_samples must be a whole number/],
    [
      rule(`${base}        above: 1ms\n        flapping:\n          start: 5%\n          stop: 10%\n`),
      9,
      /stop must be below/,
    ],
    [rule(`${base}        above: 1ms\n        for: 2d\n`), 8, /for must be between 0s and 1d/],
    ["groups:\n  - name: g\n    rules:\n      - alert: TargetDown\n", 4, /built in/],
    [
      `${rule(`${base}        above: 1ms\n`)}      - alert: X\n${base}        above: 2ms\n`,
      8,
      /already defined at r\.yml:4/,
    ],
    ["builtins:\n  NoReports:\n    after: 10s\n", 3, /after must be between 1m and 7d/],
    ["builtins:\n  TargetDown: maybe\n", 2, /must be true or false/],
    ["groups:\n  - name: g\n    rules: []\n  - name: g\n    rules: []\n", 4, /named twice/],
    ["a: 1\na: 2\n", 2, /unique/i],
  ])("refuses %j at line %i", (text, line, problem) => {
    const r = parseRulesFile(text, "r.yml");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatch(new RegExp(`^r\\.yml:${line}: `));
    expect(r.error).toMatch(problem);
  });

  it("durations follow Prometheus' notation", () => {
    expect(parseDuration("1h30m")).toEqual({ ok: true, value: 5_400_000 });
    expect(parseDuration("90s")).toEqual({ ok: true, value: 90_000 });
    expect(parseDuration("1w")).toEqual({ ok: true, value: 7 * 86_400_000 });
    expect(parseDuration("30m1h").ok).toBe(false);
    expect(parseDuration("5").ok).toBe(false);
  });
});

describe("the alerting flags", () => {
  it("name the flag and the file when the file cannot be read or is wrong", () => {
    const missing = parseAlertFlags({ alerts: "/nonexistent/rules.yml" });
    expect(missing).toEqual({ ok: false, error: "--alerts /nonexistent/rules.yml: cannot read it (ENOENT)" });
    const bad = parseAlertFlags({ alerts: "rules.yml" }, () => "groups:\n  - name: g\n    rules:\n      - alert: 9\n");
    expect(bad).toEqual({
      ok: false,
      error: expect.stringMatching(/^--alerts rules\.yml:4: alert '9' must be a name/),
    });
  });

  it("tell the receivers apart by their URLs", () => {
    const r = parseAlertFlags({
      notify: [
        "https://example.org/hook",
        "ntfy://:tk_secret@ntfy.example.org/ops",
        "https://ntfy.sh/my-topic",
        "https://hooks.slack.com/services/T0/B0/XYZ",
        "slack+http://127.0.0.1:8065/hooks/abc",
      ],
      alertmanager: "http://127.0.0.1:9093/",
    });
    if (!r.ok) throw new Error(r.error);
    expect(r.value.notify.map((n) => [n.kind, n.url, n.topic])).toEqual([
      ["webhook", "https://example.org/hook", undefined],
      ["ntfy", "https://ntfy.example.org/", "ops"],
      ["ntfy", "https://ntfy.sh/", "my-topic"],
      ["slack", "https://hooks.slack.com/services/T0/B0/XYZ", undefined],
      ["slack", "http://127.0.0.1:8065/hooks/abc", undefined],
    ]);
    // The token went into the header, not the URL, the display or the key.
    const ntfy = r.value.notify[1]!;
    expect(ntfy.authorization).toBe(`Basic ${Buffer.from(":tk_secret").toString("base64")}`);
    for (const n of r.value.notify) expect(`${n.url} ${n.display} ${n.key}`).not.toMatch(/tk_secret/);
    // Slack's secret is its path: the URL needs it, the log lines and the stored key do not.
    for (const n of r.value.notify) expect(`${n.display} ${n.key}`).not.toMatch(/XYZ|abc/);
    expect(r.value.alertmanager?.kind).toBe("alertmanager");
    for (const [flag, value, problem] of [
      ["notify", ["ftp://x/y"], /--notify must be an http/],
      ["notify", ["ntfy://host/"], /one topic/],
      ["notify", ["https://a/b", "https://a/b"], /given twice/],
      ["alertmanager", "not a url", /--alertmanager must be a URL/],
    ] as const) {
      const bad = parseAlertFlags({ [flag]: value });
      expect(bad.ok).toBe(false);
      if (!bad.ok) expect(bad.error).toMatch(problem);
    }
  });
});
