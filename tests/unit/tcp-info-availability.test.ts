// When the kernel's TCP RTT cannot be read, the server says so once and in
// its status; ping and the other baselines are unaffected.
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { BASELINE_INTERVAL_MS_MIN, createBaselines } from "../../server/baseline/baselines.js";
import { ssReader } from "../../server/baseline/tcp-info.js";
import type { WsClient } from "../../server/echo/ws-echo.js";
import { waitFor } from "../../testkit/server-process.js";

describe("kernel TCP RTT availability", () => {
  it("a missing ss is reported with the package that provides it", async () => {
    const a = await ssReader("/nonexistent/ss").check();
    expect(a).toEqual({
      available: false,
      code: "not-installed",
      reason: expect.stringMatching(/\/nonexistent\/ss not found: .*apt-get install iproute2/),
    });
  });

  it("the real ss on this Linux machine is found", async () => {
    expect(await ssReader().check()).toEqual({ available: true });
  });

  it("an unavailable reader is logged once and shown in the status, beside the other baselines", async () => {
    const log: string[] = [];
    let reads = 0;
    const b = createBaselines({
      serverName: "S",
      ping: false,
      nowMs: Date.now,
      log: (l) => void log.push(l),
      intervalMs: BASELINE_INTERVAL_MS_MIN,
      tcpInfo: {
        check: () =>
          Promise.resolve({
            available: false,
            code: "unsupported",
            reason: "needs Linux's ss (iproute2) to read TCP_INFO; this is darwin",
          }),
        read: () => {
          reads++;
          return Promise.reject(new Error("must not be read when unavailable"));
        },
      },
    });
    // A page connected: every baseline tick now runs, would read TCP RTT if
    // it could, and pushes the other baselines (ping frames answered at once).
    const sent: string[] = [];
    const socket = Object.assign(new EventEmitter(), {
      OPEN: 1,
      readyState: 1,
      ping(id: string) {
        setImmediate(() => socket.emit("pong", Buffer.from(id, "latin1")));
      },
      send(data: string) {
        sent.push(data);
      },
    });
    const client: WsClient = {
      socket: socket as unknown as WsClient["socket"],
      clientId: "c",
      sessionId: "s",
      address: "127.0.0.1",
      remotePort: 40000,
      socketAddress: "127.0.0.1",
    };
    b.setLocalPort(40001);
    b.onClient(client);
    try {
      // Each baseline message is one tick that flushed: three ticks ran after the check.
      await waitFor(() => (sent.length >= 3 ? true : undefined), 10_000, "three baseline ticks");
      const methods = new Set(
        sent.flatMap((m) => (JSON.parse(m) as { samples: { method: string }[] }).samples.map((x) => x.method)),
      );
      expect([...methods]).toEqual(["wsping"]);
      expect(reads, "TCP RTT reads").toBe(0);
      expect(b.status()).toEqual({
        ping: { available: false, code: "turned-off", reason: "turned off with --no-ping" },
        wsping: { available: true },
        tcprtt: {
          available: false,
          code: "unsupported",
          reason: "needs Linux's ss (iproute2) to read TCP_INFO; this is darwin",
        },
      });
      expect(log, `after ${sent.length} ticks`).toEqual([
        "tailprobe: kernel TCP RTT baseline unavailable: needs Linux's ss (iproute2) to read TCP_INFO; this is darwin; every other method keeps working",
      ]);
    } finally {
      b.onClientGone(client);
      b.stop();
    }
  });
});
