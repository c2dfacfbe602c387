// docs/security.md's table of what an attacker cannot do names, for each
// row, the tests that check it: each named file must exist and hold a test
// (or suite) whose title contains the quoted words. Every other test file the
// page names must exist too.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const DOC = fs.readFileSync(path.resolve("docs/security.md"), "utf8");
const TABLE_HEAD = "| attack | what stops it | flag / constant | test |";

/** The table's rows: the attack, and the test cell. */
function rows(): { attack: string; tests: string }[] {
  const at = DOC.indexOf(TABLE_HEAD);
  expect(at, "docs/security.md has its table of guarantees").toBeGreaterThanOrEqual(0);
  const table = DOC.slice(at, DOC.indexOf("\n\n", at)).split("\n").slice(2);
  return table.map((row) => {
    const cells = row.slice(2, -2).split(" | ");
    return { attack: cells[0]!, tests: cells.at(-1)! };
  });
}

/** `tests/…/x.test.ts` "words of a test's title" in a cell. */
const REF = /`(tests\/[\w/.-]+\.test\.ts)` "([^"]+)"/g;

/** Titles of the file's tests and suites: the string given to it(…), test(…), describe(…) and their .each(…)(…) forms. */
function titles(source: string): string[] {
  const re = /(?:\b(?:it|test|describe)(?:\.[A-Za-z]+)*|\))\(\s*(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;
  return [...source.matchAll(re)].map((m) => m[2]!);
}

describe("docs/security.md's table of guarantees", () => {
  const all = rows();

  it("has its rows, each naming at least one test", () => {
    expect(all.length).toBeGreaterThan(20);
    for (const r of all) expect([...r.tests.matchAll(REF)].length, r.attack).toBeGreaterThan(0);
  });

  it.each(all.flatMap((r) => [...r.tests.matchAll(REF)].map((m) => [r.attack, m[1]!, m[2]!] as const)))(
    "%s: %s holds a test titled … %s …",
    (_attack, file, words) => {
      expect(fs.existsSync(file), `${file} exists`).toBe(true);
      const found = titles(fs.readFileSync(file, "utf8"));
      expect(found.length, `${file} has tests`).toBeGreaterThan(0);
      expect(
        found.filter((t) => t.includes(words)),
        `a title in ${file} containing "${words}"`,
      ).not.toEqual([]);
    },
  );

  it("names no test file that does not exist, anywhere on the page", () => {
    const named = new Set([...DOC.matchAll(/`((?:tests\/[\w/.-]+\/)?[\w.-]+\.test\.ts)`/g)].map((m) => m[1]!));
    expect(named.size).toBeGreaterThan(10);
    const everyTest = ["tests/unit", "tests/integration", "tests/e2e"].flatMap((d) =>
      fs.readdirSync(d).map((f) => `${d}/${f}`),
    );
    for (const name of named)
      expect(
        everyTest.some((f) => f === name || f.endsWith(`/${name}`)),
        `${name} is a test file`,
      ).toBe(true);
  });
});
