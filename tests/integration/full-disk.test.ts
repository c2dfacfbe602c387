// A full disk, produced for real: each store on a small tmpfs of its own,
// filled by a file beside the database until ingest can no longer write.
// The server answers 503 with the Retry-After docs/security.md gives for
// the fault (SQLITE_FULL, PG_FULL), keeps echoing, stores nothing of a
// refused batch and keeps every acknowledged one, and takes the same batch
// again once the file is removed. Mounting needs root (CI runs as root).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { startInProcess } from "../helpers/in-process.js";
import { documentedRetryAfterS } from "../helpers/storage-doc.js";
import { selectPostgres } from "../helpers/store-kinds.js";
import { postgresAvailable, startPostgres, type TestPostgres } from "../../testkit/postgres.js";
import { tempDir } from "../../testkit/server-process.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

const asRoot = process.getuid?.() === 0;
if (!asRoot) console.warn("skipped: a full disk is produced on a tmpfs, which only root may mount (CI runs as root)");

/** Samples per batch: a page's full batch is 1,000; these fill a few MB quickly. */
const BATCH = 500;
/** Batches posted at most before the disk must be full (a bound, not a target). */
const BATCHES_MAX = 400;

/** A tmpfs of `sizeMb` mounted on a fresh directory; `fill` leaves `freeKb` free with a file, `free` removes it. */
function smallDisk(sizeMb: number) {
  const dir = tempDir("tailprobe-full-");
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m,mode=0777`, "tmpfs", dir]);
  const filler = path.join(dir, "filler");
  return {
    dir,
    fill(freeKb: number) {
      const { bavail, bsize } = fs.statfsSync(dir);
      const bytes = bavail * bsize - freeKb * 1024;
      if (bytes > 0) fs.writeFileSync(filler, Buffer.alloc(bytes));
    },
    free: () => fs.rmSync(filler, { force: true }),
    unmount() {
      spawnSync("umount", ["-l", dir], { stdio: "ignore" });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

let sessions = 0;
function batch(): { body: string; n: number } {
  const s = ++sessions;
  const t0 = Date.now() - 60_000;
  const samples = Array.from({ length: BATCH }, (_, i) => ({
    seq: i,
    t: t0 + i * 50,
    method: ["xhr", "jsonp", "ws"][i % 3],
    target: "A",
    ms: 1 + ((i * 7919) % 10_000) / 1000,
    outcome: "ok",
    lateMs: 0,
    scheduledT: t0 + i * 50,
    visibleAtSend: true,
    visibleAtReply: true,
  }));
  return {
    body: JSON.stringify({ clientId: "client_full_disk", sessionId: `session_full_disk_${s}`, samples }),
    n: BATCH,
  };
}

type Server = Awaited<ReturnType<typeof startInProcess>>;

/** Posts batches until one is refused; returns what was acknowledged and the refusal. */
async function fillUntilRefused(server: Server) {
  let accepted = 0;
  for (let i = 0; i < BATCHES_MAX; i++) {
    const b = batch();
    const res = await fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: b.body,
    });
    const text = await res.text();
    if (res.status === 200) {
      accepted += (JSON.parse(text) as { accepted: number }).accepted;
      continue;
    }
    return { accepted, refused: { status: res.status, retryAfter: res.headers.get("retry-after"), text, batch: b } };
  }
  throw new Error(`${BATCHES_MAX} batches stored: the disk never filled`);
}

const kinds = [
  {
    kind: "sqlite",
    code: "SQLITE_FULL",
    sizeMb: 16,
    async open(disk: ReturnType<typeof smallDisk>) {
      return { db: path.join(disk.dir, "tailprobe.db"), close: async () => {} };
    },
    count: (db: string) => {
      const conn = new Database(db, { readonly: true });
      try {
        return (loadSampleTables(conn).prepare("SELECT count(*) AS n FROM samples").get() as { n: number }).n;
      } finally {
        conn.close();
      }
    },
  },
  {
    kind: "postgres",
    code: "PG_FULL",
    // initdb's data directory is ~40 MB; the WAL lives elsewhere (testkit/postgres.ts's dataParent).
    sizeMb: 96,
    async open(disk: ReturnType<typeof smallDisk>) {
      const pg: TestPostgres = await startPostgres({ dataParent: disk.dir });
      return { db: await pg.createDatabase("full_disk"), close: () => pg.stop() };
    },
    count: async (db: string) =>
      (await selectPostgres<{ n: number }>(db, "SELECT count(*)::int AS n FROM raw_samples"))[0]!.n,
  },
] as const;

describe.skipIf(!asRoot).each(kinds.filter((k) => k.kind === "sqlite" || postgresAvailable()))(
  "a full disk under the $kind store",
  ({ code, sizeMb, open, count }) => {
    let disk: ReturnType<typeof smallDisk>;
    let store: Awaited<ReturnType<(typeof kinds)[number]["open"]>>;
    let server: Server;
    const log: string[] = [];
    beforeAll(async () => {
      disk = smallDisk(sizeMb);
      store = await open(disk);
      server = await startInProcess(["--db", store.db, "--no-rate-limit"], log);
    }, 120_000);
    afterAll(async () => {
      await server?.close();
      await store?.close();
      disk?.unmount();
    });

    it("503 with the documented Retry-After, every acknowledged sample kept, the batch taken once space returns", {
      timeout: 180_000,
    }, async () => {
      disk.fill(1024);
      const { accepted, refused } = await fillUntilRefused(server);
      expect(refused.status, refused.text).toBe(503);
      expect(JSON.parse(refused.text)).toMatchObject({ code: "STORAGE_UNAVAILABLE" });
      expect(log.join("\n")).toContain(`ingest failing, ${code}`);
      expect(refused.retryAfter).toBe(String(documentedRetryAfterS(code)));
      expect((await fetch(`${server.url}/echo`)).status).toBe(200);
      // Nothing lost, nothing half-stored: exactly the acknowledged samples.
      expect(await count(store.db)).toBe(accepted);
      console.log(`${code}: ${accepted} samples stored before the disk filled`);

      disk.free();
      const again = await fetch(`${server.url}/api/samples`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: refused.batch.body,
      });
      expect(again.status, await again.clone().text()).toBe(200);
      expect(await again.json()).toEqual({ accepted: refused.batch.n, duplicates: 0 });
      expect(await count(store.db)).toBe(accepted + refused.batch.n);
      expect(log.some((l) => /storage works again/.test(l))).toBe(true);
    });
  },
);
