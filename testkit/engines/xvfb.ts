// A virtual X display for browsers with no headless mode (WebKitGTK's
// MiniBrowser). Xvfb picks a free display number itself and writes it to the
// descriptor given by -displayfd, so parallel test files never collide.
import { spawn } from "node:child_process";
import type { Readable } from "node:stream";

/** How long Xvfb may take to announce its display (ms). */
const XVFB_START_TIMEOUT_MS = 10_000;
/** Screen size; windows are sized inside it (pixels × pixels × depth). */
const XVFB_SCREEN = "1600x1200x24";

export interface VirtualDisplay {
  /** ":N", for DISPLAY. */
  display: string;
  stop(): Promise<void>;
}

export async function startXvfb(): Promise<VirtualDisplay> {
  const child = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", XVFB_SCREEN, "-nolisten", "tcp"], {
    stdio: ["ignore", "ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const display = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`Xvfb gave no display within ${XVFB_START_TIMEOUT_MS} ms:\n${stderr}`));
    }, XVFB_START_TIMEOUT_MS);
    (child.stdio[3] as Readable).on("data", (d: Buffer) => {
      out += d.toString();
      const m = /^(\d+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(`:${m[1]}`);
      }
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb: ${err.message} (Debian package xvfb)`));
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited (${code}) before giving a display:\n${stderr}`));
    });
  });
  return {
    display,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
