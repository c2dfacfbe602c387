// Flags are a contract: defaults, ranges, and an error that names the flag.
import { describe, expect, it } from "vitest";
import { parseServeArgs, serveHelp, SERVE_FLAGS } from "../../server/cli/options.js";
import { parseDemoArgs } from "../../server/cli/demo-options.js";

describe("tailprobe serve flags", () => {
  it("has the documented defaults", () => {
    const r = parseServeArgs([]);
    expect(r).toEqual({
      ok: true,
      value: expect.objectContaining({
        port: 8080,
        host: "127.0.0.1",
        name: "A",
        dbPath: "./data/tailprobe.db",
        peers: [],
        intervalMs: 1000,
        ping: true,
        trustProxy: false,
      }),
    });
  });

  /**
   * Every flag of SERVE_FLAGS, given on its own with a value other than its
   * default, and what it sets: each must land in the options, none may be left out.
   */
  const EVERY_FLAG: Record<keyof typeof SERVE_FLAGS, [string[], Record<string, unknown>]> = {
    port: [["--port", "9000"], { port: 9000 }],
    host: [["--host", "0.0.0.0"], { host: "0.0.0.0" }],
    name: [["--name", "B"], { name: "B" }],
    db: [["--db", "/tmp/x.db"], { dbPath: "/tmp/x.db" }],
    peer: [
      ["--peer", "http://b.example:8080/", "--peer", "C=https://c.example"],
      {
        peers: [
          { url: "http://b.example:8080", name: undefined },
          { url: "https://c.example", name: "C" },
        ],
      },
    ],
    "interval-ms": [["--interval-ms", "500"], { intervalMs: 500 }],
    "timeout-ms": [["--timeout-ms", "2000"], { timeoutMs: 2000 }],
    "tls-cert": [["--tls-cert", "c.pem", "--tls-key", "k.pem"], { tlsCertPath: "c.pem", tlsKeyPath: "k.pem" }],
    "tls-key": [["--tls-key", "k2.pem", "--tls-cert", "c2.pem"], { tlsKeyPath: "k2.pem", tlsCertPath: "c2.pem" }],
    "trust-proxy": [["--trust-proxy"], { trustProxy: true, proxyAddresses: [] }],
    "proxy-address": [["--proxy-address", "10.0.0.5"], { trustProxy: true, proxyAddresses: ["10.0.0.5"] }],
    "no-ping": [["--no-ping"], { ping: false }],
    "ping-command": [["--ping-command", "/opt/ping"], { pingCommand: "/opt/ping" }],
    "no-rate-limit": [["--no-rate-limit"], { limits: expect.objectContaining({ rateLimit: false }) }],
    "no-stress": [["--no-stress"], { stress: expect.objectContaining({ enabled: false }) }],
    "stress-port": [["--stress-port", "9100"], { stress: expect.objectContaining({ enabled: true, port: 9100 }) }],
    "stress-bytes-per-hour": [
      ["--stress-bytes-per-hour", "100000000"],
      { stress: expect.objectContaining({ bytesPerHour: 100_000_000 }) },
    ],
    "stress-streams-per-address": [
      ["--stress-streams-per-address", "3"],
      { stress: expect.objectContaining({ streamsPerAddress: 3 }) },
    ],
    "stress-streams-max": [["--stress-streams-max", "12"], { stress: expect.objectContaining({ streamsMax: 12 }) }],
    "stress-mbps-per-address": [
      ["--stress-mbps-per-address", "100"],
      { stress: expect.objectContaining({ mbpsPerAddress: 100 }) },
    ],
    "echo-rate": [["--echo-rate", "7"], { limits: expect.objectContaining({ echoPerSecond: 7 }) }],
    "ingest-rate": [["--ingest-rate", "3"], { limits: expect.objectContaining({ ingestPerSecond: 3 }) }],
    "ws-per-address": [["--ws-per-address", "5"], { limits: expect.objectContaining({ wsPerAddress: 5 }) }],
    "connections-per-address": [
      ["--connections-per-address", "9"],
      { limits: expect.objectContaining({ connectionsPerAddress: 9 }) },
    ],
    "max-connections": [["--max-connections", "99"], { limits: expect.objectContaining({ connectionsMax: 99 }) }],
    "headers-timeout-ms": [
      ["--headers-timeout-ms", "2500"],
      { limits: expect.objectContaining({ headersTimeoutMs: 2500 }) },
    ],
    "request-timeout-ms": [
      ["--request-timeout-ms", "45000"],
      { limits: expect.objectContaining({ requestTimeoutMs: 45_000 }) },
    ],
    "ws-heartbeat-ms": [["--ws-heartbeat-ms", "1500"], { limits: expect.objectContaining({ wsHeartbeatMs: 1500 }) }],
    "ping-processes": [["--ping-processes", "4"], { limits: expect.objectContaining({ pingProcessesMax: 4 }) }],
    "admin-token": [["--admin-token", "a-token-of-24-characters"], { adminToken: "a-token-of-24-characters" }],
    "raw-days": [["--raw-days", "7"], { rawDays: 7 }],
    "rollup-days": [["--rollup-days", "90"], { rollupDays: 90 }],
    alerts: [
      ["--alerts", "docs/alerts/rules.example.yml"],
      {
        alerts: expect.objectContaining({
          rules: expect.arrayContaining([expect.objectContaining({ name: "WebSocketTailSlow" })]),
        }),
      },
    ],
    alertmanager: [
      ["--alertmanager", "http://127.0.0.1:9093"],
      { alerts: expect.objectContaining({ alertmanager: expect.objectContaining({ kind: "alertmanager" }) }) },
    ],
    notify: [
      ["--notify", "https://ntfy.sh/ops", "--notify", "https://example.org/hook"],
      {
        alerts: expect.objectContaining({
          notify: [
            expect.objectContaining({ kind: "ntfy", topic: "ops" }),
            expect.objectContaining({ kind: "webhook" }),
          ],
        }),
      },
    ],
    help: [["--help"], {}],
  };

  it("the table below names every flag", () => {
    expect(Object.keys(EVERY_FLAG).sort()).toEqual(Object.keys(SERVE_FLAGS).sort());
  });

  it.each(Object.entries(EVERY_FLAG).filter(([flag]) => flag !== "help"))(
    "parses --%s into the options, away from its default",
    (_flag, [argv, expected]) => {
      const defaults = parseServeArgs([], {});
      const r = parseServeArgs(argv, {});
      expect(r).toEqual({ ok: true, value: expect.objectContaining(expected) });
      // The value given is not what the options hold without the flag: the flag did something.
      expect(defaults).not.toEqual({ ok: true, value: expect.objectContaining(expected) });
    },
  );

  it("parses every flag at once", () => {
    const all = Object.entries(EVERY_FLAG)
      // --no-stress refuses the stress flags it would leave unused: they are given here, it is parsed alone above.
      .filter(([flag]) => flag !== "help" && flag !== "tls-key" && flag !== "trust-proxy" && flag !== "no-stress")
      .flatMap(([, [argv]]) => argv);
    const r = parseServeArgs(all, {});
    expect(r.ok, r.ok ? "" : r.error).toBe(true);
    if (!r.ok || r.value === "help") return;
    for (const [flag, [, expected]] of Object.entries(EVERY_FLAG)) {
      if (flag === "help" || flag === "tls-key" || flag === "trust-proxy" || flag === "no-stress") continue;
      expect(r.value, flag).toEqual(
        expect.objectContaining(flag === "proxy-address" ? { proxyAddresses: ["10.0.0.5"] } : expected),
      );
    }
    expect(parseServeArgs(["--help"], {})).toEqual({ ok: true, value: "help" });
  });

  it("--raw-days and --rollup-days bound storage: defaults 30 and 400, rollups kept at least as long as raw samples", () => {
    expect(parseServeArgs([])).toMatchObject({ ok: true, value: { rawDays: 30, rollupDays: 400 } });
    expect(parseServeArgs(["--raw-days", "7", "--rollup-days", "90"])).toMatchObject({
      ok: true,
      value: { rawDays: 7, rollupDays: 90 },
    });
    expect(parseServeArgs(["--raw-days", "500"])).toMatchObject({ ok: true, value: { rawDays: 500, rollupDays: 500 } });
    expect(parseServeArgs(["--raw-days", "10", "--rollup-days", "5"])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--rollup-days .*--raw-days/),
    });
    expect(parseServeArgs(["--raw-days", "0"])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--raw-days/),
    });
    expect(parseServeArgs(["--rollup-days", "x"])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--rollup-days/),
    });
  });

  it("the stress test's flags: on by default with any two free ports, budgets, and --no-stress", () => {
    expect(parseServeArgs([])).toMatchObject({
      ok: true,
      value: {
        stress: {
          enabled: true,
          port: 0,
          bytesPerHour: 8 * 1024 ** 3,
          streamsPerAddress: 16,
          streamsMax: 64,
          mbpsPerAddress: 1000,
        },
      },
    });
    const r = parseServeArgs([
      "--stress-port",
      "9100",
      "--stress-bytes-per-hour",
      "1000000000",
      "--stress-streams-per-address",
      "8",
      "--stress-streams-max",
      "20",
      "--stress-mbps-per-address",
      "0",
    ]);
    expect(r).toMatchObject({
      ok: true,
      value: {
        stress: {
          enabled: true,
          port: 9100,
          bytesPerHour: 1e9,
          streamsPerAddress: 8,
          streamsMax: 20,
          mbpsPerAddress: 0,
        },
      },
    });
    expect(parseServeArgs(["--no-stress"])).toMatchObject({ ok: true, value: { stress: { enabled: false } } });
    expect(parseServeArgs(["--no-stress", "--stress-port", "9100"])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--no-stress .*--stress-port/),
    });
  });

  it("--proxy-address names proxies on other machines and implies --trust-proxy", () => {
    const r = parseServeArgs(["--proxy-address", "10.0.0.5", "--proxy-address", "fd00::5"]);
    expect(r).toMatchObject({ ok: true, value: { trustProxy: true, proxyAddresses: ["10.0.0.5", "fd00::5"] } });
  });

  it.each([
    [["--prot", "1"], /--prot/],
    [["--port", "http"], /--port/],
    [["--port", "70000"], /--port/],
    [["--port"], /--port/],
    [["--name", "a b"], /--name/],
    [["--peer", "b.example"], /--peer/],
    [["--peer", "ftp://b.example"], /--peer/],
    [["--peer", "b c=http://x"], /--peer/],
    [["--interval-ms", "5"], /--interval-ms/],
    [["--timeout-ms", "-1"], /--timeout-ms/],
    [["--tls-cert", "c.pem"], /--tls-cert needs --tls-key/],
    [["--tls-key", "k.pem"], /--tls-key needs --tls-cert/],
    [["--proxy-address", "proxy.example"], /--proxy-address/],
    [["--stress-port", "65535"], /--stress-port/],
    [["--stress-bytes-per-hour", "1000"], /--stress-bytes-per-hour/],
    [["--stress-streams-per-address", "0"], /--stress-streams-per-address/],
    [["--stress-streams-max", "many"], /--stress-streams-max/],
    [["--stress-mbps-per-address", "-1"], /--stress-mbps-per-address/],
    [["stray"], /stray|positional/i],
  ])("refuses %j naming the flag", (argv, message) => {
    const r = parseServeArgs(argv);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });

  it("--help gives every flag a line: its argument if it takes one, then two spaces at least, then what it does", () => {
    const lines = serveHelp().split("\n");
    for (const [flag, spec] of Object.entries(SERVE_FLAGS)) {
      const line = lines.find((l) => l.startsWith(`  --${flag} `));
      expect(line, `--${flag}`).toBeDefined();
      // "  --flag ARG   help": the flag, one argument word for a value flag, a gap, the help text.
      const m = /^ {2}--(\S+)(?: (\S+))? {2,}(\S.*)$/.exec(line!);
      expect(m, `--${flag}'s line: '${line}'`).not.toBeNull();
      expect(m![2] !== undefined, `--${flag} shows an argument`).toBe(spec.type === "string");
      expect(m![3]).toBe(spec.help);
    }
  });
});

