// The page tells its engine from marks only that engine has, whatever its
// User-Agent says (client/src/probe/engine.ts). The real engines are checked
// in every engine lane (tests/engines/page-load.test.ts); here, each mark and
// their combinations as the three engines and an unknown one show them.
import { describe, expect, it } from "vitest";
import { type EngineMarks, engineFromMarks, WEBKIT_VENDOR } from "../../client/src/probe/engine.js";

const none: EngineMarks = { mozInnerScreenX: false, v8BreakIterator: false, chromeObject: false, vendor: "" };

describe("engine detection", () => {
  it.each([
    [
      "chromium as Chromium shows it",
      { ...none, v8BreakIterator: true, chromeObject: true, vendor: "Google Inc." },
      "chromium",
    ],
    ["chromium without window.chrome (an embedded Blink)", { ...none, v8BreakIterator: true }, "chromium"],
    ["gecko as Firefox shows it", { ...none, mozInnerScreenX: true }, "gecko"],
    [
      "gecko claiming Apple's vendor (a rewritten navigator)",
      { ...none, mozInnerScreenX: true, vendor: WEBKIT_VENDOR },
      "gecko",
    ],
    ["webkit as WebKitGTK and Safari show it", { ...none, vendor: WEBKIT_VENDOR }, "webkit"],
    ["chromium claiming Apple's vendor", { ...none, v8BreakIterator: true, vendor: WEBKIT_VENDOR }, "chromium"],
    ["nothing known", none, undefined],
    ["an unknown vendor", { ...none, vendor: "Example Corp." }, undefined],
  ] as const)("%s", (_name, marks, want) => {
    expect(engineFromMarks(marks)).toBe(want);
  });
});
