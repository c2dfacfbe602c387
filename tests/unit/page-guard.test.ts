// client/public/page-guard.js gives the page a language every Intl
// constructor accepts, whatever the browser reports: run in a sandbox with
// the browser's navigator.language and languages, then read what the page sees.
// (Browsers: tests/engines/page-load.test.ts, WebKitGTK really reporting "C".)
import fs from "node:fs";
import vm from "node:vm";
import { describe, expect, it } from "vitest";

const GUARD = fs.readFileSync("client/public/page-guard.js", "utf8");

function pageSees(language: string, languages: string[]): { language: string; languages: string[] } {
  class Navigator {
    get language() {
      return language;
    }
    get languages() {
      return languages;
    }
  }
  const navigator = new Navigator();
  const noop = () => {};
  const window = { navigator, addEventListener: noop };
  const context = vm.createContext({ window, navigator, document: { addEventListener: noop }, Intl });
  vm.runInContext(GUARD, context);
  return { language: navigator.language, languages: [...navigator.languages] };
}

const usable = (tag: string) => {
  new Intl.NumberFormat(tag);
  new Intl.DateTimeFormat(tag);
  return true;
};

describe("page guard: a language Intl accepts", () => {
  it.each([
    ["C", ["C"], "en-US"],
    ["", [], "en-US"],
    ["en_US.UTF-8", ["en_US.UTF-8"], "en-US"],
    ["C", ["C", "de-DE", "fr"], "de-DE"],
    ["!!", ["!!", "x"], "en-US"],
  ])("navigator.language %j (languages %j) becomes %j", (language, languages, want) => {
    expect(() => new Intl.NumberFormat(language)).toThrow(RangeError);
    const seen = pageSees(language, languages);
    expect(seen.language).toBe(want);
    expect(usable(seen.language)).toBe(true);
    expect(seen.languages.every(usable)).toBe(true);
    expect(seen.languages[0]).toBe(want);
  });

  it.each(["en-US", "de-DE", "POSIX", "garbage", "zh-Hant-TW"])(
    "a language Intl accepts, %j, is left as it is",
    (tag) => {
      expect(pageSees(tag, [tag, "C"])).toEqual({ language: tag, languages: [tag, "C"] });
    },
  );
});
