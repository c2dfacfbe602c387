// Every driver call has a deadline (testkit/engines/deadline.ts): a call that
// never answers fails, naming itself, once its time is up. WebKit's calls are
// HTTP requests to WebKitWebDriver (testkit/engines/webdriver.ts): here a real
// server on loopback accepts the request and never answers.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DriverTimeoutError, withDeadline } from "../../testkit/engines/deadline.js";
import { newSession, WebDriverError } from "../../testkit/engines/webdriver.js";

let silent: http.Server;
let silentUrl: string;
let answering: http.Server;
let answeringUrl: string;

beforeAll(async () => {
  silent = http.createServer(() => {
    // Never answers.
  });
  answering = http.createServer((req, res) => {
    res.writeHead(req.url === "/session" ? 200 : 404, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify(
        req.url === "/session"
          ? { value: { sessionId: "s1", capabilities: { browserName: "fake" } } }
          : { value: { error: "unknown command", message: `no ${req.url}` } },
      ),
    );
  });
  for (const s of [silent, answering]) await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  answeringUrl = `http://127.0.0.1:${(answering.address() as AddressInfo).port}`;
});
afterAll(() => {
  silent.closeAllConnections();
  answering.closeAllConnections();
  silent.close();
  answering.close();
});

describe("driver deadlines", () => {
  it("withDeadline fails a call that never settles at its deadline, naming it", async () => {
    const t0 = Date.now();
    const never = new Promise<never>(() => {});
    const err = await withDeadline("firefox evaluate", 200, never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DriverTimeoutError);
    expect((err as DriverTimeoutError).code).toBe("DRIVER_TIMEOUT");
    expect((err as Error).message).toBe("firefox evaluate: no answer within 200 ms");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("withDeadline passes a call that settles in time through, value or error", async () => {
    expect(await withDeadline("quick", 1000, Promise.resolve(42))).toBe(42);
    await expect(withDeadline("refused", 1000, Promise.reject(new Error("no")))).rejects.toThrow("no");
  });

  it("a WebDriver command to a driver that never answers fails at its deadline", async () => {
    const t0 = Date.now();
    const err = await newSession(silentUrl, { browserName: "MiniBrowser" }, 300).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebDriverError);
    expect((err as WebDriverError).code).toBe("timeout");
    expect((err as Error).message).toBe("POST /session: timeout: no answer within 300 ms");
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it("a WebDriver error answer carries the driver's code; a session's commands have the same deadline", async () => {
    const session = await newSession(answeringUrl, { browserName: "fake" }, 1000);
    expect(session.id).toBe("s1");
    const err = await session.command("GET", "/url").catch((e: unknown) => e);
    expect((err as WebDriverError).code).toBe("unknown command");
    expect((err as Error).message).toBe("GET /session/s1/url: unknown command: no /session/s1/url");
  });
});
