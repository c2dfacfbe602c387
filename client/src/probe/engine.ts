// Which engine runs this page, told from what only that engine has rather
// than from the User-Agent string: every engine's says "like Gecko", WebKit's
// and Chromium's both say "AppleWebKit", and users and extensions rewrite it.
//   Gecko:    window.mozInnerScreenX, a Gecko-only property of the window;
//   Chromium: Intl.v8BreakIterator, which only V8 has (or window.chrome);
//   WebKit:   navigator.vendor "Apple Computer, Inc." with neither of those
//             (JavaScriptCore has no V8 extensions).
// The engines' clocks differ (5 µs in Chromium, 20 µs in Firefox and WebKit
// when cross-origin isolated): each session says which one timed its samples.
import type { BrowserEngine } from "../../../shared/contract/samples.js";

/** What the page can see of its engine. */
export interface EngineMarks {
  mozInnerScreenX: boolean;
  v8BreakIterator: boolean;
  chromeObject: boolean;
  vendor: string;
}

export const WEBKIT_VENDOR = "Apple Computer, Inc.";

export function engineFromMarks(m: EngineMarks): BrowserEngine | undefined {
  if (m.mozInnerScreenX) return "gecko";
  if (m.v8BreakIterator || m.chromeObject) return "chromium";
  if (m.vendor === WEBKIT_VENDOR) return "webkit";
  return undefined;
}

export function pageEngineMarks(): EngineMarks {
  return {
    mozInnerScreenX: "mozInnerScreenX" in window,
    v8BreakIterator: "v8BreakIterator" in Intl,
    chromeObject: "chrome" in window,
    vendor: navigator.vendor,
  };
}

export function detectEngine(): BrowserEngine | undefined {
  return engineFromMarks(pageEngineMarks());
}
