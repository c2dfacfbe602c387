// The docs as reference, held to the code: README's command-line block names
// exactly the flags the CLI defines (both directions), every repository path
// and every link the docs name exists (with the heading a link's #anchor
// points at), and the two pages with a size budget keep it.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_FLAGS } from "../../server/cli/demo-options.js";
import { SERVE_FLAGS } from "../../server/cli/options.js";

const ROOT = path.resolve(".");
const SKIP_DIRS = new Set([".git", "node_modules", "dist", "data", "test-artifacts", "coverage", ".vite"]);

/** Every file and folder of the tree, relative to the root with "/" separators. */
function walk(dir = ROOT, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(e.name)) continue;
    const full = path.join(dir, e.name);
    out.push(path.relative(ROOT, full).split(path.sep).join("/"));
    if (e.isDirectory()) walk(full, out);
  }
  return out;
}

const TREE = walk();
const DOCS = ["README.md", ...TREE.filter((f) => f.startsWith("docs/") && f.endsWith(".md"))];
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), "utf8");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, "");
  for (const m of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** A placeholder such as bench/NAME.ts or raw_samples_YYYYMMDD, not a path. */
const isPlaceholder = (token: string) => /\b[A-Z]{3,}\b|[*…<>{}$]/.test(token);

/**
 * Paths rooted at a top-level folder, in prose or code: each must exist as a
 * file or folder. A file name or two folders deep, so that prose such as
 * "client/server pairs" is not read as a path.
 */
function rootedPaths(text: string): string[] {
  const re = /(?<![\w/.-])(?:server|client|shared|bench|tests|testkit|scripts|bin|docs|\.ci)\/[\w./-]*\w/g;
  return [...text.matchAll(re)]
    .map((m) => m[0])
    .filter((p) => !isPlaceholder(p) && (/\.\w+$/.test(p) || p.split("/").length > 2));
}

/** Backticked file names (`raw-block.ts`, `api/ingest.ts`): each must end some path of the tree. */
function namedFiles(markdown: string): string[] {
  return [...markdown.matchAll(/`([\w./-]+\.(?:ts|mts|js|md|sql|html|json|py|css|png))`/g)]
    .map((m) => m[1]!)
    .filter((f) => !isPlaceholder(f) && !f.startsWith("/") && !f.includes("://"));
}

/** Markdown link targets outside the web: [text](target) and ![alt](target). */
function links(markdown: string): string[] {
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t));
}

describe("README's command-line block and the CLI", () => {
  const readme = read("README.md");
  const section = readme.slice(readme.indexOf("## Command line"));
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const flagsOf = (line: string) => [...line.matchAll(/--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!);
  const serveText = block.slice(block.indexOf("tailprobe serve"), block.indexOf("tailprobe demo"));
  const demoText = block.slice(block.indexOf("tailprobe demo"));
  const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();
  const defined = (flags: object) => Object.keys(flags).filter((f) => f !== "help");

  it("has a serve and a demo line", () => {
    expect(serveText).toMatch(/^tailprobe serve /);
    expect(demoText).toMatch(/^tailprobe demo /);
  });
  it("names every flag of `tailprobe serve`, and no other", () => {
    expect(sorted(flagsOf(serveText))).toEqual(sorted(defined(SERVE_FLAGS)));
  });
  it("names every flag of `tailprobe demo`, and no other", () => {
    expect(sorted(flagsOf(demoText))).toEqual(sorted(defined(DEMO_FLAGS)));
  });
});

describe("the docs' references to the tree", () => {
  const files = new Set(TREE);
  const endsSomePath = (name: string) => TREE.some((f) => f === name || f.endsWith(`/${name}`));

  for (const doc of [...DOCS, ".ci/run"]) {
    it(`${doc}: every path, file name and link exists`, () => {
      const text = read(doc);
      const missing = rootedPaths(text).filter((p) => !files.has(p.replace(/\/$/, "")));
      if (doc.endsWith(".md")) {
        missing.push(...namedFiles(text).filter((f) => !endsSomePath(f)));
        for (const target of links(text)) {
          const [file, anchor] = target.split("#") as [string, string | undefined];
          const resolved =
            file === "" ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), decodeURI(file)));
          if (!files.has(resolved.replace(/\/$/, ""))) {
            missing.push(target);
            continue;
          }
          if (anchor !== undefined && resolved.endsWith(".md") && !anchorsOf(read(resolved)).has(anchor))
            missing.push(target);
        }
      }
      expect(missing).toEqual([]);
    });
  }
});

describe("size budgets", () => {
  it("README.md stays within 12 KB", () => {
    expect(fs.statSync("README.md").size).toBeLessThanOrEqual(12_000);
  });
  it("docs/performance.md stays within 15 KB", () => {
    expect(fs.statSync("docs/performance.md").size).toBeLessThanOrEqual(15_000);
  });
});
