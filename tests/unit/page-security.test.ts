// The pages' Content-Security-Policy as a string: which origins connect-src
// names for the home server's and the peers' stress-test load paths, and that
// --no-stress names none of the home server's (tests/e2e/csp.test.ts checks
// what a browser does with it).
import { describe, expect, it } from "vitest";
import { contentSecurityPolicy } from "../../server/page-security.js";

const connectSrc = (policy: string) =>
  policy
    .split("; ")
    .find((d) => d.startsWith("connect-src "))!
    .split(" ")
    .slice(1);

describe("Content-Security-Policy", () => {
  const peers = [{ url: "http://b.example:8080" }, { url: "http://b.example:8081" }];

  it("names this server's two load ports and any port of a peer's host, once each", () => {
    expect(connectSrc(contentSecurityPolicy(peers, "a.example:8080", false, [9001, 9002]))).toEqual([
      "'self'",
      "ws://a.example:8080",
      "http://b.example:8080",
      "http://b.example:8081",
      "ws://b.example:8080",
      "ws://b.example:8081",
      "http://a.example:9001",
      "http://a.example:9002",
      "http://b.example:*",
    ]);
  });

  it("with --no-stress names no load port of this server, and never any port of its own host", () => {
    const src = connectSrc(contentSecurityPolicy([], "a.example:8080", true, null));
    expect(src).toEqual(["'self'", "wss://a.example:8080"]);
    expect(src.some((s) => s.endsWith(":*"))).toBe(false);
  });

  it("a Host header that is not a plain host adds nothing of its own", () => {
    expect(connectSrc(contentSecurityPolicy([], "evil.example/x y", false, [9001, 9002]))).toEqual(["'self'"]);
  });
});
