// What every end-to-end test file sets up the same way: one Chromium for the
// file, and servers stopped after it. Kept apart from browser.ts, which the
// benchmarks import outside vitest.
import { afterAll, beforeAll } from "vitest";
import { launchBrowser, type LaunchedBrowser } from "../../testkit/browser.js";

/**
 * For a test file: one Chromium launched before its tests and closed after
 * them, then `after` runs (stopping the servers the tests started, even when
 * a test failed). Returns a getter: the browser exists once beforeAll ran.
 */
export function browserForFile(
  after: () => Promise<void> | void = () => {},
  options: Parameters<typeof launchBrowser>[0] = {},
): () => LaunchedBrowser {
  let browser: LaunchedBrowser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser(options);
  });
  afterAll(async () => {
    await browser?.close();
    await after();
  });
  return () => {
    if (browser === undefined) throw new Error("the browser is launched in beforeAll: use it inside a test");
    return browser;
  };
}
