// When the kernel's TCP RTT cannot be read, the server says so once and in
// its status; ping and the other baselines are unaffected.
import { describe, expect, it } from "vitest";
import { createBaselines } from "../../server/baseline/baselines.js";
import { ssReader } from "../../server/baseline/tcp-info.js";

describe("kernel TCP RTT availability", () => {
  it("a missing ss is reported with the package that provides it", async () => {
    const a = await ssReader("/nonexistent/ss").check();
    expect(a).toEqual({ available: false, reason: expect.stringMatching(/\/nonexistent\/ss not found: .*apt-get install iproute2/) });
  });

  it("the real ss on this Linux machine is found", async () => {
    expect(await ssReader().check()).toEqual({ available: true });
  });

  it("an unavailable reader is logged once and shown in the status, beside the other baselines", async () => {
    const log: string[] = [];
    const b = createBaselines({
      serverName: "S",
      ping: false,
      nowMs: Date.now,
      log: (l) => void log.push(l),
      tcpInfo: {
        check: () => Promise.resolve({ available: false, reason: "needs Linux's ss (iproute2) to read TCP_INFO; this is darwin" }),
        read: () => Promise.reject(new Error("must not be read when unavailable")),
      },
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(b.status()).toEqual({
      ping: { available: false, reason: "turned off with --no-ping" },
      wsping: { available: true },
      tcprtt: { available: false, reason: "needs Linux's ss (iproute2) to read TCP_INFO; this is darwin" },
    });
    expect(log).toEqual(["tailprobe: kernel TCP RTT baseline unavailable: needs Linux's ss (iproute2) to read TCP_INFO; this is darwin; every other method keeps working"]);
    b.stop();
  });
});
