// The server is killed with SIGKILL in the middle of a burst of ingests. It
// answers a batch only after its transaction committed, so after a restart the
// database must pass PRAGMA integrity_check and hold every sample it
// acknowledged. (Batches in flight at the kill may or may not be there: their
// sender never got a 200 and would retry.) On both stores: with PostgreSQL the
// answer likewise follows the COMMIT.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { startServerProcess, waitFor, type ServerProcess } from "../../testkit/server-process.js";
import { freshDb, selectPostgres, STORE_KINDS } from "../helpers/store-kinds.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

const LOAD_SCRIPT = path.resolve("testkit/ingest-burst.ts");

let server: ServerProcess | undefined;
let load: ChildProcess | undefined;

afterAll(async () => {
  load?.kill("SIGKILL");
  await server?.stop();
});

/** Rows stored of one session's seq range, and all rows; SQLite's integrity check first. */
async function storedCounts(
  kind: string,
  db: string,
  ranges: { session: string; first: number; last: number }[],
): Promise<{ missing: number; total: number }> {
  const inRange =
    "SELECT COUNT(*) AS n FROM samples JOIN sessions ON sessions.id = samples.session WHERE session_key = ? AND seq BETWEEN ? AND ?";
  let missing = 0;
  if (kind === "postgres") {
    for (const a of ranges) {
      const [row] = await selectPostgres<{ n: number }>(
        db,
        inRange.replace("?", "$1").replace("?", "$2").replace("?", "$3"),
        [a.session, a.first, a.last],
      );
      missing += a.last - a.first + 1 - (row?.n ?? 0);
    }
    const [all] = await selectPostgres<{ n: number }>(db, "SELECT COUNT(*) AS n FROM samples");
    return { missing, total: all?.n ?? 0 };
  }
  const conn = new Database(db, { readonly: true });
  try {
    expect(conn.pragma("integrity_check", { simple: true })).toBe("ok");
    const count = loadSampleTables(conn).prepare(inRange);
    for (const a of ranges)
      missing += a.last - a.first + 1 - (count.get(a.session, a.first, a.last) as { n: number }).n;
    return { missing, total: (conn.prepare("SELECT COUNT(*) AS n FROM samples").get() as { n: number }).n };
  } finally {
    conn.close();
  }
}

describe.each(STORE_KINDS)("SIGKILL during a burst of ingests (%s store)", (kind) => {
  it("restarts with an intact database holding every acknowledged sample", { timeout: 60_000 }, async () => {
    server = await startServerProcess(["--no-ping"], { dbPath: await freshDb(kind, "sigkill") });
    const { port, dbPath } = server;
    load = spawn(process.execPath, ["--import", "tsx", LOAD_SCRIPT, server.url, "5000", "4"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    load.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    load.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const loadExited = new Promise<void>((resolve) => load!.once("exit", () => resolve()));

    // Let the burst get going, then kill the server with requests in flight.
    await waitFor(
      () => ((out.match(/^ACK /gm)?.length ?? 0) >= 40 ? true : undefined),
      30_000,
      "40 acknowledged batches",
    );
    await server.kill();
    await loadExited;
    const acks = [...out.matchAll(/^ACK (\S+) (\d+) (\d+)$/gm)].map((m) => ({
      session: m[1]!,
      first: Number(m[2]),
      last: Number(m[3]),
    }));
    const fails = out.match(/^FAIL /gm)?.length ?? 0;
    expect(fails, "the load script saw the server die").toBeGreaterThan(0);

    server = await startServerProcess(["--no-ping", "--port", String(port)], { dbPath });
    const { missing, total } = await storedCounts(kind, dbPath, acks);
    expect(missing, "acknowledged samples missing after the crash").toBe(0);
    expect(total).toBeGreaterThanOrEqual(acks.length * 200);
    console.log(
      `sigkill-ingest (${kind}): ${acks.length} batches acknowledged (${acks.length * 200} samples), ${total} stored, ${fails} failed after the kill`,
    );
    // The restarted server ingests again.
    const res = await fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        clientId: "after-crash-1",
        sessionId: "after-crash-1",
        samples: [{ seq: 0, t: Date.now(), method: "xhr", target: "A", ms: 1, outcome: "ok" }],
      }),
    });
    expect(res.status).toBe(200);
    await server.stop();
    server = undefined;
  });
});
