// The alerting flags as a user types them: a bad rules file or receiver URL
// stops `tailprobe serve` with status 2 and a message naming the flag, the
// file, the line and the problem; a good one starts the server.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, startServerProcess, tempDir, waitFor } from "../../testkit/server-process.js";

describe("tailprobe serve --alerts / --notify / --alertmanager", () => {
  it("refuses a bad rules file naming the flag, file, line and problem", async () => {
    const file = path.join(tempDir(), "rules.yml");
    fs.writeFileSync(
      file,
      "groups:\n  - name: g\n    rules:\n      - alert: Slow\n        statistic: p99\n        window: 7m\n        above: 1ms\n",
    );
    const r = await runCli(["serve", "--port", "0", "--db", ":memory:", "--alerts", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--alerts ${file}:6: window must be a multiple of 5m`);
    const missing = await runCli(["serve", "--port", "0", "--db", ":memory:", "--alerts", `${file}.nope`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--alerts ${file}.nope: cannot read it (ENOENT)`);
  });

  it("refuses a receiver URL it cannot use", async () => {
    const r = await runCli(["serve", "--port", "0", "--db", ":memory:", "--notify", "mailto:ops@example.org"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--notify must be an http\(s\):\/\/, ntfy:\/\/ or slack\+https:\/\/ URL/);
  });

  it("starts with the documented example rules", async () => {
    const s = await startServerProcess([
      "--no-ping",
      "--alerts",
      "docs/alerts/rules.example.yml",
      "--notify",
      "http://127.0.0.1:9/hook",
    ]);
    try {
      expect(s.output()).toMatch(/listening on/);
      // Its last start-up line: the signal handlers are set once it is printed.
      await waitFor(() => (s.output().includes(s.dbPath) ? true : undefined), 5000, "the database line");
    } finally {
      await s.stop();
    }
    expect(s.child.exitCode).toBe(0);
  });
});
