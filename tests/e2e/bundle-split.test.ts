// The probe page is left open for days on any machine: its bundle must not
// carry the histogram page's charting library, and it stays small (issue 12:
// ≤ 30 KB of JavaScript gzipped). Reads the built pages and follows every
// script they load, statically or dynamically.
// @lane waiting: reads the built bundle's sizes; no browser.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DIST_CLIENT, gzippedScriptBytes, scriptsOf } from "../../testkit/bundle.js";

/** uPlot's root class name, present in any build that includes it. */
const UPLOT_MARKER = '"uplot"';
/** The probe page's JavaScript budget, gzipped (bytes). */
const PROBE_PAGE_GZIP_BYTES_MAX = 30 * 1024;

const loads = (page: string) =>
  scriptsOf(page).some((f) => fs.readFileSync(path.join(DIST_CLIENT, f), "utf8").includes(UPLOT_MARKER));

describe("bundle split", () => {
  it("the histogram page loads uPlot and the probe page does not", () => {
    expect(fs.existsSync(path.join(DIST_CLIENT, "index.html")), "run npm run build first").toBe(true);
    expect(scriptsOf("index.html").length).toBeGreaterThan(0);
    expect(loads("histogram.html")).toBe(true);
    expect(loads("index.html")).toBe(false);
  });

  it("the probe page's JavaScript, clock worker included, fits its gzipped budget", () => {
    const scripts = scriptsOf("index.html");
    expect(scripts.some((s) => s.includes("clock.worker"))).toBe(true);
    expect(gzippedScriptBytes("index.html")).toBeLessThanOrEqual(PROBE_PAGE_GZIP_BYTES_MAX);
  });
});
