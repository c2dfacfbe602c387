// npm run test:e2e: the Chromium end-to-end files, in two lanes at once.
//
// Most files assert on real-time rates and run one at a time (a second busy
// browser on two cores would disturb them). The hidden-tab file spends three
// minutes waiting on the clock with one tab probing at 1 Hz (about 2 % of a
// core), and what it asserts (the worker clock keeps 1 Hz while main-thread
// timers are throttled) holds on a busy machine too: it runs in a second lane
// beside the first, which takes three minutes off CI. The report-flag file
// stays in the quiet lane: it asserts that no report outlasts its gap, which a
// machine busy with other browsers can break (two probes in 2,100 were sent
// while a report was still in flight when it ran beside the whole suite).
//
// The first lane streams as it runs; the waiting lane's output is printed whole
// when it ends, so the two never interleave. The exit status fails if either lane fails.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const vitest = path.join(root, "node_modules", "vitest", "vitest.mjs");

/**
 * Engine-lane files (tests/engines/, npm run test:firefox / test:webkit) that
 * Chromium runs too, in its own lane: with TAILPROBE_ENGINE unset they drive Chromium.
 */
const CHROMIUM_ENGINE_FILES = ["tests/engines/page-load.test.ts"];

/** Files whose length is waiting on the clock, not work, and whose assertions a busy machine does not break (see above). */
const WAITING = ["tests/e2e/hidden-tab.test.ts"];

function lane(name, args, stream) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, "run", ...args], {
      cwd: root,
      stdio: ["ignore", stream ? "inherit" : "pipe", stream ? "inherit" : "pipe"],
    });
    const chunks = [];
    if (!stream) {
      child.stdout.on("data", (c) => chunks.push(c));
      child.stderr.on("data", (c) => chunks.push(c));
    }
    child.on("close", (code, signal) => {
      if (!stream) {
        process.stdout.write(`\n── e2e lane "${name}" (${WAITING.join(", ")}) ──\n`);
        process.stdout.write(Buffer.concat(chunks));
      }
      const status = code ?? (signal ? 1 : 0);
      process.stdout.write(`── e2e lane "${name}": ${status === 0 ? "passed" : `FAILED (exit ${status})`} ──\n`);
      resolve(status);
    });
  });
}

const extra = process.argv.slice(2);
const [serial, waiting] = await Promise.all([
  lane(
    "serial",
    [
      "tests/e2e",
      ...CHROMIUM_ENGINE_FILES,
      "--fileParallelism=false",
      ...WAITING.flatMap((f) => ["--exclude", f]),
      ...extra,
    ],
    true,
  ),
  lane("waiting", [...WAITING, "--fileParallelism=false", ...extra], false),
]);
process.exit(serial !== 0 ? serial : waiting);
