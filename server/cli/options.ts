// Configuration enters here, once: flags are parsed and range-checked into a
// typed options object that the rest of the server receives.
import net from "node:net";
import { isPostgresUrl } from "../store/postgres/dialect.js";
import { parseArgs } from "node:util";
import { SERVER_NAME_PATTERN } from "../../shared/names.js";
import { fail, ok, type Result } from "../../shared/result.js";
import type { AlertOptions } from "../alerts/alerts.js";
import { ALERT_FLAG_ARGS, ALERT_FLAGS, parseAlertFlags, type ReadFile } from "./alert-flags.js";
import { parseSecurityFlags, SECURITY_FLAG_ARGS, SECURITY_FLAGS, type SecurityOptions } from "./security-flags.js";
import { parseStressFlags, STRESS_FLAG_ARGS, STRESS_FLAGS, type StressOptions } from "./stress-flags.js";
import { RAW_DAYS_DEFAULT, RETENTION_DAYS_MAX, RETENTION_DAYS_MIN, ROLLUP_DAYS_DEFAULT } from "../store/retention.js";

export const PORT_DEFAULT = 8080;
export const HOST_DEFAULT = "127.0.0.1";
export const NAME_DEFAULT = "A";
export const DB_PATH_DEFAULT = "./data/tailprobe.db";
export const INTERVAL_MS_DEFAULT = 1000;
// 10 ms lets a soak test run days of ticks in minutes.
export const INTERVAL_MS_MIN = 10;
export const INTERVAL_MS_MAX = 60_000;
export const TIMEOUT_MS_DEFAULT = 5000;
export const TIMEOUT_MS_MIN = 100;
export const TIMEOUT_MS_MAX = 120_000;
export const PEERS_MAX = 7;

export interface PeerSpec {
  /** Base URL of the peer's echo paths, without a trailing slash. */
  url: string;
  /** Name given on the command line (NAME=URL); otherwise learned from the peer. */
  name?: string | undefined;
}

export interface ServeOptions extends SecurityOptions {
  port: number;
  host: string;
  name: string;
  dbPath: string;
  peers: PeerSpec[];
  /** Probe interval the pages use (ms). */
  intervalMs: number;
  /** A probe still unanswered after this long is a timeout (ms). */
  timeoutMs: number;
  tlsCertPath?: string | undefined;
  tlsKeyPath?: string | undefined;
  /** Take the client address from X-Forwarded-For (only behind a proxy you run). */
  trustProxy: boolean;
  /** Proxies on other machines whose X-Forwarded-For is believed (implies trustProxy); loopback always is. */
  proxyAddresses: string[];
  /** Send ICMP pings to connected pages. */
  ping: boolean;
  /** The ping binary for the ping baseline (default "ping" from PATH). */
  pingCommand?: string | undefined;
  /** Days raw samples are kept (default 30); older ranges answer from rollups. */
  rawDays: number;
  /** Days hour and day rollups are kept (default 400); at least rawDays. */
  rollupDays: number;
  /** The stress test's load paths (docs/stress.md). */
  stress: StressOptions;
  /** Rules (--alerts), built-in alerts and receivers (--notify, --alertmanager). */
  alerts: AlertOptions;
}

export const SERVE_FLAGS = {
  port: { type: "string", help: `TCP port to listen on (default ${PORT_DEFAULT}; 0 picks a free one)` },
  host: { type: "string", help: `address to bind (default ${HOST_DEFAULT}; 0.0.0.0 or :: for every interface)` },
  name: { type: "string", help: `this server's name in tables and charts (default ${NAME_DEFAULT})` },
  db: {
    type: "string",
    help: `SQLite database file (default ${DB_PATH_DEFAULT}), or a postgres:// URL: several servers on one PostgreSQL (password in the URL or PGPASSWORD)`,
  },
  peer: {
    type: "string",
    multiple: true,
    help: "another tailprobe server the pages also probe (repeatable); named by its /api/config unless NAME= is given",
  },
  "interval-ms": { type: "string", help: `probe interval in ms (default ${INTERVAL_MS_DEFAULT})` },
  "timeout-ms": { type: "string", help: `probe timeout in ms (default ${TIMEOUT_MS_DEFAULT})` },
  "tls-cert": { type: "string", help: "PEM certificate file: serve HTTPS and WSS (needs --tls-key)" },
  "tls-key": { type: "string", help: "PEM private key file for --tls-cert" },
  "trust-proxy": {
    type: "boolean",
    help: "take client addresses from X-Forwarded-For, on connections from loopback (your reverse proxy on this host) only",
  },
  "proxy-address": {
    type: "string",
    multiple: true,
    help: "address of your reverse proxy when it runs on another machine (repeatable; implies --trust-proxy, which trusts only loopback peers)",
  },
  "no-ping": { type: "boolean", help: "do not send ICMP pings to connected pages" },
  "ping-command": { type: "string", help: "the iputils ping binary for the ping baseline (default: ping from PATH)" },
  ...SECURITY_FLAGS,
  ...STRESS_FLAGS,
  "raw-days": {
    type: "string",
    help: `days raw samples are kept (default ${RAW_DAYS_DEFAULT}); older ranges are answered from hourly and daily rollups`,
  },
  "rollup-days": {
    type: "string",
    help: `days hourly and daily rollups are kept (default ${ROLLUP_DAYS_DEFAULT}; at least --raw-days)`,
  },
  ...ALERT_FLAGS,
  help: { type: "boolean", short: "h", help: "show this help" },
} as const;

