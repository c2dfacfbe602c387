// The command as a user types it: errors name the flag, the server says where it is.
import { describe, expect, it } from "vitest";
import { runCli, startServerProcess, waitFor } from "../../testkit/server-process.js";

describe("tailprobe command", () => {
  it.each([
    [["serve", "--prot", "8080"], /--prot/],
    [["serve", "--port", "eighty"], /--port/],
    [["serve", "--peer", "not a url"], /--peer/],
    [["demo", "--nmae", "x"], /--nmae/],
    [["frobnicate"], /frobnicate/],
  ])("exits with status 2 naming the problem for %j", async (args, message) => {
    const r = await runCli(args);
    // README: "an unknown or malformed flag exits with status 2 and a message naming it".
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it("prints help for serve with every flag", async () => {
    const r = await runCli(["serve", "--help"]);
    expect(r.code).toBe(0);
    for (const flag of ["--port", "--host", "--name", "--db", "--peer"]) expect(r.stdout).toContain(flag);
  });

  it("serves, prints its URLs and database, and stops cleanly on SIGTERM", async () => {
    const s = await startServerProcess(["--name", "Z"]);
    try {
      expect(s.output()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      await waitFor(() => (s.output().includes(s.dbPath) ? true : undefined), 5000, "the database line");
      expect(s.output()).toContain(`${s.url}/histogram`);
      expect(s.output()).toContain(s.dbPath);
      const cfg = (await (await fetch(`${s.url}/api/config`)).json()) as { name: string };
      expect(cfg.name).toBe("Z");
    } finally {
      await s.stop();
    }
    expect(s.child.exitCode).toBe(0);
  });

  it("refuses a port that is taken, saying so", async () => {
    const s = await startServerProcess([]);
    try {
      const r = await runCli(["serve", "--port", String(s.port), "--db", `${s.dbPath}-2`, "--no-ping"]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/EADDRINUSE|in use/i);
    } finally {
      await s.stop();
    }
  });
});
