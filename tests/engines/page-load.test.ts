// Every page starts in every engine, or says why it did not: never an
// endless "loading…" (client/public/page-guard.js).
//
// Real: the histogram page in a browser whose locale is C.UTF-8 (Debian's
// default in containers). WebKitGTK then reports navigator.language "C", no
// BCP 47 tag, on which uPlot's module threw a RangeError as it was evaluated;
// Firefox and Chromium report "en-US" under the same locale, and the test says
// which language the engine itself reported.
// Planted: faults in the files a real server serves (a copy of the built
// pages): an entry module that throws as it is evaluated, and one that is
// missing (404). The page must show the error in place of its loading texts.
// @lane waiting: runs in Chromium too (beside the Firefox and WebKit lanes); it asserts page states and
// texts on stored synthetic samples, not how fast.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { artifactPath } from "../../testkit/browser.js";
import { DIST_CLIENT } from "../../testkit/bundle.js";
import type { EnginePage } from "../../testkit/engines.js";
import { tempDir, waitFor } from "../../testkit/server-process.js";
import { ingest, syntheticSamples } from "../../testkit/synthetic-latency.js";
import { engineForFile, laneEngine } from "../helpers/engine-lane.js";
import { startInProcess } from "../helpers/in-process.js";

const C_LOCALE = { LANG: "C.UTF-8", LC_ALL: "C.UTF-8" };
/** What the page should detect in each lane (client/src/probe/engine.ts). */
const PAGE_ENGINE = { chromium: "chromium", firefox: "gecko", webkit: "webkit" } as const;
const SECONDS = 120;

type Server = Awaited<ReturnType<typeof startInProcess>>;
let server: Server;
let broken: Server;
let brokenDir: string;

/** The entry module of a built page: its <script type="module" src>. */
function entryOf(dir: string, page: string): string {
  const html = fs.readFileSync(path.join(dir, page), "utf8");
  const m = /<script type="module"[^>]* src="\/([^"]+)"/.exec(html);
  if (!m) throw new Error(`no module script in ${page}`);
  return m[1]!;
}

beforeAll(async () => {
  expect(fs.existsSync(path.join(DIST_CLIENT, "histogram.html")), "run npm run build first").toBe(true);
  server = await startInProcess(["--name", "A", "--no-rate-limit"], [], { clientDir: DIST_CLIENT });
  const startMs = Math.floor((Date.now() - (SECONDS + 20) * 1000) / 1000) * 1000;
  const samples = syntheticSamples({ startMs, seconds: SECONDS, spike: { fromMs: 0, toMs: 0 } }).filter(
    (s) => s.target === "A",
  );
  expect(await ingest(server.url, samples)).toBe(samples.length);
  brokenDir = path.join(tempDir("tailprobe-broken-pages-"), "client");
  fs.cpSync(DIST_CLIENT, brokenDir, { recursive: true });
  broken = await startInProcess(["--name", "A"], [], { clientDir: brokenDir });
});

const browser = engineForFile(
  async () => {
    await server?.close();
    await broken?.close();
  },
  { env: C_LOCALE },
);
afterAll(() => fs.rmSync(path.dirname(brokenDir), { recursive: true, force: true }));

const text = (page: EnginePage, selector: string) =>
  page.evaluate((s: string) => document.querySelector(s)?.textContent ?? null, selector);

