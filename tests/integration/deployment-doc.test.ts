// docs/deployment.md's PostgreSQL guide, run as written on a Debian cluster
// of its own (pg_createcluster, as the package would make `15 main`): start
// it, create the role and database with runuser, start tailprobe on the URL
// and check the schema line it prints is the doc's, then back up with
// pg_dump, restore with createdb and pg_restore --no-owner, and check that a
// server on the restored database answers what the original did. Only the
// cluster's name and port, the host and the password differ from the doc.
// Needs root (runuser, a cluster under /var/lib/postgresql): CI runs as root.
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { StatsResponse } from "../../shared/contract/index.js";
import { freePort } from "../../testkit/free-port.js";
import { postgresBinDir } from "../../testkit/postgres.js";
import { startServerProcess, tempDir, type ServerProcess } from "../../testkit/server-process.js";

const DOC = fs.readFileSync(path.resolve("docs/deployment.md"), "utf8");
const SECTION = DOC.slice(DOC.indexOf("## Many servers, one database"), DOC.indexOf("### What scales how"));
const BLOCKS = [...SECTION.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

/** The doc's sh block holding `line`. */
function block(line: string): string {
  const found = BLOCKS.find((b) => b.includes(line));
  expect(found, `docs/deployment.md has a sh block with '${line}'`).toBeDefined();
  return found!;
}

const asRoot = process.getuid?.() === 0;
const hasDebianTools = ["/usr/bin/pg_createcluster", "/usr/bin/pg_ctlcluster", "/usr/sbin/runuser"].every((p) =>
  fs.existsSync(p),
);
const inCi = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "0";
const runnable = asRoot && hasDebianTools && postgresBinDir() !== null;
if (!runnable)
  console.warn(
    "skipped: docs/deployment.md's PostgreSQL commands need root and Debian's postgresql (pg_createcluster, runuser)",
  );

const version = path.basename(path.dirname(postgresBinDir() ?? "/x/15/bin"));
const cluster = `tp${process.pid}`;
const password = randomBytes(12).toString("hex");
let port = 0;
const servers: ServerProcess[] = [];
let created = false;

afterAll(async () => {
  for (const s of servers) await s.stop();
  if (created) spawnSync("pg_dropcluster", [version, cluster, "--stop"], { stdio: "ignore" });
});

/** The doc's commands for this cluster: its version, name and port, this host, this password. */
function forTest(code: string): string {
  const out = code
    .replaceAll(`pg_ctlcluster 15 main`, `pg_ctlcluster ${version} ${cluster}`)
    .replaceAll("--port 5432", `--port ${port}`)
    .replaceAll("--port=5432", `--port=${port}`)
    .replaceAll("db.example:5432", `127.0.0.1:${port}`)
    .replaceAll("db.example", "127.0.0.1")
    .replaceAll("'the password'", `'${password}'`);
  expect(out, "the block names the cluster, port or host").not.toBe(code);
  return out;
}

/** Runs doc commands with sh -e in `cwd`, `input` on standard input; their output, or the failure with it. */
function sh(code: string, cwd: string, input = ""): string {
  const r = spawnSync("sh", ["-e", "-c", code], { cwd, input, encoding: "utf8", timeout: 120_000 });
  expect(r.status, `${code}\n${r.stdout}${r.stderr}`).toBe(0);
  return r.stdout;
}

async function answers(server: ServerProcess, from: number, to: number) {
  const get = async (p: string) => (await fetch(`${server.url}${p}`)).text();
  return {
    stats: JSON.parse(await get(`/api/stats?from=${from}&to=${to}`)) as StatsResponse,
    clients: await get("/api/clients"),
    export: await get(`/api/samples.csv?from=${from}&to=${to}`),
  };
}

describe.skipIf(!runnable && !inCi)("docs/deployment.md's PostgreSQL guide, as written", () => {
  it("the guide assumes neither sudo nor systemd", () => {
    expect(SECTION).not.toMatch(/\bsudo (-u|apt|tee|systemctl)/);
    expect(SECTION).not.toMatch(/systemctl/);
    expect(block("apt-get install -y postgresql")).toBe("apt-get install -y postgresql\n");
  });

  it("starts the cluster, creates the role and database, and a server on them prints the doc's schema line; a dump restored answers the same", {
    timeout: 240_000,
  }, async () => {
    expect(runnable, "CI runs as root with Debian's postgresql").toBe(true);
    port = await freePort();
    // What `apt-get install postgresql` does for `15 main`: a cluster, down until started.
    execFileSync("pg_createcluster", [version, cluster, "--port", String(port)], { stdio: "ignore" });
    created = true;
    const dir = tempDir("tailprobe-deploy-");
    fs.chmodSync(dir, 0o755);

    const listed = sh(forTest(block("pg_ctlcluster 15 main start")), dir, `${password}\n${password}\n`);
    expect(listed).toMatch(new RegExp(`^${version}\\s+${cluster}\\s+${port}\\s+down`, "m"));

    // Step 2's command line: its URL and name, on a free port (the doc's listens on 8080 on every interface).
    const serve = forTest(block("tailprobe serve --name eu --host 0.0.0.0"));
    const url = /--db (\S+)/.exec(serve)![1]!;
    const env = { PGPASSWORD: /PGPASSWORD='([^']+)'/.exec(serve)![1]! };
    const original = await startServerProcess(["--name", "eu", "--host", "127.0.0.1", "--no-ping"], {
      dbPath: url,
      env,
    });
    servers.push(original);
    const printed = /The first start prints `([^`]+)`/.exec(SECTION)?.[1];
    expect(printed, "the doc says what the first start prints").toBeDefined();
    expect(original.output()).toContain(`${printed}\n`);

    const t0 = Date.now() - 120_000;
    const samples = Array.from({ length: 300 }, (_, i) => ({
      seq: i,
      t: t0 + i * 100,
      method: ["xhr", "ws", "jsonp"][i % 3],
      target: "eu",
      ms: i % 50 === 7 ? null : 1 + ((i * 37) % 100) / 10,
      outcome: i % 50 === 7 ? "error" : "ok",
      ...(i % 50 === 7 ? { reason: "page-closed" } : {}),
    }));
    const posted = await fetch(`${original.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        clientId: "client_deploy_doc",
        sessionId: "session_deploy_doc",
        label: "office",
        samples,
      }),
    });
    expect(posted.status, await posted.clone().text()).toBe(200);
    const before = await answers(original, t0 - 1, t0 + 60_000);
    expect(before.stats.rows.reduce((n, r) => n + r.count, 0)).toBe(294);

    sh([forTest(block("pg_dump --format=custom")), forTest(block("pg_restore --no-owner"))].join("\n"), dir);
    expect(fs.statSync(path.join(dir, "tailprobe.dump")).size).toBeGreaterThan(1000);

    const restoredUrl = forTest(/`--db (postgres:\/\/\S+_restored)`/.exec(SECTION)![1]!);
    const restored = await startServerProcess(["--name", "eu", "--host", "127.0.0.1", "--no-ping"], {
      dbPath: restoredUrl,
      env,
    });
    servers.push(restored);
    // The restored database is at the current schema: no server creates or upgrades it.
    expect(restored.output()).not.toMatch(/creating the PostgreSQL schema/);
    expect(await answers(restored, t0 - 1, t0 + 60_000)).toEqual(before);
  });
});
