// Child processes (ping, ss) started by a small helper process instead of the
// server itself. fork() copies the caller's page tables while its thread
// waits: from a server holding 2,000 tabs (~470 MB) a spawn took ~20 ms of
// the event loop, and the baselines start one a second (ss) plus the pings'
// rotation, so every second an echo could wait that long: the capacity
// run's p99. The helper is started with the server, while it is small, and
// its own forks cost it ~1 ms, off the server's event loop. Decision 0031.
import { type ChildProcess, spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import path from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import type { HelperEvent, HelperRequest } from "./spawner-protocol.js";

/** What the baselines use of a child process: Node's ChildProcess has it, and so does a helper's child. */
export type Spawned = Pick<ChildProcess, "stdout" | "stderr" | "pid" | "kill" | "on" | "once">;
export type SpawnFn = (command: string, args: readonly string[]) => Spawned;

/** Node's own spawn: where no helper runs (unit tests, a fake command). */
export const directSpawn: SpawnFn = (command, args) => spawn(command, [...args], { stdio: ["ignore", "pipe", "pipe"] });

/** A child of the helper, seen from the server: its output as streams, its end as 'close'. */
class HelperChild extends EventEmitter {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  pid: number | undefined;
  private ended = false;

  constructor(
    private readonly request: (r: HelperRequest) => void,
    private readonly id: number,
  ) {
    super();
  }

  kill(signal: NodeJS.Signals | number = "SIGTERM"): boolean {
    if (this.ended) return false;
    this.request({ op: "kill", id: this.id, signal: typeof signal === "number" ? "SIGTERM" : signal });
    return true;
  }

  deliver(e: HelperEvent): void {
    switch (e.event) {
      case "spawn":
        this.pid = e.pid;
        break;
      case "stdout":
      case "stderr":
        (e.event === "stdout" ? this.stdout : this.stderr).write(
          Buffer.from(e.data.buffer, e.data.byteOffset, e.data.byteLength),
        );
        break;
      case "error":
        this.emit("error", Object.assign(new Error(e.message), { code: e.code ?? undefined }));
        break;
      case "close":
        this.end(e.code, e.signal);
    }
  }

  /** Ends the streams first ('end' runs on the next tick), then says 'close', as a ChildProcess does. */
  end(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.ended) return;
    this.ended = true;
    this.stdout.end();
    this.stderr.end();
    setImmediate(() => this.emit("close", code, signal));
  }
}

export interface Spawner {
  spawn: SpawnFn;
  /** Stops the helper; it stops its children. */
  close(): void;
}

/** The helper's entry beside this file: built JavaScript, or TypeScript through tsx when the server runs from source. */
function helperArgv(): string[] {
  const self = fileURLToPath(import.meta.url);
  const fromSource = self.endsWith(".ts");
  const file = path.join(path.dirname(self), `spawner-process.${fromSource ? "ts" : "js"}`);
  return fromSource ? ["--import", "tsx", file] : [file];
}

/** Starts the helper now (call it while the server is small: at start-up). */
export function startSpawner(log: (line: string) => void = () => {}): Spawner {
  let helper: ChildProcess | undefined;
  let closed = false;
  let nextId = 1;
  const live = new Map<number, HelperChild>();

  const launch = (): ChildProcess => {
    const h = spawn(process.execPath, helperArgv(), {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      serialization: "advanced",
    });
    h.on("message", (e: HelperEvent) => {
      const child = live.get(e.id);
      if (child === undefined) return;
      if (e.event === "close") live.delete(e.id);
      child.deliver(e);
    });
    h.on("error", (err) => log(`tailprobe: the process spawner failed: ${err.message}`));
    h.on("exit", (code, signal) => {
      if (helper === h) helper = undefined;
      if (!closed) log(`tailprobe: the process spawner exited (${signal ?? code}); the next child starts a new one`);
      // Its children went with it: each ends as a process that exited (pingers restart as after any exit).
      for (const child of live.values()) child.end(null, null);
      live.clear();
    });
    // Neither the helper nor its channel keeps the server running.
    h.unref();
    (h.channel as { unref?: () => void } | undefined)?.unref?.();
    return h;
  };
  helper = launch();

  return {
    spawn(command, args) {
      const id = nextId++;
      const send = (r: HelperRequest) => {
        if (helper?.connected === true) helper.send(r);
      };
      const child = new HelperChild(send, id);
      if (closed) {
        child.end(null, null);
        return child as unknown as Spawned;
      }
      helper ??= launch();
      live.set(id, child);
      send({ op: "spawn", id, command, args: [...args] });
      return child as unknown as Spawned;
    },
    close() {
      closed = true;
      if (helper?.connected === true) helper.disconnect();
      helper = undefined;
      for (const child of live.values()) child.end(null, null);
      live.clear();
    },
  };
}

export interface RunResult {
  stdout: Buffer;
  stderr: Buffer;
  /** null when it exited 0. */
  error: { code: string | number | null; killed: boolean; message: string } | null;
}

/** Runs a command to its end, like execFile: its output as bytes, killed after timeoutMs or past maxBytes. */
export function runToEnd(
  spawnFn: SpawnFn,
  command: string,
  args: readonly string[],
  o: { timeoutMs: number; maxBytes: number },
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawnFn(command, args);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let killed = false;
    let failure: { code: string | null; message: string } | null = null;
    const stop = () => {
      killed = true;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(stop, o.timeoutMs);
    const take = (into: Buffer[]) => (d: Buffer) => {
      bytes += d.length;
      if (bytes > o.maxBytes) stop();
      else into.push(d);
    };
    child.stdout?.on("data", take(out));
    child.stderr?.on("data", take(err));
    child.on("error", (e: NodeJS.ErrnoException) => (failure = { code: e.code ?? null, message: e.message }));
    child.once("close", (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out);
      const stderr = Buffer.concat(err);
      if (failure !== null) return resolve({ stdout, stderr, error: { ...failure, killed } });
      if (code === 0 && !killed) return resolve({ stdout, stderr, error: null });
      const message = `${command} ${signal !== null ? `was killed (${signal})` : `exited with ${code}`}`;
      resolve({ stdout, stderr, error: { code, killed, message } });
    });
  });
}
