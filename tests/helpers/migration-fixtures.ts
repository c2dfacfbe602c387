// The migration fixtures (server/store/<engine>/migrations/fixtures/:
// databases written by older schema versions' own code, dumped as SQL by
// scripts/dev/migration-fixtures.mts) and how a test loads one into a fresh
// database of its engine.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { Sample } from "../../shared/contract/index.js";
import { asAccepted, fixtureBatches, fixtureRedeliveries } from "../../testkit/migration-samples.js";
import { postgresBinDir } from "../../testkit/postgres.js";
import { testPostgres } from "./store-kinds.js";

const fixturesDir = (engine: string) => path.resolve("server/store", engine, "migrations/fixtures");

/** A manifest entry (scripts/dev/migration-fixtures.mts ManifestEntry). */
export interface Fixture {
  engine: "sqlite" | "postgres";
  version: number;
  commit: string;
  /** fixtureBatches(t0) is what was posted (testkit/migration-samples.ts). */
  t0: number;
  /** Fields the version refused, taken out of every batch. */
  refused: string[];
  /** What it answered to fixtureRedeliveries(t0). */
  redeliveries: { accepted: number; duplicates: number }[];
}

/** Every fixture by name ("sqlite-v1", "postgres-v5"), oldest version first. */
export const MIGRATION_FIXTURES: Record<string, Fixture> = Object.fromEntries(
  ["sqlite", "postgres"].flatMap((engine) =>
    Object.entries(
      JSON.parse(fs.readFileSync(path.join(fixturesDir(engine), "manifest.json"), "utf8")) as Record<string, Fixture>,
    )
      .sort((a, b) => a[1].version - b[1].version)
      .map(([v, fx]) => [`${engine}-${v}`, fx]),
  ),
);

/** What the fixture's version stored: the accepted batches' samples by session, and the second copy of a seq where it kept one. */
export function storedSamples(fx: Fixture): { sessionId: string; sample: Sample }[] {
  const stored = fixtureBatches(fx.t0).flatMap((b) =>
    asAccepted(b, fx.refused).samples.map((sample) => ({ sessionId: b.sessionId, sample })),
  );
  if (fx.redeliveries[1]!.accepted === 1) {
    const copy = asAccepted(fixtureRedeliveries(fx.t0)[1]!, fx.refused);
    stored.push({ sessionId: copy.sessionId, sample: copy.samples[0]! });
  }
  return stored;
}

let loaded = 0;

/** A fixture's dump loaded into a fresh database of its engine: the file (in `dir`), or the URL. */
export async function loadFixture(name: string, dir: string): Promise<string> {
  const fx = MIGRATION_FIXTURES[name]!;
  const dump = path.join(fixturesDir(fx.engine), `v${fx.version}.sql`);
  const id = `${name.replace(/\W/g, "_")}_${process.pid}_${loaded++}`;
  if (fx.engine === "sqlite") {
    const file = path.join(dir, `${id}.db`);
    const db = new Database(file);
    db.exec(fs.readFileSync(dump, "utf8"));
    db.close();
    return file;
  }
  const url = await (await testPostgres()).createDatabase(id);
  execFileSync(path.join(postgresBinDir()!, "psql"), ["-q", "-v", "ON_ERROR_STOP=1", "-f", dump, "-d", url], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  return url;
}
