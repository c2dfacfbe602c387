// A stress test's samples and its report in both stores, through a real
// server: the samples keep their run and phase (the export's load and
// stressRun columns, the load and stressRun filters), the report is checked
// and stored once per run (replaced only by a newer one of the same session),
// and GET /api/stress answers each run from its own session's samples:
// idle beside loaded, added latency, grade and verdict.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/app.js";
import type { ServeOptions } from "../../server/cli/options.js";
import {
  type PhaseReport,
  type Sample,
  type StatsResponse,
  type StressReport,
  stressResponseSchema,
  parseWith,
} from "../../shared/contract/index.js";
import { STRESS_PHASES, type StressPhase } from "../../shared/stress/phases.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { startInProcess } from "../helpers/in-process.js";
import { freshDb, STORE_KINDS } from "../helpers/store-kinds.js";

const CLIENT = "client_stress_1";
const SESSION = "session_stress_1";
const RUN = "run_stress_0001";
const PHASE_MS = 10_000;
/** The run, ending a minute ago: idle, download, upload, bidirectional, cooldown, 10 s each. */
const T0 = Math.floor((Date.now() - 5 * PHASE_MS - 60_000) / 1000) * 1000;
const phaseStart = (i: number) => T0 + i * PHASE_MS;

/** Per phase: the WebSocket probe's and ping's latency (ms): download queues in the path, upload in the browser. */
const WS_MS: Record<StressPhase, number> = { idle: 2, download: 152, upload: 42, bidirectional: 162, cooldown: 3 };
const PING_MS: Record<StressPhase, number> = { idle: 1, download: 150, upload: 1, bidirectional: 160, cooldown: 1 };

function runSamples(): Sample[] {
  const out: Sample[] = [];
  let seq = 0;
  // Ten seconds before the run: samples outside any test.
  for (let s = -10; s < 0; s++) {
    const t = T0 + s * 1000;
    out.push({ seq: seq++, t, method: "ws", target: "A", ms: 2.5, outcome: "ok" });
  }
  STRESS_PHASES.forEach((load, i) => {
    for (let s = 0; s < PHASE_MS / 1000; s++) {
      const t = phaseStart(i) + s * 1000 + 100;
      const jitter = (s % 3) * 0.5;
      const tag = { stressRun: RUN, load };
      out.push({ seq: seq++, t, method: "ws", target: "A", ms: WS_MS[load] + jitter, outcome: "ok", ...tag });
      out.push({ seq: seq++, t, method: "ping", target: "A", ms: PING_MS[load] + jitter, outcome: "ok", ...tag });
      out.push({ seq: seq++, t, method: "xhr", target: "A", ms: WS_MS[load] + 3, outcome: "ok", ...tag });
      out.push({
        seq: seq++,
        t,
        method: "tcprtt",
        target: "A",
        ms: PING_MS[load] + 1,
        minrtt: 0.5,
        outcome: "ok",
        ...tag,
      });
      // A sample to another server is not the loaded target's.
      out.push({ seq: seq++, t, method: "ws", target: "B", ms: 999, outcome: "ok", ...tag });
    }
  });
  return out;
}

function phases(n: number = STRESS_PHASES.length): PhaseReport[] {
  return STRESS_PHASES.slice(0, n).map((name, i) => {
    const loadsDown = name === "download" || name === "bidirectional";
    const loadsUp = name === "upload" || name === "bidirectional";
    const seconds = Array.from({ length: PHASE_MS / 1000 + 1 }, (_, k) => (k === 0 ? 100_000 : 1_000_000));
    return {
      name,
      start: phaseStart(i),
      end: phaseStart(i) + PHASE_MS - 1,
      streamsDown: loadsDown ? 4 : 0,
      streamsUp: loadsUp ? 4 : 0,
      downBytes: loadsDown ? seconds : seconds.map(() => 0),
      upBytes: loadsUp ? seconds : seconds.map(() => 0),
      selfMs: loadsDown || loadsUp ? Array.from({ length: 20 }, (_, k) => 150 + k) : [],
    };
  });
}

