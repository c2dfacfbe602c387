// A real, throwaway PostgreSQL for tests and benchmarks: Debian's binaries
// (package `postgresql`, /usr/lib/postgresql/N/bin), a cluster in a temporary
// directory on a free loopback port, removed afterwards. PostgreSQL refuses
// to run as root, so when we are root the cluster belongs to the `postgres`
// user (created by the package) and every command runs through setpriv,
// which execs in place: a signal to the child reaches postgres itself.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import { freePort } from "./free-port.js";
import os from "node:os";
import path from "node:path";

/** What a test prints when it cannot run here. */
export const POSTGRES_MISSING =
  "skipped: install Debian's postgresql (apt-get install postgresql) to run the PostgreSQL cases";
/** Budget for the server to accept connections after a start (ms). */
const START_TIMEOUT_MS = 30_000;
/** Budget for a fast shutdown (ms); past it the server is killed. */
const STOP_TIMEOUT_MS = 15_000;
/** The unprivileged user a root process runs the cluster as. */
const RUN_AS_USER = "postgres";
const DB_USER = "tailprobe";

/** The newest installed major version's bin directory, or null. */
export function postgresBinDir(): string | null {
  const root = process.env.TAILPROBE_PG_BIN !== undefined ? null : "/usr/lib/postgresql";
  if (root === null) return process.env.TAILPROBE_PG_BIN!;
  let versions: string[];
  try {
    versions = fs.readdirSync(root);
  } catch {
    return null;
  }
  const usable = versions
    .filter(
      (v) => fs.existsSync(path.join(root, v, "bin", "initdb")) && fs.existsSync(path.join(root, v, "bin", "postgres")),
    )
    .sort((a, b) => Number(b) - Number(a));
  return usable[0] === undefined ? null : path.join(root, usable[0], "bin");
}

/**
 * Whether PostgreSQL cases run: true when the binaries are installed. In CI
 * (CI set, as .ci/run does) their absence is an error, never a silent skip.
 */
export function postgresAvailable(): boolean {
  if (postgresBinDir() !== null) return true;
  if (process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "0")
    throw new Error("PostgreSQL binaries are missing in CI: .ci/run must install Debian's postgresql");
  console.warn(POSTGRES_MISSING);
  return false;
}

export interface TestPostgres {
  /** postgres://tailprobe:PASSWORD@127.0.0.1:PORT/DB */
  readonly url: string;
  readonly port: number;
  /** The temporary directory holding the cluster (removed by stop). */
  readonly dir: string;
  /** A fresh empty database on the same cluster; resolves with its URL. */
  createDatabase(name: string): Promise<string>;
  /** Fast shutdown (clients disconnected); the data stays for `start`. */
  stopServer(): Promise<void>;
  /** Starts again on the same port and data. */
  startServer(): Promise<void>;
  /** Stops the server and removes the directory. */
  stop(): Promise<void>;
}

const asRoot = () => process.getuid?.() === 0;
/** The command line, through setpriv when we are root. */
const asUser = (bin: string, args: string[]): [string, string[]] =>
  asRoot()
    ? ["setpriv", [`--reuid=${RUN_AS_USER}`, `--regid=${RUN_AS_USER}`, "--init-groups", bin, ...args]]
    : [bin, args];

function run(bin: string, args: string[], env: NodeJS.ProcessEnv = {}): void {
  const [cmd, argv] = asUser(bin, args);
  const r = spawnSync(cmd, argv, { encoding: "utf8", env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${path.basename(bin)} failed (${r.status}): ${r.stderr || r.stdout}`);
}

async function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

export interface StartPostgresOptions {
  /**
   * A directory (writable by the cluster's user) for the data directory
   * instead of the temporary one, e.g. a small file system a test fills;
   * the WAL stays in the temporary directory, so a full disk fails writes
   * with SQLSTATE 53100 rather than stopping the server.
   */
  dataParent?: string;
}

export async function startPostgres(options: StartPostgresOptions = {}): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (bin === null) throw new Error(POSTGRES_MISSING);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tailprobe-pg-"));
  const data = path.join(options.dataParent ?? dir, "data");
  const pwfile = path.join(dir, "pw");
  const password = randomBytes(12).toString("hex");
  fs.writeFileSync(pwfile, password, { mode: 0o600 });
  if (asRoot()) {
    const uid = Number(spawnSync("id", ["-u", RUN_AS_USER], { encoding: "utf8" }).stdout.trim());
    const gid = Number(spawnSync("id", ["-g", RUN_AS_USER], { encoding: "utf8" }).stdout.trim());
    if (!Number.isInteger(uid) || uid <= 0)
      throw new Error(`user ${RUN_AS_USER} is missing (Debian's postgresql package creates it)`);
    fs.chownSync(dir, uid, gid);
    fs.chownSync(pwfile, uid, gid);
    if (options.dataParent !== undefined) fs.chownSync(options.dataParent, uid, gid);
  }
  run(path.join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    DB_USER,
    `--pwfile=${pwfile}`,
    "--auth=scram-sha-256",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
    ...(options.dataParent === undefined ? [] : [`--waldir=${path.join(dir, "wal")}`]),
  ]);
  fs.rmSync(pwfile);
  const port = await freePort();
  let child: ChildProcess | null = null;
  let log = "";

  async function startServer(): Promise<void> {
    // fsync off: a test cluster survives process kills (what the tests do), not power loss.
    const [cmd, argv] = asUser(path.join(bin!, "postgres"), [
      "-D",
      data,
      "-p",
      String(port),
      "-k",
      dir,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "fsync=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=100",
    ]);
    const c = spawn(cmd, argv, { stdio: ["ignore", "ignore", "pipe"] });
    child = c;
    c.stderr!.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-8000)));
    const deadline = Date.now() + START_TIMEOUT_MS;
    // Accepting TCP is not yet accepting logins: the log line says the server is ready.
    while (!/ready to accept connections/.test(log) || !(await canConnect(port))) {
      if (c.exitCode !== null || Date.now() > deadline) throw new Error(`postgres did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    log = "";
  }

  async function stopServer(): Promise<void> {
    const c = child;
    child = null;
    if (c === null || c.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => c.once("exit", () => resolve()));
    // SIGINT: PostgreSQL's fast shutdown, clients are disconnected.
    c.kill("SIGINT");
    const timer = setTimeout(() => c.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  await startServer();
  const base = `postgres://${DB_USER}:${password}@127.0.0.1:${port}`;
  let created = 0;
  return {
    url: `${base}/postgres`,
    port,
    dir,
    async createDatabase(name) {
      const db = `${name.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${++created}`;
      run(path.join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", DB_USER, db], {
        PGPASSWORD: password,
      });
      return `${base}/${db}`;
    },
    stopServer,
    startServer,
    async stop() {
      await stopServer();
      fs.rmSync(dir, { recursive: true, force: true });
      if (options.dataParent !== undefined) fs.rmSync(data, { recursive: true, force: true });
    },
  };
}
