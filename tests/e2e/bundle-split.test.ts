// The probe page is left open for days on any machine: its bundle must not
// carry the histogram page's charting library, and what it loads at start
// stays small (issue 12: ≤ 30 KB of JavaScript gzipped). The stress test
// (client/src/probe/stress/) is loaded on demand, when a test begins: its
// runner and load worker are chunks of their own that the start set never
// names. Reads the built pages and follows every script they load.
// @lane waiting: reads the built bundle's sizes; no browser.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DIST_CLIENT, gzippedScriptBytes, pageScripts, scriptsOf } from "../../testkit/bundle.js";

/** uPlot's root class name, present in any build that includes it. */
const UPLOT_MARKER = '"uplot"';
/** The probe page's JavaScript budget at start, gzipped (bytes). */
const PROBE_PAGE_START_GZIP_BYTES_MAX = 30 * 1024;
/** The stress test's chunks, as Vite names them after their modules. */
const STRESS_RUNNER = /\/runner-[\w-]+\.js$/;
const LOAD_WORKER = /\/load\.worker-[\w-]+\.js$/;

const loads = (page: string) =>
  scriptsOf(page).some((f) => fs.readFileSync(path.join(DIST_CLIENT, f), "utf8").includes(UPLOT_MARKER));

describe("bundle split", () => {
  it("the histogram page loads uPlot and the probe page does not, at start or on demand", () => {
    expect(fs.existsSync(path.join(DIST_CLIENT, "index.html")), "run npm run build first").toBe(true);
    const probe = pageScripts("index.html");
    expect(probe.start.length).toBeGreaterThan(0);
    expect(probe.onDemand.length).toBeGreaterThan(0);
    expect(loads("histogram.html")).toBe(true);
    expect(loads("index.html")).toBe(false);
  });

  it("the probe page's JavaScript at start, clock worker included, fits its gzipped budget", () => {
    const { start } = pageScripts("index.html");
    expect(start.some((s) => s.includes("clock.worker"))).toBe(true);
    expect(gzippedScriptBytes("index.html").startBytes).toBeLessThanOrEqual(PROBE_PAGE_START_GZIP_BYTES_MAX);
  });

  it("the stress test's runner and load worker load on demand, never at start", () => {
    const { start, onDemand } = pageScripts("index.html");
    expect(onDemand.filter((s) => STRESS_RUNNER.test(s))).toHaveLength(1);
    expect(onDemand.filter((s) => LOAD_WORKER.test(s))).toHaveLength(1);
    expect(start.filter((s) => STRESS_RUNNER.test(s) || LOAD_WORKER.test(s))).toEqual([]);
    expect(gzippedScriptBytes("index.html").onDemandBytes).toBeGreaterThan(0);
  });
});
