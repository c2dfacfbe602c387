// Server time on every method: Server-Timing `app` for HTTP, a `served` note
// after each WebSocket echo (which stays the page's exact bytes), the stored
// serverMs column, and the test-only stall hook that plants a slow handler.
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startServer, type RunningServer } from "../../server/app.js";
import { parseServeArgs } from "../../server/cli/options.js";
import { migrate } from "../../server/store/sqlite/migrations/migrate.js";
import { tempDir } from "../../testkit/server-process.js";
import { sqliteDb } from "../../testkit/sqlite-store.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

async function start(testHooks: boolean): Promise<RunningServer> {
  const parsed = parseServeArgs(["--port", "0", "--db", path.join(tempDir(), "t.db"), "--no-ping"]);
  if (!parsed.ok || parsed.value === "help") throw new Error("bad flags");
  return startServer(parsed.value, { log: () => {}, testHooks });
}

let hooked: RunningServer;
let plain: RunningServer;
beforeAll(async () => {
  [hooked, plain] = await Promise.all([start(true), start(false)]);
});
afterAll(async () => {
  await Promise.all([hooked.close(), plain.close()]);
});

/** Opens /ws, sends one echo, and returns every text message up to and including the served note. */
async function wsEcho(server: RunningServer, id: number): Promise<string[]> {
  const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws`);
  const got: string[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.on("error", reject);
    ws.on("message", (d) => {
      const text = d.toString();
      got.push(text);
      if (text.startsWith('{"type":"welcome"')) ws.send(JSON.stringify({ type: "echo", id }));
      if (text.startsWith('{"type":"served"')) resolve();
    });
  });
  ws.close();
  return got;
}

function appMs(serverTiming: string | null): number {
  const m = /app;dur=([\d.]+)/.exec(serverTiming ?? "");
  if (!m) throw new Error(`no app in Server-Timing: ${serverTiming}`);
  return Number(m[1]);
}

describe("WebSocket served note", () => {
  it("announces notes in the welcome, echoes the exact bytes first, then the note for the same id", async () => {
    const got = await wsEcho(plain, 41);
    expect(JSON.parse(got[0]!)).toEqual({ type: "welcome", name: "A", served: true });
    expect(got[1]).toBe('{"type":"echo","id":41}');
    const note = JSON.parse(got[2]!) as { type: string; id: number; serverMs: number };
    expect(note).toMatchObject({ type: "served", id: 41 });
    expect(note.serverMs).toBeGreaterThanOrEqual(0);
    expect(note.serverMs).toBeLessThan(100);
  });
});

describe("test-only stall hook", () => {
  it("is not mounted without TAILPROBE_TEST_HOOKS", async () => {
    const res = await fetch(`${plain.url}/api/test/stall`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ delayMs: 100, durationMs: 1000 }),
    });
    expect(res.status).toBe(404);
  });

  it("rejects a bad stall with 400", async () => {
    const res = await fetch(`${hooked.url}/api/test/stall`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ delayMs: -1, durationMs: 1000 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "INVALID_STALL" });
  });

  it("delays echoes inside the handler, so the server's own time shows it", async () => {
    const before = appMs((await fetch(`${hooked.url}/echo`)).headers.get("server-timing"));
    expect(before).toBeLessThan(100);
    const arm = await fetch(`${hooked.url}/api/test/stall`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ delayMs: 150, durationMs: 3000 }),
    });
    expect(arm.status).toBe(200);
    expect(appMs((await fetch(`${hooked.url}/echo`)).headers.get("server-timing"))).toBeGreaterThanOrEqual(149);
    expect(appMs((await fetch(`${hooked.url}/jsonp?callback=cb`)).headers.get("server-timing"))).toBeGreaterThanOrEqual(
      149,
    );
    const got = await wsEcho(hooked, 7);
    const note = JSON.parse(got.at(-1)!) as { serverMs: number };
    expect(note.serverMs).toBeGreaterThanOrEqual(149);
  });
});

describe("samples.server_ms", () => {
  it("a version-1 database that lacks it upgrades with it empty, once", () => {
    const db = new Database(":memory:");
    db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO meta VALUES ('schema_version', '1');
      CREATE TABLE sessions (id INTEGER PRIMARY KEY, session_key TEXT NOT NULL UNIQUE, client_id TEXT NOT NULL,
        label TEXT, user_agent TEXT, first_seen_ms INTEGER NOT NULL);
      INSERT INTO sessions (id, session_key, client_id, first_seen_ms) VALUES (1, 'old_session', 'old_client', 1);
      CREATE TABLE samples (session INTEGER NOT NULL, seq INTEGER NOT NULL, t INTEGER NOT NULL, method TEXT NOT NULL,
      target TEXT NOT NULL, ms REAL, outcome TEXT NOT NULL, scheduled_t INTEGER, late_ms REAL, hidden_ms REAL,
      flags INTEGER NOT NULL DEFAULT 0, reason TEXT, winner TEXT, other_ms REAL, other_outcome TEXT, minrtt REAL,
      server_lag_ms REAL, PRIMARY KEY (session, seq)) WITHOUT ROWID`);
    db.exec("INSERT INTO samples (session, seq, t, method, target, ms, outcome) VALUES (1, 1, 1, 'xhr', 'A', 5, 'ok')");
    migrate(db);
    migrate(db);
    // Store version 7 keeps samples in blocks: the samples view's columns are those of the decoded TEMP view.
    const cols = (loadSampleTables(db).prepare("PRAGMA table_info(samples)").all() as { name: string }[]).map(
      (c) => c.name,
    );
    expect(cols.filter((c) => c === "server_ms")).toHaveLength(1);
    expect(db.prepare("SELECT server_ms FROM samples").get()).toEqual({ server_ms: null });
    db.close();
  });

  it("stores the wire serverMs", async () => {
    const t = Date.now() - 5000;
    const res = await fetch(`${plain.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        clientId: "c-server-time-1",
        sessionId: "s-server-time-1",
        // Every page sends its timer resolution with each batch: the envelope must take it.
        timerResolutionMs: 0.005,
        samples: [
          { seq: 0, t, method: "xhr", target: "A", ms: 12, outcome: "ok", serverMs: 3.25 },
          { seq: 1, t, method: "ws", target: "A", ms: 10, outcome: "ok" },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const rows = loadSampleTables(sqliteDb(plain.store))
      .prepare("SELECT seq, server_ms FROM samples ORDER BY seq")
      .all();
    expect(rows).toEqual([
      { seq: 0, server_ms: 3.25 },
      { seq: 1, server_ms: null },
    ]);
  });
});
