// Writes the migration fixtures (server/store/<engine>/migrations/fixtures/:
// vN.sql and manifest.json): for each older
// schema version, the commit that last wrote it is checked out into a
// temporary worktree and its own server is run on a fresh database (an SQLite
// file, or a throwaway PostgreSQL database); the fixture batches
// (testkit/migration-samples.ts) are posted to it over HTTP, as a page would,
// and the database it wrote is dumped as SQL (sqlite3 .dump, pg_dump
// --inserts). manifest.json records the commit, the batches' t0, the fields
// that version refused and what it answered to the redeliveries.
//
// Run from the repository root: npx tsx scripts/dev/migration-fixtures.mts [name…]
// (names as sqlite-v1, postgres-v5; all fixtures without names; each takes
// under a minute). A new schema version adds its predecessor here: the last
// commit on main's first-parent history that wrote it, then this script for
// that name. Needs git, sqlite3, and for the postgres-* fixtures the
// PostgreSQL binaries.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  asAccepted,
  type FixtureBatch,
  fixtureBatches,
  fixtureRedeliveries,
  LATER_BATCH_FIELDS,
  LATER_SAMPLE_FIELDS,
} from "../../testkit/migration-samples.js";
import { startPostgres, type TestPostgres } from "../../testkit/postgres.js";

interface FixtureSpec {
  name: string;
  engine: "sqlite" | "postgres";
  /** The schema version the commit writes. */
  version: number;
  /**
   * The last commit on main's first-parent history that wrote that version
   * (git log --first-parent main, each commit's SCHEMA_VERSION).
   */
  commit: string;
}

export const FIXTURES: readonly FixtureSpec[] = [
  { name: "sqlite-v1", engine: "sqlite", version: 1, commit: "4dd1be7" },
  { name: "sqlite-v2", engine: "sqlite", version: 2, commit: "355ea1a" },
  { name: "sqlite-v3", engine: "sqlite", version: 3, commit: "66e7041" },
  { name: "sqlite-v4", engine: "sqlite", version: 4, commit: "4cb10c5" },
  { name: "sqlite-v5", engine: "sqlite", version: 5, commit: "27b8960" },
  { name: "sqlite-v6", engine: "sqlite", version: 6, commit: "d770b5e" },
  { name: "sqlite-v7", engine: "sqlite", version: 7, commit: "58265d9" },
  { name: "sqlite-v8", engine: "sqlite", version: 8, commit: "00c4788" },
  { name: "sqlite-v9", engine: "sqlite", version: 9, commit: "3c7b564" },
  { name: "sqlite-v10", engine: "sqlite", version: 10, commit: "3b18248" },
  { name: "postgres-v2", engine: "postgres", version: 2, commit: "355ea1a" },
  { name: "postgres-v3", engine: "postgres", version: 3, commit: "66e7041" },
  { name: "postgres-v4", engine: "postgres", version: 4, commit: "27b8960" },
  { name: "postgres-v5", engine: "postgres", version: 5, commit: "58265d9" },
  { name: "postgres-v6", engine: "postgres", version: 6, commit: "00c4788" },
  { name: "postgres-v7", engine: "postgres", version: 7, commit: "3c7b564" },
  { name: "postgres-v8", engine: "postgres", version: 8, commit: "3b18248" },
];

export interface ManifestEntry {
  engine: "sqlite" | "postgres";
  version: number;
  commit: string;
  /** The batches' t0 (epoch ms): fixtureBatches(t0) is what was posted. */
  t0: number;
  /** Fields the version's contract refused, taken out of every batch. */
  refused: string[];
  /** What the server answered to fixtureRedeliveries(t0), in order. */
  redeliveries: unknown[];
  made: string;
}

const fixturesDir = (engine: FixtureSpec["engine"]) => path.resolve("server/store", engine, "migrations/fixtures");
/** How long an old server may take to start (ms): tsx compiles it on the way. */
const START_TIMEOUT_MS = 120_000;

function startOldServer(tree: string, db: string): Promise<{ child: ChildProcess; url: string }> {
  const entry = path.join(tree, "fixture-server.ts");
  fs.writeFileSync(entry, 'import { main } from "./server/cli/main.ts";\nawait main(process.argv.slice(2));\n');
  const args = ["--import", "tsx", entry, "serve", "--port", "0", "--no-ping", "--peer", "B=http://127.0.0.1:9"];
  const child = spawn(process.execPath, [...args, "--db", db], { cwd: tree, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(
      () => reject(new Error(`no address within ${START_TIMEOUT_MS} ms:\n${out}`)),
      START_TIMEOUT_MS,
    );
    const seen = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+?),?\s/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    };
    child.stdout!.on("data", seen);
    child.stderr!.on("data", seen);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the old server exited (${code}):\n${out}`));
    });
  });
}

async function post(url: string, batch: FixtureBatch): Promise<{ status: number; body: unknown }> {
  const { userAgent, ...envelope } = batch;
  for (;;) {
    const res = await fetch(`${url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "User-Agent": userAgent },
      body: JSON.stringify(envelope),
    });
    if (res.status === 429) {
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get("retry-after") ?? 1)));
      continue;
    }
    return { status: res.status, body: await res.json() };
  }
}

