// The ping pool's bound: at most processesMax pings at once (this host's
// own address not counted), the rest wait and rotate in, and an address whose ping stopped
// waits its cooldown. Real processes: a stand-in ping that sends nothing.
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PING_WAITING_REASON, PingerPool } from "../../server/baseline/pinger.js";
import type { PingResult } from "../../server/baseline/ping-sequence.js";

const FAKE_PING = path.resolve("tests/fixtures/fake-ping/ping");
let pool: PingerPool | undefined;
afterEach(() => pool?.stop());

function makePool(o: { processesMax: number; cooldownMs: number; slotMs?: number; nowMs?: () => number }) {
  const results: { address: string; r: PingResult }[] = [];
  pool = new PingerPool({
    command: FAKE_PING,
    intervalMs: 200,
    timeoutMs: 1000,
    lingerMs: 10,
    nowMs: Date.now,
    log: () => {},
    onResult: (address, r) => results.push({ address, r }),
    ...o,
  });
  return { pool, results };
}

const ready = (p: PingerPool) => vi.waitFor(() => expect(p.status.state).toBe("ready"), { timeout: 5000 });
const sorted = (xs: string[]) => [...xs].sort();

describe("PingerPool bound", () => {
  it("runs at most processesMax pings; loopback always runs; the rest wait, get skipped ticks, and start as slots free", async () => {
    const { pool, results } = makePool({ processesMax: 2, cooldownMs: 60_000 });
    await ready(pool);
    for (const a of ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "127.0.0.1"]) pool.acquire(a);
    expect(sorted(pool.activeAddresses())).toEqual(["10.0.0.1", "10.0.0.2", "127.0.0.1"]);
    expect(pool.waitingAddresses()).toEqual(["10.0.0.3", "10.0.0.4"]);
    pool.tick();
    expect(results.filter((x) => x.r.outcome === "skipped").map((x) => [x.address, x.r.reason])).toEqual([
      ["10.0.0.3", PING_WAITING_REASON],
      ["10.0.0.4", PING_WAITING_REASON],
    ]);
    // Replies reach the running ones.
    await vi.waitFor(() => expect(results.some((x) => x.address === "10.0.0.1" && x.r.outcome === "ok")).toBe(true), {
      timeout: 5000,
    });
    pool.release("10.0.0.1");
    await vi.waitFor(() => expect(sorted(pool.activeAddresses())).toEqual(["10.0.0.2", "10.0.0.3", "127.0.0.1"]), {
      timeout: 5000,
    });
    expect(pool.waitingAddresses()).toEqual(["10.0.0.4"]);
  });

  it("only this host's own address (127.0.0.1, ::1) is exempt: other 127.0.0.0/8 addresses count against the bound", async () => {
    const { pool } = makePool({ processesMax: 1, cooldownMs: 60_000 });
    await ready(pool);
    for (const a of ["127.0.1.5", "127.0.1.6", "::1", "127.0.0.1"]) pool.acquire(a);
    expect(sorted(pool.activeAddresses())).toEqual(["127.0.0.1", "127.0.1.5", "::1"]);
    expect(pool.waitingAddresses()).toEqual(["127.0.1.6"]);
  });

  it("an address whose ping just stopped waits its cooldown; loopback never does", async () => {
    // The pool's clock is the test's: the cooldown is read on it, processes and lingering run for real.
    let now = Date.now();
    const { pool } = makePool({ processesMax: 5, cooldownMs: 600, nowMs: () => now });
    await ready(pool);
    pool.acquire("10.0.0.9");
    pool.acquire("127.0.0.1");
    pool.release("10.0.0.9");
    pool.release("127.0.0.1");
    await vi.waitFor(() => expect(pool.activeAddresses()).toEqual([]), { timeout: 5000 });
    const stoppedAt = now;
    pool.acquire("10.0.0.9");
    pool.acquire("127.0.0.1");
    expect(pool.activeAddresses()).toEqual(["127.0.0.1"]);
    expect(pool.waitingAddresses()).toEqual(["10.0.0.9"]);
    now = stoppedAt + 599;
    pool.tick();
    expect(pool.waitingAddresses()).toEqual(["10.0.0.9"]);
    now = stoppedAt + 600;
    pool.tick();
    expect(sorted(pool.activeAddresses())).toEqual(["10.0.0.9", "127.0.0.1"]);
    expect(pool.waitingAddresses()).toEqual([]);
  });

  it("with addresses waiting, the ping that ran longest yields its slot after slotMs", async () => {
    let now = Date.now();
    const { pool } = makePool({ processesMax: 1, cooldownMs: 0, slotMs: 300, nowMs: () => now });
    await ready(pool);
    const startedAt = now;
    pool.acquire("10.0.0.1");
    pool.acquire("10.0.0.2");
    expect(pool.activeAddresses()).toEqual(["10.0.0.1"]);
    now = startedAt + 299;
    pool.tick();
    expect(pool.activeAddresses()).toEqual(["10.0.0.1"]);
    now = startedAt + 300;
    pool.tick();
    expect(pool.activeAddresses()).toEqual(["10.0.0.2"]);
    expect(pool.waitingAddresses()).toEqual(["10.0.0.1"]);
    // And back after the newcomer's own slot.
    now = startedAt + 600;
    pool.tick();
    expect(pool.activeAddresses()).toEqual(["10.0.0.1"]);
  });
});
