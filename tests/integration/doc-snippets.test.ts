// The pandas and R examples of docs/api.md, run as written against a real
// server's CSV export (only the host is changed), with a few lines appended
// that print what they computed: the same counts and nearest-rank
// percentiles as /api/stats, and R's Wilcoxon test the same U and p-value as
// /api/compare. Python is Debian's (python3-pandas); R is r-base-core. Both
// are installed by .ci/run: in CI a missing one fails, locally it skips
// with a message saying what to install.
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/app.js";
import { EXPORT_COLUMNS } from "../../server/query/sample-export.js";
import type { CompareResponse } from "../../shared/contract/index.js";
import type { StatsResponse } from "../../shared/contract/index.js";
import { startInProcess } from "../helpers/in-process.js";
import { mulberry32 } from "../../shared/prng.js";
import { testPython } from "../helpers/python.js";
import { tempDir } from "../../testkit/server-process.js";

const DOC = fs.readFileSync(path.resolve("docs/api.md"), "utf8");
const DOC_HOST = "http://127.0.0.1:8080";
/** Separates the snippet's own output from the lines the test appends. */
const MARK = "@@tailprobe@@";

/** The first fenced block of `lang` after the heading `after` in docs/api.md. */
function docBlock(after: string, lang: string): string {
  const start = DOC.indexOf(after);
  expect(start, `docs/api.md has '${after}'`).toBeGreaterThanOrEqual(0);
  const m = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(DOC.slice(start));
  expect(m, `a \`\`\`${lang} block after '${after}'`).not.toBeNull();
  return m![1]!;
}

