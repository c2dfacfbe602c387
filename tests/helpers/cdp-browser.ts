// Chromium driven over its DevTools protocol directly, for tests that need a
// tab really in the background. Playwright cannot give one: its launch adds
// --disable-background-timer-throttling, --disable-renderer-backgrounding and
// --disable-backgrounding-occluded-windows, and every page it attaches to is
// kept "visible" (its Emulation.setFocusEmulationEnabled holds a capture
// handle on the page), so a tab behind another one never hides. Here Chromium
// gets only CHROMIUM_ARGS, and a tab behind another tab is hidden, throttled
// and freezable as in a user's browser.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../testkit/browser.js";

/** How long one DevTools command may take before the test is told (ms). */
const COMMAND_TIMEOUT_MS = 30_000;
/** How long Browser.close may take before the process is killed (ms). */
const CLOSE_TIMEOUT_MS = 5000;

export interface CdpTab {
  targetId: string;
  /** A DevTools command on this tab's session. */
  send<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** Evaluates an expression in the page (promises awaited) and returns its JSON value. */
  evaluate<T>(expression: string): Promise<T>;
  /** Brings this tab in front of the others of its window; the one in front before is hidden. */
  activate(): Promise<void>;
  /** The tab's document.visibilityState. */
  visibility(): Promise<string>;
}

export interface CdpBrowser {
  /** Opens a tab on url in the browser's one window (in front of the others). */
  open(url: string): Promise<CdpTab>;
  close(): Promise<void>;
}

interface Message {
  id?: number;
  result?: unknown;
  error?: { message: string };
}

export async function launchCdpBrowser(): Promise<CdpBrowser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tailprobe-chromium-cdp-"));
  // fd 3 carries commands to Chromium, fd 4 its answers, each a JSON text ended by NUL.
  const child: ChildProcess = spawn(
    CHROMIUM_PATH,
    [...CHROMIUM_ARGS, `--user-data-dir=${userDataDir}`, "--remote-debugging-pipe", "about:blank"],
    {
      stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    },
  );
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  let nextId = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let buffered = "";
  fromBrowser.on("data", (d: Buffer) => {
    buffered += d.toString();
    for (let end = buffered.indexOf("\0"); end >= 0; end = buffered.indexOf("\0")) {
      const msg = JSON.parse(buffered.slice(0, end)) as Message;
      buffered = buffered.slice(end + 1);
      const p = msg.id === undefined ? undefined : pending.get(msg.id);
      if (p === undefined) continue; // an event: these tests poll the page instead
      pending.delete(msg.id!);
      if (msg.error) p.reject(new Error(msg.error.message));
      else p.resolve(msg.result);
    }
  });
  child.once("exit", (code) => {
    for (const p of pending.values())
      p.reject(new Error(`chromium exited (${code}) with commands pending:\n${stderr}`));
    pending.clear();
  });

  function send<T>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${method}: no answer from chromium within ${COMMAND_TIMEOUT_MS} ms`));
      }, COMMAND_TIMEOUT_MS);
      pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v as T)),
        reject: (e) => (clearTimeout(timer), reject(new Error(`${method}: ${e.message}`))),
      });
      toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  }

  // The first answer says the pipe is up.
  await send("Browser.getVersion");

  return {
    async open(url) {
      // The tab starts blank so that the harness's own evaluations bypass the page's Content-Security-Policy before it loads.
      const { targetId } = await send<{ targetId: string }>("Target.createTarget", { url: "about:blank" });
      const { sessionId } = await send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true });
      const tabSend = <T>(method: string, params?: Record<string, unknown>) => send<T>(method, params, sessionId);
      await tabSend("Page.enable");
      await tabSend("Page.setBypassCSP", { enabled: true });
      await tabSend("Page.navigate", { url });
      const evaluate = async <T>(expression: string): Promise<T> => {
        const r = await tabSend<{
          result: { value?: unknown };
          exceptionDetails?: { text: string; exception?: { description?: string } };
        }>("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
        if (r.exceptionDetails)
          throw new Error(`${expression}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
        return r.result.value as T;
      };
      return {
        targetId,
        send: tabSend,
        evaluate,
        activate: async () => void (await send("Target.activateTarget", { targetId })),
        visibility: () => evaluate<string>("document.visibilityState"),
      };
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        await Promise.race([
          send("Browser.close").catch(() => undefined),
          new Promise((r) => setTimeout(r, CLOSE_TIMEOUT_MS)),
        ]);
        const killer = setTimeout(() => child.kill("SIGKILL"), CLOSE_TIMEOUT_MS);
        await exited;
        clearTimeout(killer);
      }
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
