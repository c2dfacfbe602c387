// Runs `tailprobe serve` (or a benchmark's bare server) as a real child
// process on a free port, the way a user runs it, and tells the caller where
// it listens.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const BIN = path.resolve("bin/tailprobe.js");

/** `tailprobe serve` as a child process. */
export interface ServerProcess extends ChildServer {
  port: number;
  dbPath: string;
}

export function tempDir(prefix = "tailprobe-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A server running as a child process of this one. */
export interface ChildServer {
  url: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit: a crash, not a shutdown. */
  kill(): Promise<void>;
}

/**
 * How long a server may take to print its address. It takes well under a
 * second here; on a CI machine with every lane's browsers busy (load average
 * 20) one took more than 15 s, so the bound catches a hang, not a slow start.
 */
export const SERVER_START_MS_DEFAULT = 30_000;

export interface ChildServerOptions {
  /** How long it may take to print its address (ms; default SERVER_START_MS_DEFAULT). */
  timeoutMs?: number;
  env?: Record<string, string>;
  /** Also write what it prints on stderr to ours, as it comes (a benchmark's log). */
  echoStderr?: boolean;
  /** argv that runs node, e.g. in a network namespace (testkit/netns.ts execIn). */
  prefix?: string[];
}

/**
 * Starts `node ...argv` and resolves once it prints "listening on URL":
 * tailprobe does, and so do the bare servers the benchmarks compare it with.
 */
export async function startNodeServer(argv: string[], options: ChildServerOptions = {}): Promise<ChildServer> {
  const [cmd, ...pre] = [...(options.prefix ?? []), process.execPath];
  const child = spawn(cmd!, [...pre, ...argv], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...options.env },
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => {
    out += d.toString();
    if (options.echoStderr === true) process.stderr.write(d);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${argv.join(" ")} did not start:\n${out}`));
    }, options.timeoutMs ?? SERVER_START_MS_DEFAULT);
    const check = () => {
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${argv.join(" ")} exited with ${code}:\n${out}`));
    });
  });
  const stopWith = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { url, child, output: () => out, stop: () => stopWith("SIGTERM"), kill: () => stopWith("SIGKILL") };
}

/** `tailprobe serve --port 0 --db DB ARGS…` (DB a new file in a temporary folder unless given). */
export async function startServerProcess(
  args: string[],
  options: ChildServerOptions & { dbPath?: string } = {},
): Promise<ServerProcess> {
  const dbPath = options.dbPath ?? path.join(tempDir(), "tailprobe.db");
  const server = await startNodeServer([BIN, "serve", "--port", "0", "--db", dbPath, ...args], options);
  return { ...server, port: Number(new URL(server.url).port), dbPath };
}

/** Waits until `a` has learned the name of its peer from the peer's /api/config, before a page asks `a` for its servers. */
export async function waitForPeerName(a: { url: string }, name: string): Promise<void> {
  await waitFor(
    async () => {
      const cfg = (await (await fetch(`${a.url}/api/config`)).json()) as { servers: { name: string }[] };
      return cfg.servers.some((s) => s.name === name) ? true : undefined;
    },
    10_000,
    `${a.url} to learn its peer's name ${name}`,
  );
}

/** Runs the CLI to completion and returns its exit code and output. */
export function runCli(
  args: string[],
  timeoutMs = 10_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`tailprobe ${args.join(" ")} did not exit within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export async function getJson<T = unknown>(url: string): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

/** Polls until check returns a value or the time is up. */
export async function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
