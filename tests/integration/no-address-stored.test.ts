// "No IP address is stored" (docs/security.md), checked where a leak would
// hide: a client on a non-loopback address (a network namespace of the
// test's own, so the address is nowhere else on the machine) opens a
// WebSocket (the server pings it and reads its TCP RTT) and posts samples on
// both ingest paths; then every table of the store, text and binary, and for
// SQLite the database files themselves, are searched for the client's
// address in every form: dotted, IPv4-mapped IPv6 (dotted and hex),
// reversed, hex, decimal, base64, and packed bytes in either order.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { startServer, type RunningServer } from "../../server/app.js";
import { parseServeArgs } from "../../server/cli/options.js";
import { createNetns, NETNS_MISSING, netnsAvailable, type TestNetns } from "../helpers/netns.js";
import { freshDb, STORE_KINDS } from "../helpers/store-kinds.js";
import { postgresBinDir } from "../../testkit/postgres.js";

const available = netnsAvailable();
if (!available) console.warn(NETNS_MISSING);

/** Every form of an IPv4 address to look for: texts (searched case-insensitively), byte strings, integers. */
export function addressForms(address: string): { texts: string[]; bytes: Buffer[]; integers: number[] } {
  const octets = address.split(".").map(Number);
  const be = Buffer.from(octets);
  const le = Buffer.from([...octets].reverse());
  const mapped = Buffer.concat([Buffer.alloc(10), Buffer.from([0xff, 0xff]), be]);
  const hex = be.toString("hex");
  const hexMapped = `::ffff:${Number.parseInt(hex.slice(0, 4), 16).toString(16)}:${Number.parseInt(hex.slice(4), 16).toString(16)}`;
  return {
    texts: [
      address,
      `::ffff:${address}`,
      hexMapped,
      [...octets].reverse().join("."),
      hex,
      le.toString("hex"),
      mapped.toString("hex"),
      be.toString("base64").replace(/=+$/, ""),
      mapped.toString("base64").replace(/=+$/, ""),
      String(be.readUInt32BE(0)),
      String(be.readUInt32LE(0)),
    ],
    bytes: [be, le, mapped],
    integers: [be.readUInt32BE(0), be.readUInt32LE(0)],
  };
}

/** What of `forms` appears in `text` (case-insensitively; decimal integers only as whole numbers). */
function textHits(text: string, forms: ReturnType<typeof addressForms>): string[] {
  const lower = text.toLowerCase();
  return forms.texts.filter((f) =>
    /^\d+$/.test(f) ? new RegExp(`(^|\\D)${f}(\\D|$)`).test(lower) : lower.includes(f.toLowerCase()),
  );
}

/** Every cell of every table of a SQLite database, with where it is: text, blobs and integers searched. */
function sqliteHits(file: string, forms: ReturnType<typeof addressForms>): string[] {
  const db = new Database(file, { readonly: true });
  const hits: string[] = [];
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    expect(tables.length).toBeGreaterThan(5);
    for (const { name } of tables) {
      for (const row of db.prepare(`SELECT * FROM "${name}"`).raw().all() as unknown[][]) {
        for (const cell of row) {
          const where = `${name}: ${String(cell).slice(0, 60)}`;
          if (typeof cell === "string") for (const h of textHits(cell, forms)) hits.push(`${where} (${h})`);
          if (typeof cell === "number" && forms.integers.includes(cell)) hits.push(`${where} (integer)`);
          if (Buffer.isBuffer(cell)) {
            for (const b of forms.bytes) if (cell.includes(b)) hits.push(`${name}: bytes ${b.toString("hex")}`);
            for (const h of textHits(cell.toString("latin1"), forms)) hits.push(`${name}: blob text ${h}`);
          }
        }
      }
    }
  } finally {
    db.close();
  }
  return hits;
}

