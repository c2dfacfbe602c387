// Chromium through playwright-core (testkit/browser.ts): the lane every other
// end-to-end test already runs in.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { CHROMIUM_PATH, launchBrowser } from "../browser.js";
import { DRIVER_CALL_TIMEOUT_MS_DEFAULT, ENGINE_LAUNCH_TIMEOUT_MS, withDeadline } from "./deadline.js";
import { expressionOf } from "./page-script.js";
import type { EngineOptions, EnginePage, LaunchedEngine } from "./types.js";

export async function launchChromiumEngine(options: EngineOptions): Promise<LaunchedEngine> {
  const timeoutMs = options.callTimeoutMs ?? DRIVER_CALL_TIMEOUT_MS_DEFAULT;
  const browser = await withDeadline(
    "chromium launch",
    ENGINE_LAUNCH_TIMEOUT_MS,
    launchBrowser({
      ...(options.viewport ? { viewport: options.viewport } : {}),
      ...(options.env ? { env: options.env } : {}),
    }),
  );
  const version = execFileSync(CHROMIUM_PATH, ["--version"], {
    encoding: "utf8",
    timeout: timeoutMs,
    stdio: ["ignore", "pipe", "ignore"],
  }).trim();
  return {
    engine: "chromium",
    version,
    async newPage(): Promise<EnginePage> {
      const page = await withDeadline("chromium newPage", timeoutMs, browser.context.newPage());
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.stack ?? e.message));
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      return {
        goto: async (url) =>
          void (await withDeadline(`chromium goto ${url}`, timeoutMs, page.goto(url, { timeout: timeoutMs }))),
        evaluate: <T>(fn: string | ((arg: never) => unknown), arg?: unknown) =>
          withDeadline("chromium evaluate", timeoutMs, page.evaluate(expressionOf(fn, arg)) as Promise<T>),
        screenshot: async (path) => {
          const png = await withDeadline("chromium screenshot", timeoutMs, page.screenshot({ fullPage: true }));
          fs.writeFileSync(path, png);
        },
        errors: async () => [...errors],
        setHidden: () =>
          Promise.reject(
            new Error("chromium: Playwright keeps every page visible; hide a tab with tests/helpers/cdp-browser.ts"),
          ),
        close: () => withDeadline("chromium page close", timeoutMs, page.close()),
      };
    },
    close: () => withDeadline("chromium close", timeoutMs, browser.close()),
  };
}
