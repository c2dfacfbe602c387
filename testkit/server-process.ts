// Runs `tailprobe serve` as a real child process on a free port, the way a
// user runs it, and tells the test where it listens.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const BIN = path.resolve("bin/tailprobe.js");

export interface ServerProcess {
  url: string;
  port: number;
  dbPath: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit: a crash, not a shutdown. */
  kill(): Promise<void>;
}

export function tempDir(prefix = "tailprobe-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startServerProcess(
  args: string[],
  options: { dbPath?: string; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<ServerProcess> {
  const dbPath = options.dbPath ?? path.join(tempDir(), "tailprobe.db");
  const argv = [BIN, "serve", "--port", "0", "--db", dbPath, ...args];
  const child = spawn(process.execPath, argv, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...options.env },
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), options.timeoutMs ?? 15_000);
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
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
  const stopWith = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    url,
    port: Number(new URL(url).port),
    dbPath,
    child,
    output: () => out,
    stop: () => stopWith("SIGTERM"),
    kill: () => stopWith("SIGKILL"),
  };
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
