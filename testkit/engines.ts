// One small interface over three browsers, so a test names the engine, not
// the driver: Chromium through playwright-core (testkit/browser.ts), Firefox
// ESR through puppeteer-core over WebDriver BiDi, WebKitGTK's MiniBrowser
// through WebKitWebDriver (W3C WebDriver over HTTP) under Xvfb. Every driver
// call carries a deadline (engines/deadline.ts).
//
//   const browser = await launchEngine("firefox");
//   const page = await browser.newPage();
//   await page.goto(url);
//   const sent = await page.evaluate<number>("window.tailprobe.sent");
import { launchChromiumEngine } from "./engines/chromium.js";
import { launchFirefoxEngine } from "./engines/firefox.js";
import type { Engine, EngineOptions, LaunchedEngine } from "./engines/types.js";
import { launchWebKitEngine } from "./engines/webkit.js";

export { DRIVER_CALL_TIMEOUT_MS_DEFAULT, DriverTimeoutError } from "./engines/deadline.js";
export type { Engine, EngineOptions, EnginePage, LaunchedEngine } from "./engines/types.js";

export const ENGINES: readonly Engine[] = ["chromium", "firefox", "webkit"];

export function isEngine(name: string): name is Engine {
  return (ENGINES as readonly string[]).includes(name);
}

export function launchEngine(engine: Engine, options: EngineOptions = {}): Promise<LaunchedEngine> {
  switch (engine) {
    case "chromium":
      return launchChromiumEngine(options);
    case "firefox":
      return launchFirefoxEngine(options);
    case "webkit":
      return launchWebKitEngine(options);
  }
}
