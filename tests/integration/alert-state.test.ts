// The alert-state table on both engines (server/store/alert-state.ts): each
// transition recorded once however many callers race for it, what each
// receiver was sent kept per key, everything still there after a reopen; and
// a real server restarted on its database neither re-sends nor forgets.
import { afterEach, describe, expect, it } from "vitest";
import type { WebhookPayload } from "../../server/alerts/notify/payloads.js";
import type { AlertStateStore } from "../../server/store/alert-state.js";
import { openStoreFor } from "../../server/store/open.js";
import type { Store } from "../../server/store/store.js";
import { downIncident, fakeHealthFeed } from "../helpers/fake-health.js";
import { startInProcess } from "../helpers/in-process.js";
import { freshDb, STORE_KINDS } from "../helpers/store-kinds.js";
import { startWebhookSink, type WebhookSink } from "../helpers/webhook-sink.js";

const opened: Store[] = [];
const sinks: WebhookSink[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const s of sinks.splice(0)) await s.close();
});

async function open(db: string): Promise<Store> {
  const s = await openStoreFor(db, { log: () => {} });
  opened.push(s);
  return s;
}

const T0 = Date.UTC(2026, 10, 27, 5, 14, 7);
const alert = (over: Partial<Parameters<AlertStateStore["fire"]>[0]> = {}) => ({
  fingerprint: "5d3c8d61e1b2a0f4",
  labels: { alertname: "TargetDown", target: "B" },
  annotations: { summary: "B down", verdict: "server" },
  startsAtMs: T0,
  generatorUrl: "http://127.0.0.1:8080/histogram",
  owner: "A",
  changedMs: T0,
  ...over,
});

describe.each(STORE_KINDS)("alert state (%s)", (kind) => {
  it("records each transition once, keeps what was sent per receiver, and survives a reopen", async () => {
    const db = await freshDb(kind, "alert_state");
    let store = await open(db);
    const state = store.alertState;
    expect(await state.load()).toEqual([]);

    const first = await state.fire(alert());
    expect(first.won).toBe(true);
    expect(first.row).toMatchObject({ startsAtMs: T0, endsAtMs: null, sent: {}, owner: "A" });
    // Firing already: a second start (a restart, another server) records nothing and sees the stored episode.
    const again = await state.fire(alert({ startsAtMs: T0 + 5000, owner: "B" }));
    expect(again.won).toBe(false);
    expect(again.row).toMatchObject({ startsAtMs: T0, owner: "A" });

    await state.markSent(first.row.fingerprint, T0, "webhook:aaaa", "firing");
    await state.markSent(first.row.fingerprint, T0, "ntfy:bbbb", "firing");
    await state.markSent(first.row.fingerprint, T0 + 1, "slack:cccc", "firing"); // another episode's: ignored
    await state.annotate(first.row.fingerprint, T0, { summary: "B down: still", verdict: "server" });

    await store.close();
    opened.splice(opened.indexOf(store), 1);
    store = await open(db);
    const [row] = await store.alertState.load();
    expect(row).toEqual({
      ...alert(),
      annotations: { summary: "B down: still", verdict: "server" },
      endsAtMs: null,
      sent: { "webhook:aaaa": "firing", "ntfy:bbbb": "firing" },
    });

    expect(await store.alertState.resolve(row!.fingerprint, T0 + 1, T0 + 9000, "A", T0 + 9000)).toBe(false);
    expect(await store.alertState.resolve(row!.fingerprint, T0, T0 + 9000, "B", T0 + 9500)).toBe(true);
    expect(await store.alertState.resolve(row!.fingerprint, T0, T0 + 9999, "A", T0 + 9999)).toBe(false);
    await store.alertState.markSent(row!.fingerprint, T0, "webhook:aaaa", "resolved");
    const [resolved] = await store.alertState.load();
    expect(resolved).toMatchObject({
      endsAtMs: T0 + 9000,
      owner: "B",
      changedMs: T0 + 9500,
      sent: { "webhook:aaaa": "resolved", "ntfy:bbbb": "firing" },
    });

    // A new episode of the same label set starts afresh.
    const next = await store.alertState.fire(alert({ startsAtMs: T0 + 60_000 }));
    expect(next.won).toBe(true);
    expect(next.row).toMatchObject({ startsAtMs: T0 + 60_000, endsAtMs: null, sent: {} });
    await store.alertState.fire(alert({ fingerprint: "0000000000000001" }));
    await store.alertState.resolve("0000000000000001", T0, T0 + 1000, "A", T0 + 1000);
    expect(await store.alertState.prune(T0 + 2000)).toBe(1);
    expect((await store.alertState.load()).map((r) => r.fingerprint)).toEqual([alert().fingerprint]);
  });

  it("exactly one of many racing callers wins a start, and one an end", async () => {
    const db = await freshDb(kind, "alert_race");
    // On PostgreSQL two stores are two servers on one database; on SQLite one store, its writes in one thread.
    const stores = kind === "postgres" ? [await open(db), await open(db)] : [await open(db)];
    for (let round = 0; round < 10; round++) {
      const fp = `race${String(round).padStart(12, "0")}`;
      const fires = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          stores[i % stores.length]!.alertState.fire(alert({ fingerprint: fp, owner: `S${i}`, startsAtMs: T0 + i })),
        ),
      );
      expect(fires.filter((f) => f.won)).toHaveLength(1);
      const startsAtMs = fires.find((f) => f.won)!.row.startsAtMs;
      for (const f of fires) expect(f.row.startsAtMs).toBe(startsAtMs);
      const ends = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          stores[i % stores.length]!.alertState.resolve(fp, startsAtMs, T0 + 100, `S${i}`, T0 + 100),
        ),
      );
      expect(ends.filter(Boolean)).toHaveLength(1);
    }
  });

  it("a server restarted on its database does not send again what it sent, and still sends the resolved", async () => {
    const hook = await startWebhookSink();
    sinks.push(hook);
    const db = await freshDb(kind, "alert_restart");
    const args = ["--name", "A", "--db", db, "--notify", `${hook.url}/hook`];
    const health = fakeHealthFeed();
    let server = await startInProcess(args, [], { healthFeed: health.feed });
    const start = Date.now() - 2000;
    health.emit("opened", downIncident({ start }));
    await hook.waitForPosts(1, 5000);
    // What was sent is recorded before the server stops.
    await expectSoon(async () => Object.values((await server.store.alertState.load())[0]?.sent ?? {}), ["firing"]);
    await server.close();

    const after = fakeHealthFeed();
    server = await startInProcess(args, [], { healthFeed: after.feed });
    try {
      // The new life's feed reopens the incident: already firing, nothing sent.
      after.emit("opened", downIncident({ start }));
      await new Promise((r) => setTimeout(r, 1500));
      expect(hook.posts).toHaveLength(1);
      after.emit("closed", downIncident({ start, end: Date.now() }));
      await hook.waitForPosts(2, 5000);
      await new Promise((r) => setTimeout(r, 500));
      expect(hook.posts.map((p) => (p.body as WebhookPayload).status)).toEqual(["firing", "resolved"]);
    } finally {
      await server.close();
    }
  });
});

async function expectSoon<T>(read: () => Promise<T>, want: T, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await read();
    try {
      expect(got).toEqual(want);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
