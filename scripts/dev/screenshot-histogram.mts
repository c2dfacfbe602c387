// Regenerates docs/img/histogram.png: a real server, twenty minutes of
// synthetic samples with a spike on xhr→A, the histogram page in Chromium.
// Run after `npm run build`: npx tsx scripts/dev/screenshot-histogram.mts
import { launchBrowser } from "../../testkit/browser.js";
import { startServerProcess } from "../../testkit/server-process.js";
import { ingest, syntheticSamples } from "../../testkit/synthetic-latency.js";

const SECONDS = 20 * 60;
const startMs = Math.floor((Date.now() - (SECONDS + 30) * 1000) / 60_000) * 60_000;
const spike = { fromMs: startMs + 12 * 60_000, toMs: startMs + 12 * 60_000 + 45_000 };
// Loading synthetic data is a lab run, and its B samples need a server B that A knows.
const peerB = await startServerProcess(["--name", "B"]);
const server = await startServerProcess(["--name", "A", "--no-rate-limit", "--peer", `B=${peerB.url}`]);
const browser = await launchBrowser({ viewport: { width: 1280, height: 1320 }, colorScheme: "light" });
try {
  await ingest(server.url, syntheticSamples({ startMs, seconds: SECONDS, spike, seed: 11 }));
  const page = await browser.context.newPage();
  const range = `range=custom&from=${startMs - 60_000}&to=${startMs + (SECONDS + 60) * 1000}`;
  await page.goto(`${server.url}/histogram?${range}`);
  await page.waitForFunction(
    () =>
      (window as unknown as { tailprobeHistogram?: { idle: boolean; completed: number } }).tailprobeHistogram?.idle ===
        true && (window as unknown as { tailprobeHistogram: { completed: number } }).tailprobeHistogram.completed > 0,
  );
  await page.waitForTimeout(500);
  await page.screenshot({
    path: process.env.SHOT_FULL ? "/tmp/cc/full.png" : "docs/img/histogram.png",
    fullPage: Boolean(process.env.SHOT_FULL),
  });
  console.log("wrote docs/img/histogram.png");
} finally {
  await browser.close();
  await server.stop();
  await peerB.stop();
}
