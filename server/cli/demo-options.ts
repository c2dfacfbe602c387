// Flags of `tailprobe demo`: server A plus a local server B on the next port.
import { parseArgs } from "node:util";
import { fail, ok, type Result } from "../../shared/result.js";
import { DB_PATH_DEFAULT, parseServeArgs, type ServeOptions } from "./options.js";
import { isPostgresUrl } from "../store/postgres/dialect.js";

export function demoHelp(): string {
  return [
    "Usage: tailprobe demo [--port 8080] [--host 127.0.0.1] [--db ./data/tailprobe.db | --db postgres://…]",
    "                      [--alerts FILE] [--alertmanager URL] [--notify URL]...",
    "",
    "Runs server A on --port and server B on --port + 1 as A's peer, each with its",
    "own database (B's is the same path with -B before the extension); with a",
    "postgres:// URL both write to that one database, as a deployment's servers do.",
    "The alerting flags (see tailprobe serve --help) apply to A, whose pages report there.",
  ].join("\n");
}

export function peerDbPath(dbPath: string, name: string): string {
  if (isPostgresUrl(dbPath)) return dbPath;
  return /\.db$/.test(dbPath) ? dbPath.replace(/\.db$/, `-${name}.db`) : `${dbPath}-${name}`;
}

/** The flags `tailprobe demo` takes (README's command-line block is checked against these). */
export const DEMO_FLAGS = {
  port: { type: "string" },
  host: { type: "string" },
  db: { type: "string" },
  alerts: { type: "string" },
  alertmanager: { type: "string" },
  notify: { type: "string", multiple: true },
  help: { type: "boolean", short: "h" },
} as const;

export function parseDemoArgs(argv: string[]): Result<{ a: ServeOptions; b: ServeOptions } | "help"> {
  let values: {
    port?: string;
    host?: string;
    db?: string;
    alerts?: string;
    alertmanager?: string;
    notify?: string[];
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({ args: argv, options: DEMO_FLAGS, strict: true, allowPositionals: false }));
  } catch (err) {
    return fail((err as Error).message);
  }
  if (values.help) return ok("help");
  const base = ["--name", "A", ...(values.host ? ["--host", values.host] : [])];
  const a = parseServeArgs([
    ...base,
    ...(values.port ? ["--port", values.port] : []),
    "--db",
    values.db ?? DB_PATH_DEFAULT,
    ...(values.alerts !== undefined ? ["--alerts", values.alerts] : []),
    ...(values.alertmanager !== undefined ? ["--alertmanager", values.alertmanager] : []),
    ...(values.notify ?? []).flatMap((url) => ["--notify", url]),
  ]);
  if (!a.ok) return a;
  if (a.value === "help") return ok("help");
  if (a.value.port === 0 || a.value.port === 65535)
    return fail("--port must leave room for B on the next port (1..65534)");
  const b = parseServeArgs([
    "--name",
    "B",
    ...(values.host ? ["--host", values.host] : []),
    "--port",
    String(a.value.port + 1),
    "--db",
    peerDbPath(a.value.dbPath, "B"),
  ]);
  if (!b.ok || b.value === "help") return fail("internal: could not derive server B's options");
  return ok({ a: a.value, b: b.value });
}
