// The throwaway PostgreSQL every PostgreSQL test starts (testkit/postgres.ts):
// it accepts logins with the URL's password, stops and starts on the same
// data, and leaves nothing behind.
import fs from "node:fs";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { postgresAvailable, startPostgres } from "../../testkit/postgres.js";

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });

describe.skipIf(!postgresAvailable())("test PostgreSQL", () => {
  it("starts on a free port, restarts on the same data, and is removed after", async () => {
    const pg = await startPostgres();
    try {
      expect(pg.url).toMatch(/^postgres:\/\/tailprobe:[0-9a-f]+@127\.0\.0\.1:\d+\/postgres$/);
      // createdb logs in with the password: a wrong one would fail here.
      const url = await pg.createDatabase("Harness");
      expect(url).toMatch(/\/harness_1$/);
      await pg.stopServer();
      expect(await accepts(pg.port)).toBe(false);
      await pg.startServer();
      expect(await accepts(pg.port)).toBe(true);
      expect(fs.existsSync(pg.dir)).toBe(true);
    } finally {
      await pg.stop();
    }
    expect(fs.existsSync(pg.dir)).toBe(false);
    expect(await accepts(pg.port)).toBe(false);
  });
});
