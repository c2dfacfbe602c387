// A real tailprobe server in this process on a free port: fast enough for
// tests that need many requests, real enough that every byte crosses a socket.
import path from "node:path";
import { startServer, type RunningServer, type ServerDeps } from "../../server/app.js";
import { parseServeArgs, type ServeOptions } from "../../server/cli/options.js";
import { tempDir } from "../../testkit/server-process.js";

export async function startInProcess(
  args: string[] = [],
  log: string[] = [],
  deps: Omit<ServerDeps, "log"> = {},
): Promise<RunningServer & { options: ServeOptions }> {
  const parsed = parseServeArgs(["--port", "0", "--db", path.join(tempDir(), "tailprobe.db"), "--no-ping", ...args]);
  if (!parsed.ok || parsed.value === "help") throw new Error(`bad test flags: ${parsed.ok ? "help" : parsed.error}`);
  const server = await startServer(parsed.value, { ...deps, log: (line) => void log.push(line) });
  return Object.assign(server, { options: parsed.value });
}
