// Group commit (server/store/sqlite/writer.ts batchWriter): the batches queued in the
// writer thread are written in one transaction, each in a savepoint, their
// rollups merged in memory and written once. Checked against the same batches
// written one at a time on another database: the raw rows, every rollup row
// and every answer alike; a refused batch leaves its group's others stored; a
// group whose commit fails stores nothing.
import path from "node:path";
import type Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../server/store/sqlite/store.js";
import type { Store } from "../../server/store/store.js";
import { batchWriter, type GroupItem } from "../../server/store/sqlite/writer.js";
import { Codes } from "../../server/store/sqlite/codes.js";
import { SessionOwnerError } from "../../server/store/errors.js";
import type { Sample, SampleBatch } from "../../shared/contract/index.js";
import { sqliteDb } from "../../testkit/sqlite-store.js";
import { loadSampleTables } from "../../testkit/sample-table.js";
import { mulberry32 } from "../../shared/prng.js";
import { tempDir } from "../../testkit/server-process.js";

const T0 = Date.UTC(2026, 9, 1, 23, 58); // batches cross a 5-minute, hour and day boundary
const meta = { userAgent: "test", receivedAtMs: T0 };
const opened: Store[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

function database(): { db: Database.Database; write: ReturnType<typeof batchWriter> } {
  const store = openStore(path.join(tempDir(), "w.db"));
  opened.push(store);
  const db = sqliteDb(store);
  return { db, write: batchWriter(db, new Codes(db)) };
}

function samples(rand: () => number, seq0: number, n: number, target = "A"): Sample[] {
  const out: Sample[] = [];
  for (let seq = seq0; seq < seq0 + n; seq++) {
    const t = T0 + Math.floor(rand() * 6 * 60_000);
    const r = rand();
    if (r < 0.05) out.push({ seq, t, method: "xhr", target, ms: null, outcome: "error", reason: "network" });
    else if (r < 0.08) out.push({ seq, t, method: "ws", target, ms: 5000, outcome: "timeout" });
    else if (r < 0.2)
      out.push({
        seq,
        t,
        method: "best2",
        target: `${target}+B`,
        ms: Math.round(rand() * 9000) / 1000,
        outcome: "ok",
        winner: rand() < 0.5 ? "ws" : "jsonp",
        otherMs: 12.5,
        otherOutcome: "ok",
      });
    else
      out.push({
        seq,
        t,
        method: rand() < 0.5 ? "xhr" : "jsonp",
        target,
        ms: Math.round(rand() * 40_000) / 1000,
        outcome: "ok",
        lateMs: rand() * 80,
        visibleAtSend: rand() < 0.9,
      });
  }
  return out;
}

/** Several clients and sessions, batches interleaved, one redelivered in part. */
function someBatches(): SampleBatch[] {
  const rand = mulberry32(7);
  const out: SampleBatch[] = [];
  for (let round = 0; round < 4; round++)
    for (const c of ["alpha", "beta", "gamma"])
      out.push({ clientId: `client_${c}`, sessionId: `session_${c}`, samples: samples(rand, round * 50, 50) });
  out.push({
    clientId: "client_beta",
    sessionId: "session_beta",
    samples: [...out[1]!.samples, ...samples(rand, 1000, 10)],
  });
  return out;
}

const dump = (db: Database.Database) => ({
  // Decoded from the blocks (testkit/sample-table.ts): the same samples, whichever writes made the blocks.
  raw: loadSampleTables(db).prepare("SELECT * FROM raw_samples ORDER BY session, seq, t").all(),
  rollups: db.prepare("SELECT * FROM rollups ORDER BY level, client, class, start_ms, series").all(),
  sessions: db.prepare("SELECT id, session_key, client, first_t, last_t FROM sessions ORDER BY id").all(),
});
const items = (batches: SampleBatch[]): GroupItem[] => batches.map((batch) => ({ batch, meta }));

describe("group commit", () => {
  it("keeps each session's oldest and newest t, whatever order samples arrive in and however often", () => {
    const batches = someBatches();
    const { db, write } = database();
    write(items(batches.slice(0, 7)));
    write(items(batches.slice(7)));
    const want = ["alpha", "beta", "gamma"].map((c) => {
      const ts = batches.filter((b) => b.sessionId === `session_${c}`).flatMap((b) => b.samples.map((x) => x.t));
      return { session_key: `session_${c}`, first_t: Math.min(...ts), last_t: Math.max(...ts) };
    });
    expect(db.prepare("SELECT session_key, first_t, last_t FROM sessions ORDER BY session_key").all()).toEqual(want);
  });

  it("stores what the same batches store one at a time: raw rows, every rollup row and every answer alike", () => {
    const batches = someBatches();
    const one = database();
    const alone = batches.map((b) => one.write(items([b]))[0]);
    const grouped = database();
    const together = [...grouped.write(items(batches.slice(0, 5))), ...grouped.write(items(batches.slice(5)))];
    expect(together).toEqual(alone);
    expect(alone.at(-1)).toEqual({ accepted: 10, duplicates: 50 });
    const a = dump(one.db);
    const g = dump(grouped.db);
    expect(a.raw.length).toBe(12 * 50 + 10);
    expect(a.rollups.length).toBeGreaterThan(50);
    expect(g).toEqual(a);
  });

  it("a refused batch leaves the others of its group stored, and adds nothing to the rollups", () => {
    const rand = mulberry32(11);
    const good1: SampleBatch = { clientId: "client_alpha", sessionId: "session_alpha", samples: samples(rand, 0, 40) };
    // Another client's batch under alpha's session, with a target no one has used yet: refused, its new code undone.
    const refused: SampleBatch = {
      clientId: "client_mallory",
      sessionId: "session_alpha",
      samples: samples(rand, 100, 40, "D"),
    };
    const good2: SampleBatch = {
      clientId: "client_beta",
      sessionId: "session_beta",
      samples: samples(rand, 0, 40, "D"),
    };
    const grouped = database();
    const [r1, r2, r3] = grouped.write(items([good1, refused, good2]));
    expect(r1).toEqual({ accepted: 40, duplicates: 0 });
    expect(r2).toBeInstanceOf(SessionOwnerError);
    expect(r3).toEqual({ accepted: 40, duplicates: 0 });
    const one = database();
    one.write(items([good1]));
    one.write(items([good2]));
    expect(dump(grouped.db)).toEqual(dump(one.db));
    expect(grouped.db.prepare("SELECT count(*) AS n FROM clients WHERE client_key = 'client_mallory'").get()).toEqual({
      n: 0,
    });
  });

  it("a group whose rollup write fails stores none of its batches, and the next group is written whole", () => {
    const rand = mulberry32(13);
    const good: SampleBatch = { clientId: "client_alpha", sessionId: "session_alpha", samples: samples(rand, 0, 30) };
    const poison: SampleBatch = {
      clientId: "client_poison",
      sessionId: "session_poison",
      samples: samples(rand, 0, 30),
    };
    const grouped = database();
    grouped.db.exec(
      "CREATE TRIGGER poison BEFORE INSERT ON rollups WHEN NEW.client = (SELECT id FROM clients WHERE client_key = 'client_poison') BEGIN SELECT RAISE(ABORT, 'poisoned rollup'); END",
    );
    const results = grouped.write(items([good, poison]));
    expect(results.map((r) => (r instanceof Error ? r.message : r))).toEqual(["poisoned rollup", "poisoned rollup"]);
    expect(dump(grouped.db)).toEqual({ raw: [], rollups: [], sessions: [] });
    expect(grouped.write(items([good]))).toEqual([{ accepted: 30, duplicates: 0 }]);
    const one = database();
    one.write(items([good]));
    expect(dump(grouped.db)).toEqual(dump(one.db));
  });
});
