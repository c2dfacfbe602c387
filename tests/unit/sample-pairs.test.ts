// docs/api.md's Reasons table says, per reason, which methods and outcomes
// carry it: the same pairs the contract accepts (REASON_USES), row for row.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { SAMPLE_REASONS } from "../../shared/contract/reasons.js";
import { reasonPairs } from "../../shared/contract/sample-pairs.js";

const DOC = fs.readFileSync("docs/api.md", "utf8");

/** "`xhr` `jsonp`: error; `best2`: ok, timeout, error": methods with the same outcomes grouped, in METHODS order. */
function usesText(reason: (typeof SAMPLE_REASONS)[number]): string {
  const groups: { methods: string[]; outcomes: string }[] = [];
  const byMethod = new Map<string, string[]>();
  for (const { method, outcome } of reasonPairs(reason))
    byMethod.set(method, [...(byMethod.get(method) ?? []), outcome]);
  for (const [method, outcomes] of byMethod) {
    const last = groups[groups.length - 1];
    if (last?.outcomes === outcomes.join(", ")) last.methods.push(method);
    else groups.push({ methods: [method], outcomes: outcomes.join(", ") });
  }
  return groups.map((g) => `${g.methods.map((m) => `\`${m}\``).join(" ")}: ${g.outcomes}`).join("; ");
}

describe("docs/api.md's Reasons table", () => {
  const table = DOC.slice(DOC.indexOf("| reason | carried by (method: outcome) | meaning |"));
  const rows = new Map(
    table
      .slice(0, table.indexOf("\n\n"))
      .split("\n")
      .slice(2)
      .map((row) => row.split(" | ").map((cell) => cell.replace(/^\| /, "")))
      .map(([reason, uses]) => [reason!.replaceAll("`", ""), uses!] as const),
  );

  it("has one row per reason of the vocabulary", () => {
    expect([...rows.keys()].sort()).toEqual([...SAMPLE_REASONS].sort());
  });

  it.each(SAMPLE_REASONS.map((r) => [r]))("%s: the methods and outcomes the contract accepts it with", (reason) => {
    expect(reasonPairs(reason).length).toBeGreaterThan(0);
    expect(rows.get(reason)).toBe(usesText(reason));
  });
});
