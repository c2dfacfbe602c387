// Firefox ESR, Debian's stock binary, through puppeteer-core over WebDriver
// BiDi (Playwright's Firefox needs a patched build that cannot be had here).
//
// Background tabs: Firefox's remote agent sets "recommended" preferences for
// automation unless the profile sets them itself (RecommendedPreferences.sys.mjs
// skips any pref with a user value). Three of them keep a background tab
// closer to a foreground one than in a user's Firefox: focus faked for every
// window, and background content processes kept at normal CPU and main-thread
// priority. The profile sets them back to a user's values, so a tab behind
// another one is throttled as in a user's browser. (Timer clamping of hidden
// tabs, 1 s, happens either way; the tests check it on the page.)
import fs from "node:fs";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { DRIVER_CALL_TIMEOUT_MS_DEFAULT, ENGINE_LAUNCH_TIMEOUT_MS, withDeadline } from "./deadline.js";
import { expressionOf } from "./page-script.js";
import type { EngineOptions, EnginePage, LaunchedEngine } from "./types.js";

export const FIREFOX_PATH = process.env.TAILPROBE_FIREFOX ?? "/usr/bin/firefox-esr";

/** Preferences as a user's Firefox has them, where automation would change them (see above). */
export const FIREFOX_USER_PREFS = {
  "focusmanager.testmode": false,
  "dom.ipc.processPriorityManager.enabled": true,
  "threads.lower_mainthread_priority_in_background.enabled": true,
} as const;

export async function launchFirefoxEngine(options: EngineOptions): Promise<LaunchedEngine> {
  const timeoutMs = options.callTimeoutMs ?? DRIVER_CALL_TIMEOUT_MS_DEFAULT;
  const viewport = options.viewport ?? { width: 1280, height: 800 };
  const browser: Browser = await withDeadline(
    "firefox launch",
    ENGINE_LAUNCH_TIMEOUT_MS,
    puppeteer.launch({
      browser: "firefox",
      executablePath: FIREFOX_PATH,
      headless: true,
      defaultViewport: viewport,
      extraPrefsFirefox: FIREFOX_USER_PREFS,
      // Opening the BiDi session counts too, and takes seconds; each call's own deadline is timeoutMs.
      protocolTimeout: Math.max(timeoutMs, ENGINE_LAUNCH_TIMEOUT_MS),
      timeout: ENGINE_LAUNCH_TIMEOUT_MS,
      ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    }),
  );
  const version = await withDeadline("firefox version", timeoutMs, browser.version());
  return {
    engine: "firefox",
    version,
    async newPage(): Promise<EnginePage> {
      const page = await withDeadline("firefox newPage", timeoutMs, browser.newPage());
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e instanceof Error ? (e.stack ?? e.message) : String(e)));
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      /** The tab put in front of this one while it is hidden. */
      let cover: Page | undefined;
      return {
        goto: async (url) =>
          void (await withDeadline(`firefox goto ${url}`, timeoutMs, page.goto(url, { timeout: timeoutMs }))),
        evaluate: <T>(fn: string | ((arg: never) => unknown), arg?: unknown) =>
          withDeadline("firefox evaluate", timeoutMs, page.evaluate(expressionOf(fn, arg)) as Promise<T>),
        screenshot: async (path) => {
          const png = await withDeadline("firefox screenshot", timeoutMs, page.screenshot({ fullPage: true }));
          fs.writeFileSync(path, png);
        },
        errors: async () => [...errors],
        async setHidden(hidden) {
          if (hidden && cover === undefined) {
            cover = await withDeadline("firefox cover tab", timeoutMs, browser.newPage());
            await withDeadline("firefox bringToFront (cover)", timeoutMs, cover.bringToFront());
          } else if (!hidden && cover !== undefined) {
            await withDeadline("firefox bringToFront", timeoutMs, page.bringToFront());
            await withDeadline("firefox close cover", timeoutMs, cover.close());
            cover = undefined;
          }
        },
        async close() {
          await withDeadline("firefox close cover", timeoutMs, cover?.close() ?? Promise.resolve());
          await withDeadline("firefox page close", timeoutMs, page.close());
        },
      };
    },
    async close() {
      try {
        await withDeadline("firefox close", timeoutMs, browser.close());
      } finally {
        // A browser that did not close in time is not left running.
        const proc = browser.process();
        if (proc !== null && proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      }
    },
  };
}