describe("tailprobe demo flags", () => {
  it("runs B on the next port with its own database", () => {
    const r = parseDemoArgs([]);
    expect(r.ok).toBe(true);
    if (!r.ok || r.value === "help") return;
    expect(r.value.a.port).toBe(8080);
    expect(r.value.b.port).toBe(8081);
    expect(r.value.a.dbPath).not.toBe(r.value.b.dbPath);
  });

  it("puts A and B on one PostgreSQL database when --db is a URL", () => {
    const url = "postgres://tailprobe@db.example:5432/tailprobe";
    const r = parseDemoArgs(["--db", url]);
    if (!r.ok || r.value === "help") throw new Error("expected options");
    expect([r.value.a.dbPath, r.value.b.dbPath]).toEqual([url, url]);
  });
});

describe("--db", () => {
  it("takes a file path or a postgres:// / postgresql:// URL, and refuses a URL it cannot parse", () => {
    for (const db of ["./x.db", "postgres://u@h/d", "postgresql://u:p@127.0.0.1:5433/d?sslmode=require"]) {
      const r = parseServeArgs(["--db", db]);
      expect(r.ok && r.value !== "help" && r.value.dbPath, db).toBe(db);
    }
    const bad = parseServeArgs(["--db", "postgres://u@[bad/d"]);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/--db/);
  });
});
