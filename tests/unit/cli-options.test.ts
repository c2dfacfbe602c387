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

  it("parses every flag", () => {
    const r = parseServeArgs([
      "--port",
      "9000",
      "--host",
      "0.0.0.0",
      "--name",
      "B",
      "--db",
      "/tmp/x.db",
      "--peer",
      "http://b.example:8080/",
      "--peer",
      "C=https://c.example",
      "--interval-ms",
      "500",
      "--timeout-ms",
      "2000",
      "--tls-cert",
      "c.pem",
      "--tls-key",
      "k.pem",
      "--trust-proxy",
      "--no-ping",
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok || r.value === "help") return;
    expect(r.value).toMatchObject({
      port: 9000,
      host: "0.0.0.0",
      name: "B",
      dbPath: "/tmp/x.db",
      intervalMs: 500,
      timeoutMs: 2000,
      tlsCertPath: "c.pem",
      tlsKeyPath: "k.pem",
      trustProxy: true,
      ping: false,
    });
    expect(r.value.peers).toEqual([
      { url: "http://b.example:8080", name: undefined },
      { url: "https://c.example", name: "C" },
    ]);
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

  it("documents every flag in --help", () => {
    expect(parseServeArgs(["--help"])).toEqual({ ok: true, value: "help" });
    const help = serveHelp();
    for (const flag of Object.keys(SERVE_FLAGS)) expect(help).toContain(`--${flag}`);
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
