// The lanes npm test runs (scripts/lanes.js): every test file runs in exactly
// one lane (a tests/engines/ file in both engine lanes, and in a Chromium lane
// if it names one), a new file joins its folder's strictest lane, a marker
// with a typo is refused rather than dropping its file, the lanes that time
// latencies wait for the ones that load the machine, and scripts/cpu-time.js
// counts the CPU of what it ran and passes its exit status on.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CPU_LINE_PREFIX } from "../../scripts/cpu-time.js";
import { type Lane, planLanes, ROOT } from "../../scripts/lanes.js";

const FOLDERS = ["tests/unit", "tests/integration", "tests/e2e", "tests/engines"];
const lane = (lanes: Lane[], name: string) => lanes.find((l) => l.name === name)!;
const runs = (lanes: Lane[]) => lanes.flatMap((l) => l.files.map((f) => [l.name, f] as const));
/** The strict Chromium files, in both of their lanes. */
const strict = (lanes: Lane[]) => [...lane(lanes, "chromium").files, ...lane(lanes, "chromium-2").files].sort();

let scratch: string | undefined;
afterEach(() => {
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A checkout of test files only: path → contents. */
function tree(files: Record<string, string>): string {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "tailprobe-lanes-"));
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(scratch, f)), { recursive: true });
    fs.writeFileSync(path.join(scratch, f), text);
  }
  return scratch;
}

describe("the lanes of this checkout", () => {
  const lanes = planLanes();

  it("run every test file once, and tests/engines/ in both engines", () => {
    const all = FOLDERS.flatMap((d) =>
      fs
        .readdirSync(path.join(ROOT, d))
        .filter((f) => f.endsWith(".test.ts"))
        .map((f) => `${d}/${f}`),
    );
    const inChromium = (f: string) =>
      runs(lanes).filter(([l, g]) => g === f && !["firefox", "webkit"].includes(l)).length;
    for (const f of all) {
      if (f.startsWith("tests/engines/")) {
        expect(lane(lanes, "firefox").files, f).toContain(f);
        expect(lane(lanes, "webkit").files, f).toContain(f);
        expect(inChromium(f), f).toBeLessThanOrEqual(1);
      } else expect(inChromium(f), f).toBe(1);
    }
    expect(new Set(runs(lanes).map(([, f]) => f))).toEqual(new Set(all));
  });

  it("start the lanes that time latencies after every lane that loads the machine", () => {
    for (const l of ["chromium", "chromium-2"])
      expect(lane(lanes, l).after, l).toEqual(
        expect.arrayContaining(["unit-integration", "busy", "firefox", "webkit"]),
      );
    expect(lane(lanes, "alone").after).toBe("all");
    for (const l of ["unit-integration", "busy", "firefox", "webkit", "waiting"])
      expect(lane(lanes, l).after, l).toEqual(["build"]);
    // The latency-timing files stay out of the lanes that run beside other work.
    for (const f of [
      "report-flag",
      "toxiproxy-shift",
      "outage",
      "hang",
      "alerts-outage",
      "health-outage",
      "health-slow-tab",
    ])
      expect(strict(lanes)).toContain(`tests/e2e/${f}.test.ts`);
    // The two halves differ by at most one file.
    expect(Math.abs(lane(lanes, "chromium").files.length - lane(lanes, "chromium-2").files.length)).toBeLessThanOrEqual(
      1,
    );
    // The engine file Chromium runs too, beside the others: it asserts page states, not timings.
    expect(lane(lanes, "waiting").files).toContain("tests/engines/page-load.test.ts");
    expect(lane(lanes, "alone").files).toEqual([
      "tests/integration/slow-loris.test.ts",
      "tests/e2e/stress-bottleneck.test.ts",
      "tests/e2e/stress-loopback.test.ts",
    ]);
  });

  it("run the Chromium lanes one file at a time, and unit-integration two at a time", () => {
    for (const l of ["waiting", "chromium", "chromium-2", "alone", "firefox", "webkit"])
      expect(lane(lanes, l).steps[0]!.argv, l).toContain("--fileParallelism=false");
    expect(lane(lanes, "unit-integration").steps[0]!.argv).not.toContain("--fileParallelism=false");
    expect(lane(lanes, "firefox").steps[0]!.env).toEqual({ TAILPROBE_ENGINE: "firefox" });
    expect(lane(lanes, "waiting").steps[0]!.env).toEqual({ TAILPROBE_ENGINE: "chromium" });
  });
});

describe("a file's lane", () => {
  it("is its folder's strictest without a marker, the one its marker names with one", () => {
    const root = tree({
      "tests/e2e/new-latency.test.ts": "// times something\nimport {} from 'vitest';\n",
      "tests/e2e/new-wait.test.ts": "// waits\n// @lane waiting: counts only\nimport {} from 'vitest';\n",
      "tests/integration/new-alone.test.ts": "// @lane alone: compares phases\n",
      "tests/unit/plain.test.ts": "",
      "tests/engines/page.test.ts": "// @lane chromium: in Chromium too\n",
      "tests/engines/only-engines.test.ts": "// nothing\n",
    });
    const lanes = planLanes(root);
    expect(strict(lanes)).toEqual(["tests/e2e/new-latency.test.ts", "tests/engines/page.test.ts"]);
    expect(lane(lanes, "waiting").files).toEqual(["tests/e2e/new-wait.test.ts"]);
    expect(lane(lanes, "alone").files).toEqual(["tests/integration/new-alone.test.ts"]);
    expect(lane(lanes, "unit-integration").files).toEqual(["tests/unit/plain.test.ts"]);
    expect(lane(lanes, "firefox").files).toEqual(["tests/engines/only-engines.test.ts", "tests/engines/page.test.ts"]);
    expect(lane(lanes, "busy").steps).toEqual([]);
  });

  it("is refused when its marker names no lane it may join", () => {
    expect(() => planLanes(tree({ "tests/e2e/typo.test.ts": "// @lane wating: typo\n" }))).toThrow(
      /typo\.test\.ts: @lane wating/,
    );
    expect(() => planLanes(tree({ "tests/engines/x.test.ts": "// @lane busy: not a Chromium lane\n" }))).toThrow(
      /x\.test\.ts: @lane busy/,
    );
  });
});

describe("scripts/cpu-time.js", () => {
  const cpuTime = path.join(ROOT, "scripts", "cpu-time.js");
  const cpuOf = (stdout: string) =>
    JSON.parse(
      stdout
        .split("\n")
        .find((l) => l.startsWith(CPU_LINE_PREFIX))!
        .slice(CPU_LINE_PREFIX.length),
    ).cpuS as number | null;

  it("counts the CPU of what it ran and passes its exit status on", { timeout: 20_000 }, () => {
    // The loop spins until it has used 600 ms of CPU by its own count, not of wall time: on a
    // loaded machine 600 ms of wall time held as little as a third of that.
    const spin = "const t = process.cpuUsage(); while (process.cpuUsage(t).user < 600_000) {} process.exit(3)";
    const busy = spawnSync(process.execPath, [cpuTime, process.execPath, "-e", spin], { encoding: "utf8" });
    expect(busy.status).toBe(3);
    expect(cpuOf(busy.stdout)).toBeGreaterThanOrEqual(0.55);
    const idle = spawnSync(process.execPath, [cpuTime, "sleep", "0.6"], { encoding: "utf8" });
    expect(idle.status).toBe(0);
    expect(cpuOf(idle.stdout)).toBeLessThan(0.2);
  });
});
