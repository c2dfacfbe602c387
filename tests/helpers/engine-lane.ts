// The engine lanes (npm run test:firefox, npm run test:webkit): the files
// under tests/engines/ run in the engine named by TAILPROBE_ENGINE, one
// browser per file, closed after the file's tests with the servers they started.
// A file added there joins every lane: the stress test of the stress-test
// issue (branch stress) goes in as tests/engines/stress.test.ts, launching its
// browser with engineForFile() and naming the engine with laneEngine().
import { afterAll, beforeAll } from "vitest";
import { type Engine, type EngineOptions, isEngine, launchEngine, type LaunchedEngine } from "../../testkit/engines.js";

/** The lane's engine: TAILPROBE_ENGINE, or Chromium when run by hand without it. */
export function laneEngine(): Engine {
  const name = process.env.TAILPROBE_ENGINE ?? "chromium";
  if (!isEngine(name)) throw new Error(`TAILPROBE_ENGINE=${name}: expected chromium, firefox or webkit`);
  return name;
}

/** One browser of the lane's engine for a test file; `after` runs once it is closed (stop servers there). */
export function engineForFile(
  after: () => Promise<void> | void = () => {},
  options: EngineOptions = {},
): () => LaunchedEngine {
  let browser: LaunchedEngine | undefined;
  beforeAll(async () => {
    browser = await launchEngine(laneEngine(), options);
    console.log(`engine lane: ${browser.engine}, ${browser.version}`);
  });
  afterAll(async () => {
    try {
      await browser?.close();
    } finally {
      await after();
    }
  });
  return () => {
    if (browser === undefined) throw new Error("the browser is launched in beforeAll: use it inside a test");
    return browser;
  };
}