type ValueFlag = {
  [K in keyof typeof SERVE_FLAGS]: (typeof SERVE_FLAGS)[K]["type"] extends "string" ? K : never;
}[keyof typeof SERVE_FLAGS];

/** What each value-taking flag's argument is, for --help; typed so a new flag cannot be left without one. */
const FLAG_ARGS: Record<ValueFlag, string> & Record<string, string> = {
  port: "PORT",
  host: "ADDR",
  name: "NAME",
  db: "FILE|URL",
  peer: "[NAME=]URL",
  "interval-ms": "MS",
  "timeout-ms": "MS",
  "tls-cert": "FILE",
  "tls-key": "FILE",
  "ping-command": "PATH",
  "proxy-address": "ADDR",
  ...SECURITY_FLAG_ARGS,
  ...STRESS_FLAG_ARGS,
  "raw-days": "N",
  "rollup-days": "N",
  ...ALERT_FLAG_ARGS,
};

const SERVE_EXAMPLES = [
  "Examples:",
  "  tailprobe serve --name B --host 0.0.0.0 --port 8080         on host B: nothing else needed there",
  "  tailprobe serve --peer http://b.example:8080                on host A: pages probe A and B (name from B's /api/config)",
  "  tailprobe serve --peer B=https://b.example:8080             the same, naming the peer yourself",
  "  tailprobe serve --tls-cert cert.pem --tls-key key.pem       HTTPS and WSS; an HTTPS page can only probe HTTPS peers",
  "  tailprobe serve --notify https://ntfy.sh/my-topic           be told when a server goes down (built-in alerts)",
];

export function serveHelp(): string {
  const heads = Object.entries(SERVE_FLAGS).map(([flag, spec]) => {
    const arg = spec.type === "string" ? ` ${FLAG_ARGS[flag] ?? "VALUE"}` : "";
    return [`  --${flag}${arg}`, spec.help] as const;
  });
  // The help text starts two spaces after the longest flag (a fixed column ran into it).
  const column = Math.max(...heads.map(([head]) => head.length)) + 2;
  const lines = heads.map(([head, help]) => head.padEnd(column) + help);
  return [
    "Usage: tailprobe serve [flags]",
    "",
    "Runs one tailprobe echo server that also serves the pages.",
    "",
    ...lines,
    "",
    ...SERVE_EXAMPLES,
  ].join("\n");
}

function intFlag(flag: string, raw: string | undefined, dflt: number, min: number, max: number): Result<number> {
  if (raw === undefined) return ok(dflt);
  if (!/^\d+$/.test(raw)) return fail(`--${flag} must be an integer (got '${raw}')`);
  const n = Number(raw);
  if (n < min || n > max) return fail(`--${flag} must be between ${min} and ${max} (got ${n})`);
  return ok(n);
}

