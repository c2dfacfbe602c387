// Running one stress test in a page and reading its answer, for the
// end-to-end tests in any engine: the page is opened with ?stress=1 and the
// phase lengths, and the run is read back from GET /api/stress by the page
// itself (a page in a network namespace reaches its server where the test
// process cannot).
import { parseWith, type StressRun, stressResponseSchema } from "../../shared/contract/index.js";

/** What a test needs of a page: navigate, and evaluate a function in it. */
export interface StressPage {
  goto(url: string): Promise<unknown>;
  evaluate<T, A>(fn: (arg: A) => T | Promise<T>, arg: A): Promise<T>;
}

export interface StressTimings {
  phaseMs: number;
  idleMs: number;
  cooldownMs: number;
}

/** After the final report, samples still on their way: the outbox reports every 5 s. */
const SAMPLES_GRACE_MS = 8000;

export function runDurationMs(t: StressTimings): number {
  return t.idleMs + 3 * t.phaseMs + t.cooldownMs;
}

/** GET /api/stress from inside the page, parsed. */
export async function stressRunsSeenBy(page: StressPage, fromMs: number): Promise<StressRun[]> {
  const body = await page.evaluate(
    (from: number) => fetch(`/api/stress?from=${from}`, { cache: "no-store" }).then((r) => r.json()),
    fromMs,
  );
  const parsed = parseWith(stressResponseSchema, body);
  if (!parsed.ok) throw new Error(`GET /api/stress: ${parsed.error}`);
  return parsed.value.runs;
}

/** Opens `baseUrl` with ?stress=1, waits for the run's final report and its last samples, and returns its answer. */
export async function runStressTest(
  page: StressPage,
  baseUrl: string,
  t: StressTimings,
  extraQuery = "",
): Promise<StressRun> {
  const startMs = Date.now();
  await page.goto(
    `${baseUrl}/?stress=1&stressPhaseMs=${t.phaseMs}&stressIdleMs=${t.idleMs}&stressCooldownMs=${t.cooldownMs}${extraQuery}`,
  );
  const deadline = startMs + runDurationMs(t) + 60_000;
  for (;;) {
    const runs = await stressRunsSeenBy(page, startMs - 5000);
    const done = runs.find((r) => r.outcome !== "running");
    if (done !== undefined) break;
    if (Date.now() > deadline)
      throw new Error(`no finished stress test after ${(Date.now() - startMs) / 1000} s: ${JSON.stringify(runs)}`);
    await new Promise((r) => setTimeout(r, 2000));
  }
  await new Promise((r) => setTimeout(r, SAMPLES_GRACE_MS));
  const runs = await stressRunsSeenBy(page, startMs - 5000);
  if (runs.length !== 1) throw new Error(`expected one run, got ${runs.length}`);
  return runs[0]!;
}

/** The figures a test prints for a person: per phase, goodput and the p50 of ws and ping. */
export function describeRun(run: StressRun): string {
  const f = (v: number | null | undefined, d = 1) => (v === null || v === undefined ? "–" : v.toFixed(d));
  return [
    `run ${run.id} on ${run.target}: ${run.outcome}, grade ${run.grade}, RPM ${f(run.rpm, 0)}, verdict ${run.verdict}`,
    `  ${run.summary}`,
    ...run.phases.map(
      (p) =>
        `  ${p.name.padEnd(13)} ↓ ${f(p.downMbps)} ↑ ${f(p.upMbps)} Mbit/s  ws p50 ${f(p.latency.ws?.p50, 2)}  ping p50 ${f(p.latency.ping?.p50, 2)}  tcprtt p50 ${f(p.latency.tcprtt?.p50, 2)}  self p50 ${f(p.self?.p50, 2)}  added ${f(p.addedMs, 2)} ms`,
    ),
  ].join("\n");
}
