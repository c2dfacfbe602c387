// npm run test:e2e: the end-to-end files, in two tracks at once.
//
// Most Chromium files assert on real-time rates and run one at a time (a
// second busy browser on two cores would disturb them): the "serial" lane.
// The hidden-tab file spends three minutes waiting on the clock with one tab
// probing at 1 Hz (about 2 % of a core), and what it asserts (the worker
// clock keeps 1 Hz while main-thread timers are throttled) holds on a busy
// machine too: it runs in a second track beside the first, which takes three
// minutes off CI. The report-flag file stays in the quiet lane: it asserts
// that no report outlasts its gap, which a machine busy with other browsers
// can break (two probes in 2,100 were sent while a report was still in
// flight when it ran beside the whole suite).
//
// The engine lanes (tests/engines/ in Firefox ESR, then in WebKitGTK; also
// `npm run test:firefox` and `npm run test:webkit` on their own) follow the
// hidden-tab file in the second track: each is one page probing at 1 Hz at a
// time, about three minutes, and asserts steps of the probe clock, which a
// busy machine does not move, rather than latencies.
//
// The serial lane streams as it runs; each lane of the second track is printed
// whole when it ends, so the two never interleave. The exit status fails if any lane fails.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const vitest = path.join(root, "node_modules", "vitest", "vitest.mjs");

/**
 * Engine-lane files that Chromium runs too, in the serial lane (with
 * TAILPROBE_ENGINE=chromium they drive Chromium through Playwright).
 */
const CHROMIUM_ENGINE_FILES = ["tests/engines/page-load.test.ts"];

/** Files whose length is waiting on the clock, not work, and whose assertions a busy machine does not break (see above). */
const WAITING = ["tests/e2e/hidden-tab.test.ts"];

/**
 * @param {string} name
 * @param {string[]} args vitest's arguments after `run`
 * @param {{ stream?: boolean, engine?: string }} [options] stream: print as it runs (else buffered, printed whole at the end); engine: TAILPROBE_ENGINE
 * @returns {Promise<number>} the lane's exit status
 */
function lane(name, args, { stream = false, engine = "chromium" } = {}) {
  const startedMs = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, "run", ...args], {
      cwd: root,
      env: { ...process.env, TAILPROBE_ENGINE: engine },
      stdio: ["ignore", stream ? "inherit" : "pipe", stream ? "inherit" : "pipe"],
    });
    /** @type {Buffer[]} */
    const chunks = [];
    if (!stream) {
      child.stdout?.on("data", (c) => chunks.push(c));
      child.stderr?.on("data", (c) => chunks.push(c));
    }
    child.on("close", (code, signal) => {
      if (!stream) {
        process.stdout.write(`\n── e2e lane "${name}" (${args.filter((a) => a.startsWith("tests/")).join(", ")}) ──\n`);
        process.stdout.write(Buffer.concat(chunks));
      }
      const status = code ?? (signal ? 1 : 0);
      const took = `${Math.round((Date.now() - startedMs) / 1000)} s`;
      process.stdout.write(
        `── e2e lane "${name}": ${status === 0 ? "passed" : `FAILED (exit ${status})`} in ${took} ──\n`,
      );
      resolve(status);
    });
  });
}

const extra = process.argv.slice(2);
const serial = lane(
  "serial",
  [
    "tests/e2e",
    ...CHROMIUM_ENGINE_FILES,
    "--fileParallelism=false",
    ...WAITING.flatMap((f) => ["--exclude", f]),
    ...extra,
  ],
  { stream: true },
);
const second = (async () => {
  const statuses = [await lane("waiting", [...WAITING, "--fileParallelism=false", ...extra])];
  for (const engine of ["firefox", "webkit"])
    statuses.push(await lane(engine, ["tests/engines", "--fileParallelism=false", ...extra], { engine }));
  return statuses.find((s) => s !== 0) ?? 0;
})();
const [serialStatus, secondStatus] = await Promise.all([serial, second]);
process.exit(serialStatus !== 0 ? serialStatus : secondStatus);