describe(`pages start or say why, in ${laneEngine()}`, () => {
  it("the histogram page renders with a C locale", async () => {
    const page = await browser().newPage();
    await page.goto(`${server.url}/histogram?range=15m`);
    const rows = await waitFor(
      async () => {
        const r = await page.evaluate(() =>
          Array.from(document.querySelectorAll<HTMLTableRowElement>("#stats-rows tr[data-method]")).map(
            (tr) => `${tr.dataset.method} ${tr.dataset.target}`,
          ),
        );
        const updated = await text(page, "#updated");
        return r.length >= 4 && updated?.startsWith("updated ") ? r : undefined;
      },
      20_000,
      "the histogram page's table rows and its 'updated' time",
    );
    expect(rows).toEqual(expect.arrayContaining(["xhr A", "jsonp A", "ws A", "ping A"]));
    expect(await text(page, "#page-error")).toBeNull();
    const languages = await page.evaluate(() => ({
      // The engine's own value, from Navigator.prototype (the guard may shadow it on the instance).
      engine: Object.getOwnPropertyDescriptor(Navigator.prototype, "language")!.get!.call(navigator) as string,
      page: navigator.language,
    }));
    if (laneEngine() === "webkit") expect(languages.engine, "WebKitGTK's own language under C.UTF-8").toBe("C");
    expect(() => new Intl.NumberFormat(languages.page)).not.toThrow();
    expect(await page.errors()).toEqual([]);
    await page.screenshot(artifactPath(`histogram-c-locale-${laneEngine()}.png`));
    console.log(
      `${laneEngine()}: real C.UTF-8 locale; the engine reported navigator.language ${JSON.stringify(languages.engine)}, ` +
        `the page used ${JSON.stringify(languages.page)}`,
    );
    await page.close();
  });

  it("the probe page tells its engine and measures its clock", async () => {
    const page = await browser().newPage();
    await page.goto(`${server.url}/`);
    const facts = await waitFor(
      () =>
        page
          .evaluate<{ engine: string | null; resolutionMs: number | null; isolated: boolean } | null>(
            "window.tailprobe ? { engine: window.tailprobe.engine ?? null, resolutionMs: window.tailprobe.timerResolutionMs ?? null, isolated: crossOriginIsolated } : null",
          )
          .then((f) => f ?? undefined),
      15_000,
      "window.tailprobe",
    );
    expect(facts.engine).toBe(PAGE_ENGINE[laneEngine()]);
    expect(facts.isolated).toBe(true);
    // Cross-origin isolated: 5 µs in Chromium, 20 µs in Firefox and WebKit (docs/engines.md).
    expect(facts.resolutionMs).toBeGreaterThan(0);
    expect(facts.resolutionMs).toBeLessThanOrEqual(0.1);
    console.log(`${laneEngine()}: the page detected ${facts.engine}, clock step ${facts.resolutionMs} ms (real)`);
    await page.close();
  });

  // Each case plants its fault in the copy and the copy is restored after it.
  // The hashed assets are cached for a year, so a missing module is planted as
  // a page naming one that never existed rather than by deleting a cached one.
  const planted = [
    {
      name: "an entry module that throws as it is evaluated",
      page: "histogram.html",
      url: "/histogram",
      plant: (entry: string) =>
        fs.writeFileSync(path.join(brokenDir, entry), 'throw new RangeError("planted: evaluation failed");\n'),
      shows: /This page could not start: RangeError: planted: evaluation failed/,
    },
    {
      name: "an entry module that is not there (404)",
      page: "histogram.html",
      url: "/histogram",
      plant: (entry: string) => {
        const html = path.join(brokenDir, "histogram.html");
        fs.writeFileSync(html, fs.readFileSync(html, "utf8").replace(`/${entry}`, "/assets/planted-missing.js"));
      },
      shows: /This page could not start: could not load http:\/\/[^ ]+\/assets\/planted-missing\.js/,
    },
    {
      name: "the probe page's entry module throwing",
      page: "index.html",
      url: "/",
      plant: (entry: string) =>
        fs.writeFileSync(path.join(brokenDir, entry), 'throw new Error("planted: probe page broken");\n'),
      shows: /This page could not start: Error: planted: probe page broken/,
    },
  ];
  for (const p of planted) {
    it(`shows the error of ${p.name} instead of loading forever (planted)`, async () => {
      const entry = entryOf(DIST_CLIENT, p.page);
      p.plant(entry);
      const page = await browser().newPage();
      try {
        await page.goto(`${broken.url}${p.url}`);
        const shown = await waitFor(
          async () => (await text(page, "#page-error")) ?? undefined,
          10_000,
          "the page's error note",
        );
        expect(shown).toMatch(p.shows);
        const loading = await page.evaluate(() =>
          Array.from(document.querySelectorAll("[data-loading]")).map((el) => el.textContent),
        );
        expect(loading.length).toBeGreaterThan(0);
        expect(loading.every((t) => t === "not loaded")).toBe(true);
        await page.screenshot(artifactPath(`page-error-${laneEngine()}-${p.page.replace(".html", "")}.png`));
      } finally {
        for (const f of [p.page, entry]) fs.copyFileSync(path.join(DIST_CLIENT, f), path.join(brokenDir, f));
        await page.close();
      }
    });
  }
});