const report = (o: Partial<StressReport> = {}): StressReport => ({
  clientId: CLIENT,
  sessionId: SESSION,
  run: RUN,
  target: "A",
  outcome: "complete",
  phases: phases(),
  ...o,
});

describe.each(STORE_KINDS)("stress-test runs and samples (%s)", (kind) => {
  let server: RunningServer & { options: ServeOptions };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    server = await startInProcess([
      "--db",
      await freshDb(kind, "stress_storage"),
      "--no-rate-limit",
      "--peer",
      "B=http://127.0.0.1:9",
    ]);
    const res = await post("/api/samples", { clientId: CLIENT, sessionId: SESSION, samples: runSamples() });
    expect(res.status, await res.text()).toBe(200);
  });
  afterAll(() => server?.close());

  it("keeps each sample's run and phase: the export's load and stressRun columns, empty outside a test", async () => {
    const res = await fetch(`${server.url}/api/samples.ndjson?from=${T0 - 20_000}`);
    // NDJSON is records only; what the file holds is in its headers.
    expect(res.headers.get("tailprobe-columns")?.split(",")).toEqual(expect.arrayContaining(["load", "stressRun"]));
    const lines = (await res.text()).trim().split("\n");
    const rows = lines.map((l) => JSON.parse(l) as { t: number; load: string | null; stressRun: string | null });
    expect(rows).toHaveLength(runSamples().length);
    for (const r of rows) {
      const i = Math.floor((r.t - T0) / PHASE_MS);
      if (r.t < T0) expect(r).toMatchObject({ load: null, stressRun: null });
      else expect(r).toMatchObject({ load: STRESS_PHASES[i], stressRun: RUN });
    }
    const csv = (await (await fetch(`${server.url}/api/samples.csv?from=${T0 - 20_000}&to=${T0 - 1}`)).text()).trim();
    const [csvHead, first] = csv.split("\n");
    const cols = csvHead!.split(",");
    expect(first!.split(",")[cols.indexOf("load")]).toBe("");
  });

  it("selects phases like any other filter: load=download, load=none, stressRun", async () => {
    const stats = async (q: string) =>
      ((await (await fetch(`${server.url}/api/stats?from=${T0 - 20_000}&${q}`)).json()) as StatsResponse).rows;
    const ws = (rows: StatsResponse["rows"]) => rows.find((r) => r.method === "ws" && r.target === "A")!;
    expect(ws(await stats("load=download"))).toMatchObject({ count: 10, min: 152 });
    expect(ws(await stats("load=none"))).toMatchObject({ count: 10, p50: 2.5, max: 2.5 });
    expect(ws(await stats("load=idle,cooldown"))).toMatchObject({ count: 20 });
    expect(ws(await stats(`stressRun=${RUN}`))).toMatchObject({ count: 50 });
    expect(await stats("stressRun=run_nobody_here")).toEqual([]);
    expect((await fetch(`${server.url}/api/stats?load=sideways`)).status).toBe(400);
    const dl = (
      await (await fetch(`${server.url}/api/samples.csv?from=${T0 - 20_000}&load=download&method=ping`)).text()
    )
      .trim()
      .split("\n");
    expect(dl).toHaveLength(1 + 10);
  });

  it("refuses a report it cannot store: bad shape, another origin, an unknown session, another client's session", async () => {
    const bad = await post("/api/stress", { ...report(), phases: [{ ...phases()[1]!, name: "download" }] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "INVALID_REPORT" });
    const foreign = await post("/api/stress", report(), { Origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    const unknown = await post("/api/stress", report({ sessionId: "session_nobody_1", run: "run_other_01" }));
    expect(unknown.status).toBe(409);
    expect(await unknown.json()).toMatchObject({ code: "SESSION_UNKNOWN" });
    const notYours = await post("/api/stress", report({ clientId: "client_other_1" }));
    expect(notYours.status).toBe(409);
    expect(await notYours.json()).toMatchObject({ code: "SESSION_CLIENT_MISMATCH" });
    const none = parseWith(stressResponseSchema, await (await fetch(`${server.url}/api/stress?from=0`)).json());
    expect(none).toEqual({ ok: true, value: { runs: [], omitted: 0 } });
  });

  it("answers a reported run: idle beside each phase, goodput, added latency, grade, RPM and the verdict", async () => {
    // Reported after two phases, then complete; a late copy of the first report changes nothing.
    expect((await post("/api/stress", report({ outcome: "running", phases: phases(2) }))).status).toBe(200);
    expect((await post("/api/stress", report())).status).toBe(200);
    expect((await post("/api/stress", report({ outcome: "running", phases: phases(2) }))).status).toBe(200);
    const res = await fetch(`${server.url}/api/stress?from=${T0 - 1000}&to=${T0 + 1000}`);
    expect(res.status).toBe(200);
    const parsed = parseWith(stressResponseSchema, await res.json());
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.value.runs).toHaveLength(1);
    const run = parsed.value.runs[0]!;
    expect(run).toMatchObject({
      id: RUN,
      client: publicIdOf(server.store, CLIENT),
      target: "A",
      outcome: "complete",
      start: T0,
      verdict: "network",
    });
    expect(run.phases.map((p) => p.name)).toEqual([...STRESS_PHASES]);
    const [idle, download, upload] = run.phases;
    expect(idle!.latency.ws).toEqual({ count: 10, p50: 2.5, p90: 3, p99: 3 });
    expect(idle!.latency.ping!.p50).toBe(1.5);
    // Every method and baseline the phase has, the kernel's min RTT as its own series; nothing of server B.
    expect(Object.keys(download!.latency).sort()).toEqual(["ping", "tcpminrtt", "tcprtt", "ws", "xhr"]);
    expect(download!.latency.ws).toMatchObject({ count: 10, p50: 152.5 });
    // 1 Mbyte a second after the ramp second, over 9 s of phase after it.
    expect(download!.downMbps).toBeCloseTo((10 * 1e6 * 8) / 8.999 / 1e6, 6);
    expect(download!.upMbps).toBeNull();
    expect(run.addedMs).toEqual({ download: 150, upload: 40, bidirectional: 160 });
    // (150 + 40) / 2 = 95 ms: C.
    expect(run.grade).toBe("C");
    expect(download!.verdict).toBe("network");
    expect(upload!.verdict).toBe("browser");
    expect(upload!.summary).toContain("ping stayed flat");
    expect(run.rpm).toBeGreaterThan(0);
    expect(download!.self).toMatchObject({ count: 20, p50: 159 });
    // By client: the run is this client's, no one else's.
    const mine = await (await fetch(`${server.url}/api/stress?client=${publicIdOf(server.store, CLIENT)}`)).json();
    expect(mine.runs).toHaveLength(1);
    const theirs = await (await fetch(`${server.url}/api/stress?client=AAAAAAAAAAAAAAAA`)).json();
    expect(theirs.runs).toHaveLength(0);
  });

  it("counts only the reporting session's samples, and another session cannot take the run over", async () => {
    // Another page's samples that claim the run's id: stored as theirs, not counted in the run.
    const intruder = Array.from({ length: 10 }, (_, s) => ({
      seq: s,
      t: phaseStart(1) + s * 1000 + 500,
      method: "ws" as const,
      target: "A",
      ms: 5000,
      outcome: "ok" as const,
      stressRun: RUN,
      load: "download" as const,
    }));
    const res = await post("/api/samples", {
      clientId: "client_other_2",
      sessionId: "session_other_2",
      samples: intruder,
    });
    expect(res.status).toBe(200);
    const takeover = await post(
      "/api/stress",
      report({ clientId: "client_other_2", sessionId: "session_other_2", phases: phases(), outcome: "complete" }),
    );
    expect(takeover.status).toBe(409);
    expect(await takeover.json()).toMatchObject({ code: "RUN_NOT_YOURS" });
    const run = (await (await fetch(`${server.url}/api/stress?from=${T0 - 1000}`)).json()).runs[0];
    expect(run.phases[1].latency.ws).toMatchObject({ count: 10, p50: 152.5 });
  });
});
