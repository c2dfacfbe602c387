// The stress test in the lane's engine (npm run test:firefox, test:webkit):
// the same page runs every phase on loopback, its load from a worker
// (downloads read as they arrive, uploads as ordinary request bodies, which
// Firefox and Safari need: they cannot stream a request), its samples carry
// their phases, and the run's answer has goodput, self probes and a grade.
import { afterAll, describe, expect, it } from "vitest";
import { artifactPath } from "../../testkit/browser.js";
import { startServerProcess, type ServerProcess } from "../../testkit/server-process.js";
import { engineForFile, laneEngine } from "../helpers/engine-lane.js";
import { describeRun, runDurationMs, runStressTest } from "../helpers/stress-run.js";

const TIMINGS = { phaseMs: 6000, idleMs: 6000, cooldownMs: 3000 };
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
});
const browser = engineForFile();

describe(`stress test in ${laneEngine()}`, () => {
  it("runs every phase, reports its goodput and round trips, and tags the samples", {
    timeout: runDurationMs(TIMINGS) + 150_000,
  }, async () => {
    server = await startServerProcess(["--stress-bytes-per-hour", String(2 ** 50)]);
    const page = await browser().newPage();
    const run = await runStressTest(page, server.url, TIMINGS);
    console.log(`${laneEngine()}: ${describeRun(run)}`);
    await page.screenshot(artifactPath(`stress-probe-page-${laneEngine()}.png`));

    expect(run.outcome).toBe("complete");
    expect(run.phases.map((p) => p.name)).toEqual(["idle", "download", "upload", "bidirectional", "cooldown"]);
    const [, download, upload, both] = run.phases;
    expect(download!.downMbps).toBeGreaterThan(20);
    expect(upload!.upMbps).toBeGreaterThan(20);
    expect(both!.downMbps! + both!.upMbps!).toBeGreaterThan(20);
    for (const p of [download!, upload!, both!]) expect(p.self?.count ?? 0, p.name).toBeGreaterThan(3);
    // Every phase has the page's probes and the server's baselines, tagged with it.
    for (const p of run.phases)
      for (const m of ["xhr", "ws", "ping", "tcprtt"])
        expect(p.latency[m]?.count ?? 0, `${m} in ${p.name}`).toBeGreaterThanOrEqual(
          Math.floor((p.end - p.start) / 1000) - 3,
        );
    expect(run.grade).not.toBeNull();
    expect(run.rpm).toBeGreaterThan(0);
    expect(await page.evaluate<string>("document.getElementById('stress-status').textContent")).toMatch(/complete/);
    expect(await page.errors()).toEqual([]);
    await page.close();
  });
});
