// WebKitGTK's MiniBrowser through WebKitWebDriver (W3C WebDriver over HTTP),
// under a virtual X display: it has no headless mode. Playwright's WebKit
// needs a patched build that cannot be had here; this is Debian's stock one
// (packages webkit2gtk-driver and xvfb).
//
// WebDriver has one current window per session: each page remembers its
// window handle, and the commands of all pages go one at a time, switching
// to the page's window first.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { freePort } from "../free-port.js";
import { DRIVER_CALL_TIMEOUT_MS_DEFAULT, ENGINE_LAUNCH_TIMEOUT_MS } from "./deadline.js";
import { ERROR_HOOK_EXPRESSION, expressionOf, READ_ERRORS_EXPRESSION } from "./page-script.js";
import type { EngineOptions, EnginePage, LaunchedEngine } from "./types.js";
import { driverReady, newSession, WebDriverError, type WebDriverSession } from "./webdriver.js";
import { startXvfb } from "./xvfb.js";

export const WEBKIT_DRIVER_PATH = process.env.TAILPROBE_WEBKIT_DRIVER ?? "/usr/bin/WebKitWebDriver";
/** Debian's webkit2gtk-4.1 MiniBrowser (dpkg -S MiniBrowser). */
export const MINIBROWSER_PATH =
  process.env.TAILPROBE_MINIBROWSER ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

/** How long WebKitWebDriver may take to answer /status after it starts (ms). */
const DRIVER_START_TIMEOUT_MS = 10_000;
const DRIVER_POLL_MS = 50;

type ExecResult = { ok: true; value: unknown } | { ok: false; error: string };

export async function launchWebKitEngine(options: EngineOptions): Promise<LaunchedEngine> {
  const timeoutMs = options.callTimeoutMs ?? DRIVER_CALL_TIMEOUT_MS_DEFAULT;
  const viewport = options.viewport ?? { width: 1280, height: 800 };
  const xvfb = await startXvfb();
  const port = await freePort();
  const driver = spawn(WEBKIT_DRIVER_PATH, [`--port=${port}`], {
    // MiniBrowser is the driver's child and inherits this environment.
    env: { ...process.env, ...options.env, DISPLAY: xvfb.display },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let driverOutput = "";
  const keep = (d: Buffer) => (driverOutput = (driverOutput + d.toString()).slice(-4000));
  driver.stdout!.on("data", keep);
  driver.stderr!.on("data", keep);
  const driverExited = new Promise<void>((resolve) => driver.once("exit", () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;

  let session: WebDriverSession | undefined;
  const shutdown = async () => {
    if (session !== undefined) await session.command("DELETE", "", undefined, timeoutMs).catch(() => undefined);
    session = undefined;
    if (driver.exitCode === null && driver.signalCode === null) driver.kill("SIGTERM");
    const killer = setTimeout(() => driver.kill("SIGKILL"), 5000);
    await driverExited;
    clearTimeout(killer);
    await xvfb.stop();
  };
  try {
    const startedAt = Date.now();
    while (!(await driverReady(baseUrl, DRIVER_POLL_MS * 10))) {
      if (driver.exitCode !== null || Date.now() - startedAt > DRIVER_START_TIMEOUT_MS)
        throw new Error(`WebKitWebDriver did not answer on port ${port}:\n${driverOutput}`);
      await new Promise((r) => setTimeout(r, DRIVER_POLL_MS));
    }
    session = await newSession(
      baseUrl,
      {
        browserName: "MiniBrowser",
        "webkitgtk:browserOptions": { binary: MINIBROWSER_PATH, args: ["--automation"] },
        timeouts: { script: timeoutMs, pageLoad: timeoutMs, implicit: 0 },
      },
      ENGINE_LAUNCH_TIMEOUT_MS,
    );
  } catch (err) {
    await shutdown();
    throw err;
  }
  const wd = session;
  const version = `MiniBrowser (WebKitGTK) ${String(wd.capabilities.browserVersion ?? "?")}`;

  // One command at a time, in the window of the page that sent it.
  let queue: Promise<unknown> = Promise.resolve();
  let currentHandle = await wd.command<string>("GET", "/window");
  /** Windows with a page in them; closing the last window would end the session, so it is left open, blank. */
  const open = new Set<string>();
  /** A window the session has with no page in it (the first one, or the last one closed). */
  let spare: string | undefined = currentHandle;
  function inWindow<T>(handle: string, work: () => Promise<T>): Promise<T> {
    const run = async () => {
      if (handle !== currentHandle) {
        await wd.command("POST", "/window", { handle });
        currentHandle = handle;
      }
      return work();
    };
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  }

  const sizeWindow = (handle: string) =>
    inWindow(handle, () => wd.command("POST", "/window/rect", { x: 0, y: 0, ...viewport }));

  return {
    engine: "webkit",
    version,
    async newPage(): Promise<EnginePage> {
      let handle: string;
      if (spare !== undefined) {
        handle = spare;
        spare = undefined;
      } else {
        // WebDriver opens a window from an open current one.
        const from = open.has(currentHandle) ? currentHandle : [...open][0]!;
        const opened = await inWindow(from, () =>
          wd.command<{ handle: string }>("POST", "/window/new", { type: "window" }),
        );
        handle = opened.handle;
      }
      open.add(handle);
      await sizeWindow(handle);
      const run = <T>(fn: string | ((arg: never) => unknown), arg?: unknown) =>
        inWindow(handle, async () => {
          // WebDriver's own script is not subject to the page's CSP; the
          // expression is placed in it as source text, never passed to eval.
          const r = await wd.command<ExecResult>("POST", "/execute/async", {
            script: `const done = arguments[arguments.length - 1];
              Promise.resolve().then(() => (${expressionOf(fn, arg)}))
                .then((value) => done({ ok: true, value: value === undefined ? null : value }),
                      (e) => done({ ok: false, error: e && e.stack ? e.message + "\\n" + e.stack : String(e) }));`,
            args: [],
          });
          if (!r.ok) throw new WebDriverError("execute", "javascript error", r.error);
          return r.value as T;
        });
      return {
        async goto(url) {
          await inWindow(handle, () => wd.command("POST", "/url", { url }));
          await run(ERROR_HOOK_EXPRESSION);
        },
        evaluate: run,
        async screenshot(path) {
          const base64 = await inWindow(handle, () => wd.command<string>("GET", "/screenshot"));
          fs.writeFileSync(path, Buffer.from(base64, "base64"));
        },
        errors: () => run<string[]>(READ_ERRORS_EXPRESSION),
        async setHidden(hidden) {
          // Minimised, the page is hidden (document.visibilityState) even with no window manager;
          // setting the window's rect restores it (WebDriver: "restore the window").
          if (hidden) await inWindow(handle, () => wd.command("POST", "/window/minimize", {}));
          else await sizeWindow(handle);
        },
        async close() {
          open.delete(handle);
          if (open.size === 0) {
            await inWindow(handle, () => wd.command("POST", "/url", { url: "about:blank" }));
            spare = handle;
            return;
          }
          await inWindow(handle, () => wd.command("DELETE", "/window"));
          // No window is current now: the next command switches to its own.
          currentHandle = "";
        },
      };
    },
    close: shutdown,
  };
}
