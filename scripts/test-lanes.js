// npm test: runs the lanes of scripts/lanes.js, each as soon as the lanes it
// waits for have ended, so lanes that do not measure each other share the
// machine. One lane at a time streams its output as it runs; every other lane
// is printed whole when it ends, so two lanes never interleave. Each lane's
// end prints its wall time and CPU time (user + system, with every process it
// started); a table of all of them ends the run and is written to
// test-artifacts/lanes.txt (.ci/run prints it again beside its own steps).
// The exit status is 1 if any lane failed, or could not run.
//
//   node scripts/test-lanes.js                 every lane (npm test)
//   node scripts/test-lanes.js chromium alone  only these lanes, in the plan's order
//   node scripts/test-lanes.js --list          the lanes and their files, without running them
//   node scripts/test-lanes.js -- ARGS         ARGS passed to every vitest run
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CPU_LINE_PREFIX } from "./cpu-time.js";
import { planLanes, ROOT } from "./lanes.js";

const CPU_TIME = path.join(path.dirname(fileURLToPath(import.meta.url)), "cpu-time.js");
const TABLE_FILE = path.join(ROOT, "test-artifacts", "lanes.txt");
/** After a lane's process exits, how long its output pipes may stay open (a process it left behind holds them). */
const PIPE_GRACE_MS = 2000;

/** @typedef {import("./lanes.js").Lane} Lane */
/**
 * @typedef {object} Run
 * @property {Lane} lane
 * @property {"pending" | "running" | "passed" | "failed" | "skipped"} state
 * @property {number} [startMs]
 * @property {number} [endMs]
 * @property {number | null} cpuS
 * @property {string} [note]
 */

const dashes = process.argv.indexOf("--");
const ownArgs = dashes < 0 ? process.argv.slice(2) : process.argv.slice(2, dashes);
const vitestArgs = dashes < 0 ? [] : process.argv.slice(dashes + 1);
const plan = planLanes();

if (ownArgs.includes("--list")) {
  for (const lane of plan) {
    const after = lane.after === "all" ? "every other lane" : lane.after.join(", ") || "nothing";
    console.log(`${lane.name}  (after ${after})\n  ${lane.why}`);
    for (const f of lane.files) console.log(`    ${f}`);
  }
  process.exit(0);
}
const unknown = ownArgs.filter((a) => !plan.some((l) => l.name === a));
if (unknown.length > 0) {
  console.error(`test-lanes: no lane named ${unknown.join(", ")}; lanes: ${plan.map((l) => l.name).join(", ")}`);
  process.exit(2);
}
const selected = plan.filter((l) => (ownArgs.length === 0 || ownArgs.includes(l.name)) && l.steps.length > 0);

const t0 = Date.now();
/** @param {number} ms */
const secondsSince = (ms) => Math.round((ms - t0) / 1000);
/** @type {Run[]} */
const runs = selected.map((lane) => ({ lane, state: "pending", cpuS: null }));
/** The lane whose output goes straight to the console now, if any. */
let streaming = /** @type {Run | null} */ (null);
/** @type {Set<import("node:child_process").ChildProcess>} */
const children = new Set();

/** @param {string} text */
const write = (text) => process.stdout.write(text);

/**
 * Lanes a run waits for, among those selected.
 * @param {Run} run
 * @returns {Run[]}
 */
function waitsFor(run) {
  const names = run.lane.after === "all" ? selected.map((l) => l.name) : run.lane.after;
  return runs.filter((r) => r !== run && names.includes(r.lane.name));
}

/**
 * Runs one step through cpu-time.js; resolves with its exit status and CPU seconds.
 * @param {Run} run
 * @param {import("./lanes.js").Step} step
 * @param {(line: string) => void} onLine
 * @returns {Promise<{ status: number, cpuS: number | null }>}
 */
