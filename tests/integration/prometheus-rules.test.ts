// The example Prometheus alerting rules for /metrics (docs/prometheus/):
// promtool checks them and runs their unit tests, the minimum-rate guards are
// shown to matter (without them the sparse series of the tests fire), and
// every metric they name is one /metrics exposes.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { formatMetrics } from "../../server/query/metrics-route.js";
import { LATENCY_BUCKETS_S } from "../../server/query/metrics-source.js";
import { tempDir } from "../../testkit/server-process.js";

const run = promisify(execFile);
const DIR = path.resolve("docs/prometheus");
const RULES = path.join(DIR, "tailprobe-rules.yml");
const TESTS = path.join(DIR, "tailprobe-rules.test.yml");
const available = await run("promtool", ["--version"]).then(
  () => true,
  () => false,
);
const inCi = process.env.CI !== undefined && process.env.CI !== "";

const promtool = (args: string[]) =>
  run("promtool", args).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );

describe("docs/prometheus rules", () => {
  it.skipIf(!available && !inCi)("pass promtool check rules and promtool test rules", async () => {
    expect(available, "promtool is not on PATH (.ci/run unpacks it)").toBe(true);
    const check = await promtool(["check", "rules", RULES]);
    expect(check.out).toContain("SUCCESS: 3 rules found");
    expect(check.code).toBe(0);
    const test = await promtool(["test", "rules", TESTS]);
    expect(test.out).toContain("SUCCESS");
    expect(test.code).toBe(0);
  });

  it.skipIf(!available && !inCi)("need their minimum-rate guards: without them the sparse series fire", async () => {
    const dir = tempDir("tailprobe-rules-");
    const unguarded = fs
      .readFileSync(RULES, "utf8")
      // Each guard is the `and` clause closing an expression.
      .replace(/\n\s+and\n\s+sum by \(server, method\) \(rate\([^\n]*\n/g, "\n");
    expect(unguarded).not.toContain(">= 60");
    expect(unguarded).not.toContain(">= 500");
    fs.writeFileSync(path.join(dir, "tailprobe-rules.yml"), unguarded);
    fs.copyFileSync(TESTS, path.join(dir, "tailprobe-rules.test.yml"));
    const test = await promtool(["test", "rules", path.join(dir, "tailprobe-rules.test.yml")]);
    expect(test.code).not.toBe(0);
    expect(test.out).toMatch(/server="C"/);
    expect(test.out).toMatch(/server="D"/);
  });

  it("name only metrics /metrics exposes", () => {
    const exposition = formatMetrics({
      latency: [
        {
          method: "ws",
          target: "A",
          bucketCounts: LATENCY_BUCKETS_S.map(() => 1),
          count: 1,
          sumS: 0.001,
        },
      ],
      outcomes: [{ method: "ws", target: "A", outcome: "ok", count: 1 }],
    });
    const exposed = new Set([...exposition.matchAll(/^(tailprobe_[a-z_]+)[{ ]/gm)].map((m) => m[1]));
    const used = new Set(
      [
        ...fs
          .readFileSync(RULES, "utf8")
          .replace(/^\s*#.*$/gm, "")
          .matchAll(/\b(tailprobe_[a-z_]+)\{|\b(tailprobe_[a-z_]+)\[/g),
      ].map((m) => m[1] ?? m[2]),
    );
    expect(used.size).toBeGreaterThanOrEqual(3);
    for (const name of used) expect(exposed, name).toContain(name);
    // Their labels are the exposition's: server and method, and outcome's values.
    expect(exposition).toContain('method="ws",server="A"');
    for (const outcome of ["ok", "timeout", "error"]) expect(fs.readFileSync(RULES, "utf8")).toContain(outcome);
  });
});
