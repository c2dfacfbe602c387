// The spawner helper (server/platform/spawner.ts): children started through
// it behave as Node's own do for what the baselines use (output, exit code,
// signal, a missing command, kill, a timeout), and none outlives the server.
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { runToEnd, type Spawned, startSpawner } from "../../server/platform/spawner.js";
import { waitFor } from "../../testkit/server-process.js";

const spawner = startSpawner();
afterAll(() => spawner.close());

const closed = (c: Spawned) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    c.once("close", (code: number | null, signal: NodeJS.Signals | null) => resolve({ code, signal })),
  );
const alive = (pid: number) => fs.existsSync(`/proc/${pid}`);

describe("the spawner helper", () => {
  it("relays output, exit code and a missing command as Node's spawn does", async () => {
    const r = await runToEnd(spawner.spawn, "sh", ["-c", "echo out; echo err >&2; exit 3"], {
      timeoutMs: 5000,
      maxBytes: 1024,
    });
    expect(r.stdout.toString()).toBe("out\n");
    expect(r.stderr.toString()).toBe("err\n");
    expect(r.error).toMatchObject({ code: 3, killed: false });

    const ok = await runToEnd(spawner.spawn, "sh", ["-c", "printf 'a%.0s' $(seq 1 100000)"], {
      timeoutMs: 5000,
      maxBytes: 1 << 20,
    });
    expect(ok.error).toBeNull();
    expect(ok.stdout.length).toBe(100_000);

    const missing = await runToEnd(spawner.spawn, "/nonexistent/ss", ["-V"], { timeoutMs: 5000, maxBytes: 1024 });
    expect(missing.error?.code).toBe("ENOENT");
  });

  it("kills on request, on a timeout, and past the byte limit", async () => {
    const c = spawner.spawn("sleep", ["30"]);
    await waitFor(() => (c.pid !== undefined ? true : undefined), 5000, "the child's pid");
    c.kill("SIGTERM");
    expect(await closed(c)).toEqual({ code: null, signal: "SIGTERM" });

    const slow = await runToEnd(spawner.spawn, "sleep", ["30"], { timeoutMs: 200, maxBytes: 1024 });
    expect(slow.error).toMatchObject({ killed: true });
    const loud = await runToEnd(spawner.spawn, "yes", [], { timeoutMs: 5000, maxBytes: 64 * 1024 });
    expect(loud.error).toMatchObject({ killed: true });
  });

  it("lines reach a reader before 'close', as readline needs", async () => {
    const c = spawner.spawn("sh", ["-c", "printf 'one\\ntwo'"]);
    let text = "";
    c.stdout!.on("data", (d: Buffer) => (text += d.toString()));
    let ended = false;
    c.stdout!.on("end", () => (ended = true));
    await closed(c);
    expect(ended).toBe(true);
    expect(text).toBe("one\ntwo");
  });

  it("its children end with it: none outlives a closed spawner", async () => {
    const own = startSpawner();
    const c = own.spawn("sleep", ["30"]);
    await waitFor(() => (c.pid !== undefined ? true : undefined), 5000, "the child's pid");
    const pid = c.pid!;
    expect(alive(pid)).toBe(true);
    own.close();
    await waitFor(() => (alive(pid) ? undefined : true), 5000, "the child to end with its spawner");
  });
});