function runStep(run, step, onLine) {
  return new Promise((resolve) => {
    const argv = [...step.argv, ...(step.vitest ? vitestArgs : [])];
    const child = spawn(process.execPath, [CPU_TIME, ...argv], {
      cwd: ROOT,
      env: { ...process.env, ...(process.stdout.isTTY ? { FORCE_COLOR: "1" } : {}), ...(step.env ?? {}) },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    children.add(child);
    let cpuS = /** @type {number | null} */ (null);
    let partial = "";
    /** @param {Buffer} chunk */
    const take = (chunk) => {
      const lines = (partial + chunk.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        if (line.startsWith(CPU_LINE_PREFIX)) cpuS = JSON.parse(line.slice(CPU_LINE_PREFIX.length)).cpuS;
        else onLine(line);
      }
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    let status = 1;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      children.delete(child);
      if (partial !== "") onLine(partial);
      resolve({ status, cpuS });
    };
    child.on("error", (err) => {
      onLine(`test-lanes: ${err.message}`);
      finish();
    });
    child.on("exit", (code, signal) => {
      status = code ?? (signal ? 1 : 0);
      // Normally the pipes close with the process; one it left running may hold them.
      const timer = setTimeout(() => {
        onLine(`test-lanes: a process "${run.lane.name}" left running still holds its output; not waiting for it`);
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, PIPE_GRACE_MS);
      child.on("close", () => {
        clearTimeout(timer);
        finish();
      });
    });
  });
}

/** @param {Run} run */
const describeRun = (run) =>
  `${run.state === "passed" ? "passed" : run.state === "skipped" ? `skipped (${run.note})` : "FAILED"}` +
  (run.endMs !== undefined && run.startMs !== undefined
    ? ` in ${Math.round((run.endMs - run.startMs) / 1000)} s` +
      (run.cpuS === null ? "" : ` (CPU ${Math.round(run.cpuS)} s)`)
    : "");

/** @param {Run} run */
async function runLane(run) {
  const lane = run.lane;
  run.state = "running";
  run.startMs = Date.now();
  const stream = lane.stream === true && streaming === null;
  if (stream) streaming = run;
  /** @type {string[]} */
  const buffered = [];
  /** @type {(line: string) => void} */
  const onLine = stream ? (line) => write(`${line}\n`) : (line) => void buffered.push(line);
  const files = lane.files.length > 0 ? `, ${lane.files.length} files` : "";
  write(
    `── lane "${lane.name}" started at ${secondsSince(run.startMs)} s${files}${stream ? "; its output follows" : ""} ──\n`,
  );
  let failed = false;
  let cpuS = 0;
  let cpuKnown = true;
  for (const step of lane.steps) {
    onLine(`── ${lane.name}: ${step.label}`);
    const r = await runStep(run, step, onLine);
    if (r.cpuS === null) cpuKnown = false;
    else cpuS += r.cpuS;
    if (r.status !== 0) {
      failed = true;
      break;
    }
  }
  run.endMs = Date.now();
  run.cpuS = cpuKnown ? cpuS : null;
  run.state = failed ? "failed" : "passed";
  if (stream) streaming = null;
  else write(`\n── lane "${lane.name}" (printed whole) ──\n${buffered.join("\n")}\n`);
  write(`── lane "${lane.name}": ${describeRun(run)} ──\n`);
}

/** Test lanes need the build, when it is one of the lanes run. */
const buildFailed = () => runs.some((r) => r.lane.name === "build" && (r.state === "failed" || r.state === "skipped"));

/** Starts every lane whose waits are over; resolves when all have ended. */
function schedule() {
  return new Promise((resolve) => {
    const tick = () => {
      for (const run of runs) {
        if (run.state !== "pending") continue;
        const waits = waitsFor(run);
        if (waits.some((w) => w.state === "pending" || w.state === "running")) continue;
        if (run.lane.files.length > 0 && buildFailed()) {
          run.state = "skipped";
          run.note = "the build failed";
          write(`── lane "${run.lane.name}": ${describeRun(run)} ──\n`);
          continue;
        }
        void runLane(run).then(tick);
      }
      if (runs.every((r) => r.state !== "pending" && r.state !== "running")) resolve(undefined);
    };
    tick();
  });
}

function table() {
  const rows = runs.map((r) => [
    r.lane.name,
    r.lane.files.length > 0 ? String(r.lane.files.length) : "-",
    r.state === "passed" ? "passed" : r.state === "skipped" ? "skipped" : "FAILED",
    r.startMs === undefined ? "-" : String(secondsSince(r.startMs)),
    r.endMs === undefined ? "-" : String(secondsSince(r.endMs)),
    r.endMs === undefined || r.startMs === undefined ? "-" : String(Math.round((r.endMs - r.startMs) / 1000)),
    r.cpuS === null ? "-" : String(Math.round(r.cpuS)),
  ]);
  const head = ["lane", "files", "result", "start s", "end s", "wall s", "CPU s"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]?.length ?? 0)));
  /** @param {string[]} cells */
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  const wallS = (Date.now() - t0) / 1000;
  const cpuS = runs.reduce((sum, r) => sum + (r.cpuS ?? 0), 0);
  return [
    line(head),
    ...rows.map(line),
    `all lanes: ${Math.round(wallS)} s wall (${(wallS / 60).toFixed(1)} min), ${Math.round(cpuS)} s CPU (user + system)`,
  ].join("\n");
}

for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"]))
  process.on(signal, () => {
    // Each lane is a process group of its own (detached): end them all, then ourselves.
    for (const child of children) {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    }
    process.exit(1);
  });

write(`test-lanes: ${selected.map((l) => l.name).join(", ")}\n`);
await schedule();
const summary = table();
write(`\n── lanes ──\n${summary}\n`);
fs.mkdirSync(path.dirname(TABLE_FILE), { recursive: true });
fs.writeFileSync(TABLE_FILE, `${summary}\n`);
process.exit(runs.every((r) => r.state === "passed") ? 0 : 1);
