// What a hostile client gets from the HTTP paths: a 4xx with a code, never a
// server path, never a cacheable error, never a callback that is not one name.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/app.js";
import { startInProcess } from "../helpers/in-process.js";
import { tempDir } from "../../testkit/server-process.js";

let server: RunningServer;
beforeAll(async () => {
  // A built page tree of our own, so the static file server is really asked for missing files.
  const clientDir = tempDir();
  fs.mkdirSync(path.join(clientDir, "assets"));
  fs.writeFileSync(path.join(clientDir, "index.html"), "<!doctype html><title>t</title>");
  fs.writeFileSync(path.join(clientDir, "assets", "real.js"), "1");
  server = await startInProcess([], [], { clientDir });
});
afterAll(async () => {
  await server.close();
});

describe("hostile JSONP callbacks", () => {
  it.each([
    ["alert(1)//", "?callback=alert(1)%2F%2F"],
    ["a.b", "?callback=a.b"],
    ["x[0]", "?callback=x%5B0%5D"],
    ["a repeated parameter", "?callback=a&callback=b"],
    ["200 characters", `?callback=${"a".repeat(200)}`],
    ["a constructor chain", "?callback=a.constructor.constructor"],
  ])("answers 400 BAD_CALLBACK for %s", async (_what, query) => {
    const res = await fetch(`${server.url}/jsonp${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ code: "BAD_CALLBACK" });
  });

  it("still answers the page's own callback names", async () => {
    const res = await fetch(`${server.url}/jsonp?callback=__tailprobe_jsonp_17`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("__tailprobe_jsonp_17(");
  });
});

describe("error answers", () => {
  it.each(["/assets/nope.js", "/nope", "/assets/%2e%2e/%2e%2e/etc/passwd", "/.env", "/assets/..%2Findex.html"])(
    "%s: 404 NOT_FOUND naming no server path",
    async (path) => {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ code: "NOT_FOUND", error: "no such path" });
      expect(text).not.toMatch(/\/(tmp|work|home|dist|client)\b/);
      expect(res.headers.get("cache-control")).toBe("no-store");
    },
  );

  it("a bad percent-encoding is 400 with a fixed message", async () => {
    const res = await fetch(`${server.url}/assets/%E0%A4%A`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(JSON.stringify(await res.json())).not.toMatch(/\//);
  });

  it.each(["/api/stats?from=x", "/api/histogram?bins=1", "/api/clients?x=1", "/api/races?from=2&to=1"])(
    "a refused query (%s) is never cached",
    async (path) => {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(400);
      expect(res.headers.get("cache-control")).toBe("no-store");
    },
  );
});