export function parsePeer(raw: string): Result<PeerSpec> {
  let name: string | undefined;
  let urlText = raw;
  const eq = raw.indexOf("=");
  if (eq > 0 && !raw.slice(0, eq).includes("/")) {
    name = raw.slice(0, eq);
    urlText = raw.slice(eq + 1);
    if (!SERVER_NAME_PATTERN.test(name)) return fail(`--peer name '${name}' must match ${SERVER_NAME_PATTERN}`);
  }
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return fail(`--peer must be a URL such as http://b.example:8080 (got '${raw}')`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return fail(`--peer must be an http:// or https:// URL (got '${raw}')`);
  if (url.search || url.hash || url.username) return fail(`--peer must be a plain base URL (got '${raw}')`);
  return ok({ url: url.toString().replace(/\/+$/, ""), name });
}

export function parseServeArgs(
  argv: string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  readFile?: ReadFile,
): Result<ServeOptions | "help"> {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    const flags = Object.fromEntries(
      Object.entries(SERVE_FLAGS).map(([k, v]) => [
        k,
        { type: v.type, multiple: "multiple" in v, ...("short" in v ? { short: v.short } : {}) },
      ]),
    );
    ({ values } = parseArgs({ args: argv, options: flags as never, strict: true, allowPositionals: false }));
  } catch (err) {
    // node:util names the offending flag in its message, e.g. "Unknown option '--prot'".
    return fail((err as Error).message);
  }
  if (values.help === true) return ok("help");

  const port = intFlag("port", values.port as string | undefined, PORT_DEFAULT, 0, 65535);
  if (!port.ok) return port;
  const intervalMs = intFlag(
    "interval-ms",
    values["interval-ms"] as string | undefined,
    INTERVAL_MS_DEFAULT,
    INTERVAL_MS_MIN,
    INTERVAL_MS_MAX,
  );
  if (!intervalMs.ok) return intervalMs;
  const timeoutMs = intFlag(
    "timeout-ms",
    values["timeout-ms"] as string | undefined,
    TIMEOUT_MS_DEFAULT,
    TIMEOUT_MS_MIN,
    TIMEOUT_MS_MAX,
  );
  if (!timeoutMs.ok) return timeoutMs;

  const rawDays = intFlag(
    "raw-days",
    values["raw-days"] as string | undefined,
    RAW_DAYS_DEFAULT,
    RETENTION_DAYS_MIN,
    RETENTION_DAYS_MAX,
  );
  if (!rawDays.ok) return rawDays;
  const rollupDays = intFlag(
    "rollup-days",
    values["rollup-days"] as string | undefined,
    Math.max(ROLLUP_DAYS_DEFAULT, rawDays.value),
    RETENTION_DAYS_MIN,
    RETENTION_DAYS_MAX,
  );
  if (!rollupDays.ok) return rollupDays;
  if (rollupDays.value < rawDays.value)
    return fail(`--rollup-days must be at least --raw-days (got ${rollupDays.value} < ${rawDays.value})`);

  const host = (values.host as string | undefined) ?? HOST_DEFAULT;
  if (host.length === 0 || /[\s/]/.test(host)) return fail(`--host must be a host name or address (got '${host}')`);
  const name = (values.name as string | undefined) ?? NAME_DEFAULT;
  if (!SERVER_NAME_PATTERN.test(name))
    return fail(`--name must be 1-32 letters, digits, '.', '_' or '-' (got '${name}')`);
  const dbPath = (values.db as string | undefined) ?? DB_PATH_DEFAULT;
  if (dbPath.length === 0) return fail("--db must be a file path or a postgres:// URL");
  if (isPostgresUrl(dbPath) && !URL.canParse(dbPath))
    return fail("--db must be a file path or a valid postgres:// URL (postgres://user@host:port/database)");

  const peers: PeerSpec[] = [];
  for (const raw of (values.peer as string[] | undefined) ?? []) {
    const p = parsePeer(raw);
    if (!p.ok) return p;
    peers.push(p.value);
  }
  if (peers.length > PEERS_MAX) return fail(`--peer may be given at most ${PEERS_MAX} times`);

  const pingCommand = values["ping-command"] as string | undefined;
  if (pingCommand !== undefined && pingCommand.trim() === "") return fail("--ping-command must name a program");

  const tlsCertPath = values["tls-cert"] as string | undefined;
  const tlsKeyPath = values["tls-key"] as string | undefined;
  if ((tlsCertPath === undefined) !== (tlsKeyPath === undefined))
    return fail(tlsCertPath === undefined ? "--tls-key needs --tls-cert" : "--tls-cert needs --tls-key");

  const proxyAddresses = (values["proxy-address"] as string[] | undefined) ?? [];
  for (const a of proxyAddresses)
    if (net.isIP(a) === 0) return fail(`--proxy-address must be an IP address (got '${a}')`);

  const security = parseSecurityFlags(values, intervalMs.value, env, intFlag);
  if (!security.ok) return security;
  const stress = parseStressFlags(values, intFlag);
  if (!stress.ok) return stress;
  const alerts = parseAlertFlags(values, readFile);
  if (!alerts.ok) return alerts;

  return ok({
    port: port.value,
    host,
    name,
    dbPath,
    peers,
    intervalMs: intervalMs.value,
    timeoutMs: timeoutMs.value,
    tlsCertPath,
    tlsKeyPath,
    trustProxy: values["trust-proxy"] === true || proxyAddresses.length > 0,
    proxyAddresses,
    ping: values["no-ping"] !== true,
    pingCommand,
    ...security.value,
    rawDays: rawDays.value,
    rollupDays: rollupDays.value,
    stress: stress.value,
    alerts: alerts.value,
  });
}
