// The callback name is echoed into executable JavaScript: only plain identifiers may pass.
import { describe, expect, it } from "vitest";
import { isValidJsonpCallback } from "../../shared/names.js";

describe("JSONP callback names", () => {
  it.each(["cb", "_tp_123", "$x", "__tailprobe_jsonp_17", "A1_$", "x".repeat(64)])("accepts %s", (name) => {
    expect(isValidJsonpCallback(name)).toBe(true);
  });

  it.each([
    "",
    "1abc",
    "alert(1)",
    "a;b",
    "a b",
    "a[0]",
    "x[0]",
    "a.b",
    "tailprobe.cb_17",
    "alert(1)//",
    "a['x']",
    "a..b",
    ".a",
    "a.",
    "a.b.c.d.e",
    "x".repeat(65),
    "function",
    "a.constructor.eval",
    "eval",
    "</script>",
    "a\u2028b",
    "café",
  ])("rejects %j", (name) => {
    expect(isValidJsonpCallback(name)).toBe(false);
  });

  it("rejects values that are not strings", () => {
    for (const v of [null, undefined, 1, ["cb"], { cb: 1 }]) expect(isValidJsonpCallback(v)).toBe(false);
  });
});
