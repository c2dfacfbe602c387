// What a test may ask of a page in any engine. Kept apart from engines.ts so
// each driver's file can implement it without importing the others.

export type Engine = "chromium" | "firefox" | "webkit";

export interface EngineOptions {
  /** Variables added to the browser's environment, e.g. { LC_ALL: "C.UTF-8" } for a C locale. */
  env?: Record<string, string>;
  /** Page size in CSS pixels (WebKit: the window's). Default 1280 × 800. */
  viewport?: { width: number; height: number };
  /** How long any one driver call may take before it fails (ms). Default DRIVER_CALL_TIMEOUT_MS_DEFAULT. */
  callTimeoutMs?: number;
}

export interface EnginePage {
  /** Navigates and waits for the load event. */
  goto(url: string): Promise<void>;
  /**
   * An expression (it may be an IIFE or evaluate to a promise), or a function
   * called with `arg`; either way its value comes back as JSON. Functions are
   * sent as source text: they must not close over anything of the test's.
   */
  evaluate<T>(expression: string): Promise<T>;
  evaluate<T, A = undefined>(fn: (arg: A) => T | Promise<T>, arg?: A): Promise<T>;
  /** A PNG of the page (Chromium and Firefox: the full page; WebKit: the viewport). */
  screenshot(path: string): Promise<void>;
  /**
   * The page's uncaught errors, unhandled rejections and console errors so far.
   * Chromium and Firefox report them from their protocols from the first
   * script on; WebKit's driver has no console endpoint, so they are hooked in
   * the page after each load, and tailprobe's own pages record those of their
   * loading themselves (window.tailprobeErrors, client/public/page-guard.js).
   */
  errors(): Promise<string[]>;
  /**
   * Hides the page as a user would, or shows it again. Firefox: another tab
   * in front of it; WebKit: its window minimised. Chromium under Playwright
   * cannot (Playwright keeps every page visible): tests/helpers/cdp-browser.ts.
   */
  setHidden(hidden: boolean): Promise<void>;
  close(): Promise<void>;
}

export interface LaunchedEngine {
  engine: Engine;
  /** The browser's name and version as its driver reports them. */
  version: string;
  newPage(): Promise<EnginePage>;
  close(): Promise<void>;
}
