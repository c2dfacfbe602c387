// The probe page is left open for days on any machine: its bundle must not
// carry the histogram page's charting library. Reads the built pages and
// follows every script they load, statically or dynamically.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const DIST = path.resolve("dist/client");
/** uPlot's root class name, present in any build that includes it. */
const UPLOT_MARKER = '"uplot"';

function scriptsOf(page: string): string[] {
  const html = fs.readFileSync(path.join(DIST, page), "utf8");
  const start = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const seen = new Set<string>();
  const queue = [...start];
  while (queue.length > 0) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    seen.add(url);
    const code = fs.readFileSync(path.join(DIST, url), "utf8");
    // Static imports, dynamic imports and worker URLs between chunks are all "./name.js".
    for (const m of code.matchAll(/["'`]\.\/([\w.-]+\.js)["'`]/g)) queue.push(`/assets/${m[1]}`);
  }
  return [...seen];
}

const loads = (page: string) => scriptsOf(page).some((f) => fs.readFileSync(path.join(DIST, f), "utf8").includes(UPLOT_MARKER));

describe("bundle split", () => {
  it("the histogram page loads uPlot and the probe page does not", () => {
    expect(fs.existsSync(path.join(DIST, "index.html")), "run npm run build first").toBe(true);
    expect(scriptsOf("index.html").length).toBeGreaterThan(0);
    expect(loads("histogram.html")).toBe(true);
    expect(loads("index.html")).toBe(false);
  });
});
