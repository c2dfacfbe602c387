// What a built page loads, and when: the scripts it loads at start (those its
// HTML names, what they import statically, and the workers they start) apart
// from those it loads on demand (a dynamic import, and what only that chunk
// names), with their gzipped sizes. A tab left open for days holds the first;
// the second only once someone asks for it (the stress test).
// Shared by tests/e2e/bundle-split.test.ts and bench/bare-page.ts.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

export const DIST_CLIENT = path.resolve("dist/client");

/** A page's scripts as URL paths (/assets/…, or /page-guard.js at the root), by when they load. */
export interface PageScripts {
  /** Loaded with the page: its HTML's scripts, their static imports and worker URLs, transitively. */
  start: string[];
  /** Loaded only through a dynamic import(), with everything they reference that is not loaded at start. */
  onDemand: string[];
}

/**
 * Chunks name each other as "./name.js" (imports; `import("./name.js")` when
 * dynamic) or "/assets/name.js" (worker URLs). Group 1 is set for a dynamic import.
 */
const CHUNK_REF = /(import\(\s*)?["'`](?:\.|\/assets)\/([\w.-]+\.js)["'`]/g;

/** Every script reachable from `roots`; the dynamic imports met on the way are left in `dynamic` when `followDynamic` is false. */
function reach(roots: string[], dist: string, followDynamic: boolean, dynamic: Set<string>): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    seen.add(url);
    const code = fs.readFileSync(path.join(dist, url), "utf8");
    for (const m of code.matchAll(CHUNK_REF)) {
      const ref = `/assets/${m[2]}`;
      if (m[1] !== undefined && !followDynamic) dynamic.add(ref);
      else queue.push(ref);
    }
  }
  return seen;
}

/** The scripts `page` (e.g. "index.html") loads at start and on demand. */
export function pageScripts(page: string, dist = DIST_CLIENT): PageScripts {
  const html = fs.readFileSync(path.join(dist, page), "utf8");
  // Hashed chunks under /assets (script src, modulepreload href), and classic scripts at the root (page-guard.js).
  const roots = [...html.matchAll(/(?:src|href)="(\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const dynamic = new Set<string>();
  const start = reach(roots, dist, false, dynamic);
  const later = reach([...dynamic], dist, true, new Set());
  return { start: [...start], onDemand: [...later].filter((s) => !start.has(s)) };
}

/** Every script `page` may ever load, at start or on demand. */
export function scriptsOf(page: string, dist = DIST_CLIENT): string[] {
  const { start, onDemand } = pageScripts(page, dist);
  return [...start, ...onDemand];
}

/** Sum of the scripts' gzip sizes (level 9, as a server would send them), bytes. */
export function gzippedBytes(scripts: readonly string[], dist = DIST_CLIENT): number {
  let total = 0;
  for (const url of scripts) total += zlib.gzipSync(fs.readFileSync(path.join(dist, url)), { level: 9 }).length;
  return total;
}

/** What `page` costs gzipped (bytes): at start, and on demand beside it. */
export function gzippedScriptBytes(page: string, dist = DIST_CLIENT): { startBytes: number; onDemandBytes: number } {
  const { start, onDemand } = pageScripts(page, dist);
  return { startBytes: gzippedBytes(start, dist), onDemandBytes: gzippedBytes(onDemand, dist) };
}