function has(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const rscript = has("Rscript", ["--version"]);
const inCi = process.env.CI !== undefined && process.env.CI !== "";

let server: RunningServer;
const T0 = Date.now() - 900_000;
/** 100 ok samples each for ws and xhr to A (untied µs values), plus failures the snippets must leave out. */
const N = 100;
/** Ok latencies posted, by "method target". */
const okMs = new Map<string, number[]>();

beforeAll(async () => {
  server = await startInProcess(["--peer", "B=http://127.0.0.1:9"]);
  const r = mulberry32(404);
  const samples: object[] = [];
  let seq = 0;
  for (let k = 0; k < N; k++) {
    const t = T0 + k * 1000;
    samples.push(
      {
        seq: seq++,
        t,
        method: "ws",
        target: "A",
        ms: Math.round((1 + 3 * r() + (r() < 0.03 ? 40 : 0)) * 1000) / 1000,
        outcome: "ok",
      },
      {
        seq: seq++,
        t: t + 100,
        method: "xhr",
        target: "A",
        ms: Math.round((2 + 4 * r() + (r() < 0.03 ? 60 : 0)) * 1000) / 1000,
        outcome: "ok",
      },
      {
        seq: seq++,
        t: t + 200,
        method: "xhr",
        target: "B",
        ms: Math.round((5 + 4 * r()) * 1000) / 1000,
        outcome: "ok",
      },
    );
  }
  samples.push(
    { seq: seq++, t: T0 + 50, method: "ws", target: "A", ms: 5000, outcome: "timeout" },
    { seq: seq++, t: T0 + 60, method: "xhr", target: "A", ms: null, outcome: "error", reason: "http-5xx" },
    { seq: seq++, t: T0 + 70, method: "ws", target: "A", ms: null, outcome: "skipped", reason: "frozen" },
  );
  for (const x of samples as { method: string; target: string; ms: number | null; outcome: string }[])
    if (x.outcome === "ok")
      okMs.set(`${x.method} ${x.target}`, [...(okMs.get(`${x.method} ${x.target}`) ?? []), x.ms!]);
  const res = await fetch(`${server.url}/api/samples`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ clientId: "c-doc-snippets", sessionId: "s-doc-snippets", samples }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
});
afterAll(async () => {
  await server.close();
});

const stats = async (q: string) => ((await (await fetch(`${server.url}/api/stats?${q}`)).json()) as StatsResponse).rows;

/**
 * Writes a snippet with the doc's host replaced and `tail` appended, runs it
 * (asynchronously: the server answering its download is in this process), and
 * returns what follows MARK.
 */
async function runSnippet(cmd: string, ext: string, code: string, tail: string): Promise<string> {
  expect(code).toContain(DOC_HOST);
  const file = path.join(tempDir(), `snippet.${ext}`);
  fs.writeFileSync(file, `${code.replaceAll(DOC_HOST, server.url)}\n${tail}\n`);
  const { stdout: out } = await promisify(execFile)(cmd, [file], { encoding: "utf8", timeout: 60_000 });
  const at = out.indexOf(MARK);
  expect(at, `the snippet ran to its end; it printed:\n${out}`).toBeGreaterThanOrEqual(0);
  return out.slice(at + MARK.length).trim();
}

/** Runs a shell snippet with the doc's host replaced; resolves with its standard output. */
async function runShell(code: string): Promise<string> {
  expect(code).toContain(DOC_HOST);
  const { stdout } = await promisify(execFile)("sh", ["-c", code.replaceAll(DOC_HOST, server.url)], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return stdout;
}

describe("docs/api.md examples against a real export", () => {
  it("the export's columns are the ones docs/api.md lists, in order", () => {
    const para = DOC.slice(DOC.indexOf("Columns, named as in the [sample batch]"));
    const list = para.slice(para.indexOf("):") + 2, para.indexOf("\n\n"));
    expect([...list.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1])).toEqual([...EXPORT_COLUMNS]);
  });

  it("pandas: count and nearest-rank p99 per series as /api/stats, median as pandas defines it", async () => {
    const code = docBlock("### GET /api/samples.csv", "python");
    const out = await runSnippet(
      testPython(),
      "py",
      code,
      [
        "import json",
        `agg = ok.groupby(["method", "target"])["ms"].agg(["count", "median", p99])`,
        `print(${JSON.stringify(MARK)} + json.dumps({f"{m} {t}": [int(r["count"]), float(r["median"]), float(r["p99"])] for (m, t), r in agg.iterrows()}))`,
      ].join("\n"),
    );
    const got = JSON.parse(out) as Record<string, [number, number, number]>;
    // The snippet asks for xhr and ws, every target.
    const rows = await stats(`from=${T0 - 1000}&method=xhr,ws`);
    expect(Object.keys(got).sort()).toEqual(rows.map((r) => `${r.method} ${r.target}`).sort());
    for (const r of rows) {
      const [count, median, p99] = got[`${r.method} ${r.target}`]!;
      expect([count, p99]).toEqual([r.count, r.p99]);
      // pandas' median averages the two middle values of an even count.
      const sorted = [...okMs.get(`${r.method} ${r.target}`)!].sort((a, b) => a - b);
      expect(median).toBeCloseTo((sorted[N / 2 - 1]! + sorted[N / 2]!) / 2, 9);
    }
  });

  it("jq: the NDJSON example prints the failed and skipped samples, nothing else", async () => {
    const code = docBlock("NDJSON reads line by line", "sh");
    const printed = (await runShell(code)).trim().split("\n");
    const failed = printed.map((l) => JSON.parse(l) as { seq: number; outcome: string });
    expect(failed.map((r) => r.outcome).sort()).toEqual(["error", "skipped", "timeout"]);
    expect(failed.every((r) => Number.isInteger(r.seq))).toBe(true);
  });

  it("pandas: read_json(lines=True) reads one row per sample with the export's columns", async () => {
    const code = docBlock("NDJSON reads line by line", "python");
    const out = await runSnippet(
      testPython(),
      "py",
      code,
      [
        "import json",
        `print(${JSON.stringify(MARK)} + json.dumps({"rows": len(df), "columns": list(df.columns), "failed": int((df["outcome"] != "ok").sum())}))`,
      ].join("\n"),
    );
    const got = JSON.parse(out) as { rows: number; columns: string[]; failed: number };
    expect(got).toEqual({ rows: 3 * N + 3, columns: [...EXPORT_COLUMNS], failed: 3 });
  });

  it.skipIf(!rscript && !inCi)(
    rscript
      ? "R: type-1 quantiles as /api/stats, and wilcox.test as /api/compare's Mann–Whitney"
      : "R (skipped: Rscript not found; apt-get install r-base-core, as .ci/run does)",
    async () => {
      expect(rscript, "Rscript is required in CI: .ci/run installs r-base-core").toBe(true);
      const code = docBlock("### GET /api/samples.csv", "r");
      const out = await runSnippet(
        "Rscript",
        "R",
        code,
        [
          'q <- quantile(ok$ms[ok$method == "ws"], c(0.5, 0.9, 0.99, 0.999), type = 1)',
          'w <- wilcox.test(ok$ms[ok$method == "ws"], ok$ms[ok$method == "xhr"], conf.int = TRUE)',
          `cat(${JSON.stringify(MARK)}, nrow(df), sprintf("%.17g", unname(q)), sprintf("%.17g", w$statistic), sprintf("%.17g", w$p.value), "\\n")`,
        ].join("\n"),
      );
      const [rows, p50, p90, p99, p999, u, p] = out.split(/\s+/).map(Number);
      // Every exported sample of xhr and ws to A, failures included (the snippet filters them).
      expect(rows).toBe(2 * N + 3);
      const [ws] = await stats(`from=${T0 - 1000}&method=ws&target=A`);
      expect([p50, p90, p99, p999]).toEqual([ws!.p50, ws!.p90, ws!.p99, ws!.p999]);
      const c = (await (
        await fetch(`${server.url}/api/compare?from=${T0 - 1000}&a=ws@A&b=xhr@A`)
      ).json()) as CompareResponse;
      expect(c.comparison!.rank.method).toBe("asymptotic");
      expect(u).toBe(c.comparison!.rank.u);
      expect(Math.abs(p! - c.comparison!.rank.p) / p!).toBeLessThan(1e-6);
    },
  );
});
