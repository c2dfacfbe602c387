// Launches Debian's Chromium through playwright-core with the flags that work
// on a machine with no outside network, each run in a fresh profile.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM_PATH = process.env.TAILPROBE_CHROMIUM ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface LaunchedBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(
  options: {
    colorScheme?: "light" | "dark";
    viewport?: { width: number; height: number };
    /** Accept self-signed certificates (TLS tests make their own). */
    ignoreHTTPSErrors?: boolean;
    /** Variables added to the browser's environment (e.g. a locale). */
    env?: Record<string, string>;
    /** Chromium flags beyond CHROMIUM_ARGS (e.g. --host-resolver-rules to give this browser a path of its own). */
    args?: readonly string[];
    /** Another Chromium executable, e.g. a wrapper that starts it in a network namespace (testkit/netns.ts). */
    executablePath?: string;
  } = {},
): Promise<LaunchedBrowser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tailprobe-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: options.executablePath ?? CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    colorScheme: options.colorScheme ?? "light",
    viewport: options.viewport ?? { width: 1280, height: 800 },
    ignoreHTTPSErrors: options.ignoreHTTPSErrors ?? false,
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Where tests save screenshots and other artefacts a person should look at. */
export function artifactPath(name: string): string {
  const dir = path.resolve("test-artifacts");
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}
