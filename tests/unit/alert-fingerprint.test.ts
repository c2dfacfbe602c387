// An alert's fingerprint is Alertmanager's: 64-bit FNV-1a over the sorted
// label names and values, 0xff after each. Checked here against the same
// hash written plainly with BigInt, on random label sets (the Alertmanager
// test checks it against Alertmanager's own answer).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../../server/alerts/alert.js";

function reference(labels: Record<string, string>): string {
  const prime = 0x100000001b3n;
  const mask = (1n << 64n) - 1n;
  let h = 0xcbf29ce484222325n;
  const bytes = (s: string) => [...new TextEncoder().encode(s)];
  for (const name of Object.keys(labels).sort())
    for (const b of [...bytes(name), 0xff, ...bytes(labels[name]!), 0xff]) h = ((h ^ BigInt(b)) * prime) & mask;
  return h.toString(16).padStart(16, "0");
}

describe("fingerprint", () => {
  it("equals FNV-1a 64 written with BigInt, for any labels", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.string({ unit: "grapheme" })), (labels) => {
        expect(fingerprint(labels)).toBe(reference(labels));
      }),
      { numRuns: 500 },
    );
  });

  it("ignores label order and sees any change", () => {
    const a = fingerprint({ alertname: "TargetDown", target: "B" });
    expect(fingerprint({ target: "B", alertname: "TargetDown" })).toBe(a);
    expect(fingerprint({ alertname: "TargetDown", target: "C" })).not.toBe(a);
    // The separator keeps name/value boundaries apart.
    expect(fingerprint({ ab: "c" })).not.toBe(fingerprint({ a: "bc" }));
    expect(fingerprint({})).toBe("cbf29ce484222325");
  });
});
