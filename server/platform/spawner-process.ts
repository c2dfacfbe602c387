// The spawner's helper process (server/platform/spawner.ts): a small Node
// process that starts the server's children (ping, ss) on request and relays
// what they print and how they end over its IPC channel. It exists because
// fork() copies the caller's page tables: from a server of 470 MB it took
// ~20 ms of its event loop per child, from this process about 1 ms.
import { type ChildProcess, spawn } from "node:child_process";
import type { HelperEvent, HelperRequest } from "./spawner-protocol.js";

const children = new Map<number, ChildProcess>();
// The server may close the channel while a child's last words are on their
// way (it is stopping): a failed send is dropped, not an uncaught EPIPE.
const send = (e: HelperEvent) => {
  if (process.connected) process.send?.(e, undefined, {}, () => {});
};

function start(id: number, command: string, args: string[]): void {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  children.set(id, child);
  child.once("spawn", () => send({ id, event: "spawn", pid: child.pid ?? -1 }));
  child.stdout?.on("data", (data: Buffer) => send({ id, event: "stdout", data }));
  child.stderr?.on("data", (data: Buffer) => send({ id, event: "stderr", data }));
  child.on("error", (err: NodeJS.ErrnoException) =>
    send({ id, event: "error", code: err.code ?? null, message: err.message }),
  );
  child.once("close", (code, signal) => {
    children.delete(id);
    send({ id, event: "close", code, signal });
  });
}

process.on("message", (m: HelperRequest) => {
  if (m.op === "spawn") start(m.id, m.command, m.args);
  else if (m.op === "kill") children.get(m.id)?.kill(m.signal);
});

// The server is gone (or closed the channel): its children go with it, so no ping outlives it.
process.on("disconnect", () => {
  for (const child of children.values()) child.kill("SIGTERM");
  process.exit(0);
});
