// What a built page loads: every script it references, followed through
// static imports, dynamic imports and worker URLs, and their gzipped size.
// Shared by tests/e2e/bundle-split.test.ts and bench/bare-page.ts.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

export const DIST_CLIENT = path.resolve("dist/client");

/** URL paths (/assets/…) of every script `page` (e.g. "index.html") loads. */
export function scriptsOf(page: string, dist = DIST_CLIENT): string[] {
  const html = fs.readFileSync(path.join(dist, page), "utf8");
  // Hashed chunks under /assets, and classic scripts at the root (client/public/page-guard.js).
  const start = [...html.matchAll(/(?:src|href)="(\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const seen = new Set<string>();
  const queue = [...start];
  while (queue.length > 0) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    seen.add(url);
    const code = fs.readFileSync(path.join(dist, url), "utf8");
    // Chunks name each other as "./name.js" (imports) or "/assets/name.js" (worker URLs).
    for (const m of code.matchAll(/["'`](?:\.|\/assets)\/([\w.-]+\.js)["'`]/g)) queue.push(`/assets/${m[1]}`);
  }
  return [...seen];
}

/** Sum of each script's gzip size (level 9, as a server would send it), bytes. */
export function gzippedScriptBytes(page: string, dist = DIST_CLIENT): number {
  let total = 0;
  for (const url of scriptsOf(page, dist))
    total += zlib.gzipSync(fs.readFileSync(path.join(dist, url)), { level: 9 }).length;
  return total;
}
