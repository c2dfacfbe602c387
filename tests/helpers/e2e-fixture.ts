// What every end-to-end test file sets up the same way: one Chromium for the
// file, and servers stopped after it. Kept apart from browser.ts, which the
// benchmarks import outside vitest.
import { afterAll, beforeAll } from "vitest";
import { launchBrowser, type LaunchedBrowser } from "../../testkit/browser.js";
import { waitFor, type ServerProcess } from "../../testkit/server-process.js";

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

/** Waits until `a` has learned the name of its peer from the peer's /api/config, before a page asks `a` for its servers. */
export async function waitForPeerName(a: ServerProcess, name: string): Promise<void> {
  await waitFor(
    async () => {
      const cfg = (await (await fetch(`${a.url}/api/config`)).json()) as { servers: { name: string }[] };
      return cfg.servers.some((s) => s.name === name) ? true : undefined;
    },
    10_000,
    `${a.url} to learn its peer's name ${name}`,
  );
}