/** Every subset of `xs`, smallest first. */
function subsets<T>(xs: readonly T[]): T[][] {
  const all: T[][] = [];
  for (let mask = 0; mask < 1 << xs.length; mask++) all.push(xs.filter((_, i) => (mask >> i) & 1));
  return all.sort((a, b) => a.length - b.length);
}

/**
 * Posts every batch without the fewest later fields the version refuses (a
 * refused batch stores nothing, so trying is harmless); returns those fields
 * and the answers to the redeliveries.
 */
async function postAll(url: string, t0: number): Promise<{ refused: string[]; redeliveries: unknown[] }> {
  const [first, ...rest] = fixtureBatches(t0);
  let refused: string[] | null = null;
  for (const without of subsets<string>([...LATER_SAMPLE_FIELDS, ...LATER_BATCH_FIELDS]))
    if ((await post(url, asAccepted(first!, without))).status === 200) {
      refused = without;
      break;
    }
  if (refused === null) throw new Error("the first batch was refused whatever was left out");
  for (const batch of rest) {
    const r = await post(url, asAccepted(batch, refused));
    if (r.status !== 200) throw new Error(`batch refused: ${JSON.stringify(r.body)}`);
  }
  const redeliveries: unknown[] = [];
  for (const batch of fixtureRedeliveries(t0)) {
    const r = await post(url, asAccepted(batch, refused));
    if (r.status !== 200) throw new Error(`redelivery refused: ${JSON.stringify(r.body)}`);
    redeliveries.push(r.body);
  }
  return { refused, redeliveries };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

async function make(spec: FixtureSpec, pg: () => Promise<TestPostgres>): Promise<ManifestEntry> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `tailprobe-fixture-${spec.name}-`));
  const tree = path.join(work, "tree");
  execFileSync("git", ["worktree", "add", "--detach", tree, spec.commit], { stdio: "ignore" });
  try {
    fs.symlinkSync(path.resolve("node_modules"), path.join(tree, "node_modules"));
    const db =
      spec.engine === "sqlite"
        ? path.join(work, "fixture.db")
        : await (await pg()).createDatabase(`fx_${spec.version}`);
    // A whole minute two hours ago: inside every version's retention and time window.
    const t0 = Math.floor((Date.now() - 2 * 3_600_000) / 60_000) * 60_000;
    const server = await startOldServer(tree, db);
    let posted: { refused: string[]; redeliveries: unknown[] };
    try {
      posted = await postAll(server.url, t0);
    } finally {
      await stop(server.child);
    }
    const dump = path.join(fixturesDir(spec.engine), `v${spec.version}.sql`);
    if (spec.engine === "sqlite") fs.writeFileSync(dump, execFileSync("sqlite3", [db, ".dump"]));
    else execFileSync("pg_dump", ["--inserts", "--no-owner", "--no-privileges", "--no-comments", "-f", dump, "-d", db]);
    const commit = execFileSync("git", ["rev-parse", spec.commit], { encoding: "utf8" }).trim();
    return {
      engine: spec.engine,
      version: spec.version,
      commit,
      t0,
      ...posted,
      made: new Date().toISOString().slice(0, 10),
    };
  } finally {
    execFileSync("git", ["worktree", "remove", "--force", tree], { stdio: "ignore" });
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const names = process.argv.slice(2);
const chosen = names.length === 0 ? FIXTURES : FIXTURES.filter((f) => names.includes(f.name));
/** The throwaway cluster, started by the first postgres-* fixture. */
const pg: { cluster: Promise<TestPostgres> | null } = { cluster: null };
try {
  for (const spec of chosen) {
    console.log(`${spec.name}: ${spec.engine} version ${spec.version} as commit ${spec.commit} wrote it`);
    const file = path.join(fixturesDir(spec.engine), "manifest.json");
    const manifest: Record<string, ManifestEntry> = fs.existsSync(file)
      ? JSON.parse(fs.readFileSync(file, "utf8"))
      : {};
    const entry = await make(spec, () => (pg.cluster ??= startPostgres()));
    manifest[`v${spec.version}`] = entry;
    fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
    console.log(`  refused ${JSON.stringify(entry.refused)}, redeliveries ${JSON.stringify(entry.redeliveries)}`);
  }
} finally {
  if (pg.cluster !== null) await (await pg.cluster).stop();
}