/** The database files' bytes (free pages and the WAL included): packed bytes and every text form. */
function fileHits(file: string, forms: ReturnType<typeof addressForms>): string[] {
  const hits: string[] = [];
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    if (!fs.existsSync(f)) continue;
    const bytes = fs.readFileSync(f);
    for (const b of forms.bytes) if (bytes.includes(b)) hits.push(`${path.basename(f)}: bytes ${b.toString("hex")}`);
    for (const h of textHits(bytes.toString("latin1"), forms)) hits.push(`${path.basename(f)}: text ${h}`);
  }
  return hits;
}

/** Every row of every table of a PostgreSQL database, as pg_dump writes it (bytea in hex): searched as text. */
function postgresHits(url: string, forms: ReturnType<typeof addressForms>): string[] {
  const dump = execFileSync(path.join(postgresBinDir()!, "pg_dump"), ["--data-only", "--dbname", url], {
    encoding: "utf8",
    maxBuffer: 256 << 20,
  });
  expect(dump).toContain("COPY public.raw_samples_");
  const hits: string[] = [];
  for (const line of dump.split("\n")) for (const h of textHits(line, forms)) hits.push(`${line.slice(0, 80)} (${h})`);
  return hits;
}

describe.skipIf(!available)("no IP address is stored: a client in a network namespace", () => {
  let ns: TestNetns;
  beforeAll(() => {
    ns = createNetns("ip");
  });
  afterAll(() => {
    ns?.remove();
  });

  it("its address forms are what this test searches for", () => {
    const forms = addressForms("10.123.45.202");
    expect(forms.texts).toContain("::ffff:a7b:2dca");
    expect(forms.texts).toContain("0a7b2dca");
    expect(forms.texts).toContain(String(0x0a7b2dca));
    // And the search finds each where it is.
    for (const text of forms.texts) expect(textHits(`x ${text} y`, forms).length).toBeGreaterThan(0);
  });

  describe.each(STORE_KINDS)("%s store", (kind) => {
    let server: RunningServer;
    let dbPath: string;
    beforeAll(async () => {
      dbPath = await freshDb(kind, "no_address");
      // Pings on (startInProcess turns them off): the baselines are where the server handles the address most.
      const options = parseServeArgs(["--port", "0", "--db", dbPath, "--name", "A", "--host", ns.hostAddress]);
      if (!options.ok || options.value === "help") throw new Error("bad flags");
      server = await startServer(options.value, { log: () => {} });
    });
    afterAll(async () => {
      await server?.close();
    });

    it("posts from the namespace, then finds the address nowhere in the store", { timeout: 60_000 }, async () => {
      const tsx = path.resolve("node_modules/.bin/tsx");
      const out = await ns.run(
        tsx,
        [
          path.resolve("tests/helpers/netns-client.ts"),
          server.url,
          `client_netns_${kind}`,
          `session_netns_${kind}`,
          "4000",
        ],
        45_000,
      );
      const summary = JSON.parse(out) as { statuses: number[]; baselines: number; methods: string[] };
      expect(summary.statuses).toEqual([200, 200]);
      // The server measured this address: it had it in hand.
      expect(summary.baselines).toBeGreaterThan(0);
      const stored = await (await fetch(`${server.url}/api/stats`)).json();
      expect(JSON.stringify(stored)).toMatch(/"method":"wsping"/);

      const forms = addressForms(ns.clientAddress);
      const hits =
        kind === "sqlite" ? [...sqliteHits(dbPath, forms), ...fileHits(dbPath, forms)] : postgresHits(dbPath, forms);
      expect(hits).toEqual([]);
      // The search is not blind: the session it posted is there to be found.
      const found =
        kind === "sqlite"
          ? fileHits(dbPath, { texts: [`session_netns_${kind}`], bytes: [], integers: [] })
          : postgresHits(dbPath, { texts: [`session_netns_${kind}`], bytes: [], integers: [] });
      expect(found.length).toBeGreaterThan(0);
    });
  });
});
