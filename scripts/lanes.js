// The lanes `npm test` runs (scripts/test-lanes.js runs them): which files
// each holds, which may run beside which, and what each waits for. Why each
// may run beside the others, with the measured times: docs/decisions/0029-test-lanes.md.
//
// Two things decide where a test file goes: what it asserts (latencies, ratios
// and tight deadlines are moved by a busy machine; counts, flags, clock steps
// and page states are not) and what it costs the machine while it runs (one
// page probing at 1 Hz is about 2 % of a core; a 10 ms soak or a load test is
// a core). Files join their lane by where they are (tests/unit,
// tests/integration, tests/e2e, tests/engines) or by a `// @lane NAME` line
// in their leading comment, which says why; a new file with no such line
// joins the default lane of its folder, the strictest one.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const VITEST = path.join(ROOT, "node_modules", "vitest", "vitest.mjs");
const BIOME = path.join(ROOT, "node_modules", "@biomejs", "biome", "bin", "biome");
const TSC = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
const VITE = path.join(ROOT, "node_modules", "vite", "bin", "vite.js");

/** A file's lane marker: `// @lane NAME` among its first lines. */
const MARKER = /^\/\/ @lane ([a-z][a-z0-9-]*)\b/m;
const MARKER_SCAN_CHARS = 4000;

/**
 * @typedef {object} Step one command of a lane, run after the one before it
 * @property {string} label what it runs, for the log
 * @property {string[]} argv the command (argv[0] is run with the rest)
 * @property {Record<string, string>} [env] added to the environment
 * @property {boolean} [vitest] takes extra vitest arguments (`npm test -- ARGS`)
 */
/**
 * @typedef {object} Lane
 * @property {string} name
 * @property {string} why what it holds, and why it may run beside the lanes it runs beside
 * @property {Step[]} steps run one after another; the lane fails at the first that fails
 * @property {string[]} files the test files it runs (empty for a lane of commands)
 * @property {string[] | "all"} after lanes that must have ended before it starts ("all": every other lane)
 * @property {Record<string, string>} [env] added to the environment of its test runs
 * @property {boolean} [stream] prints as it runs (one streaming lane at a time); the others print whole when they end
 */

/**
 * The test files of a folder, relative to the root, in name order.
 * @param {string} root
 * @param {string} dir
 * @returns {string[]}
 */
function testFiles(root, dir) {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs
    .readdirSync(abs)
    .filter((f) => f.endsWith(".test.ts"))
    .sort()
    .map((f) => `${dir}/${f}`);
}

/**
 * The lane a file names with `// @lane NAME`, or undefined.
 * @param {string} file relative to the root
 * @param {string} [root]
 * @returns {string | undefined}
 */
export function markedLane(file, root = ROOT) {
  const fd = fs.openSync(path.join(root, file), "r");
  try {
    const buf = Buffer.alloc(MARKER_SCAN_CHARS);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return MARKER.exec(buf.subarray(0, n).toString("utf8"))?.[1];
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A vitest run over `files`; serial runs one file at a time.
 * @param {string} label
 * @param {string[]} files
 * @param {{ serial?: boolean, env?: Record<string, string> }} [options]
 * @returns {Step}
 */
function vitestStep(label, files, { serial = false, env = {} } = {}) {
  return {
    label,
    argv: [process.execPath, VITEST, "run", ...files, ...(serial ? ["--fileParallelism=false"] : [])],
    env,
    vitest: true,
  };
}

/**
 * The lanes, in the order their results are listed. Marked files leave their
 * folder's default lane for the lane they name; a marker naming no lane is an
 * error, so a typo cannot drop a file.
 * @param {string} [root] the checkout whose tests/ is read
 * @returns {Lane[]}
 */
export function planLanes(root = ROOT) {
  const node = [...testFiles(root, "tests/unit"), ...testFiles(root, "tests/integration")];
  const e2e = testFiles(root, "tests/e2e");
  const engines = testFiles(root, "tests/engines");
  /** Files that leave their folder's lane for the one they name. */
  /**
   * Files mapped to the lane their marker names, those without one left out.
   * @param {string[]} files
   * @returns {Map<string, string>}
   */
  const markers = (files) => {
    const out = new Map();
    for (const f of files) {
      const lane = markedLane(f, root);
      if (lane !== undefined) out.set(f, lane);
    }
    return out;
  };
  const marked = markers([...node, ...e2e]);
  /** tests/engines/ files run in Firefox and WebKit; one marked with a Chromium lane runs in Chromium there too. */
  const enginesInChromium = markers(engines);
  /** @param {string} lane */
  const filesOf = (lane) => [
    ...[...marked].filter(([, l]) => l === lane).map(([f]) => f),
    ...[...enginesInChromium].filter(([, l]) => l === lane).map(([f]) => f),
  ];
  const chromium = { TAILPROBE_ENGINE: "chromium" };
  /**
   * The strict Chromium files, dealt alternately in name order to two lanes:
   * each file is a light neighbour of the other lane's (a page or three
   * probing at 1-2 Hz), and neither half waits for the other.
   */
  const strict = [...e2e.filter((f) => !marked.has(f)), ...filesOf("chromium")].sort();
  const strictHalves = [strict.filter((_, i) => i % 2 === 0), strict.filter((_, i) => i % 2 === 1)];
  /** @type {Lane[]} */
  const lanes = [
    {
      name: "lint",
      why: "Biome over every file: formatting, lint rules, import boundaries",
      steps: [{ label: "biome check .", argv: [process.execPath, BIOME, "check", "."] }],
      files: [],
      after: [],
    },
    {
      name: "typecheck",
      why: "tsc over the Node side (with tests, scripts, bench) and over the pages",
      steps: [
        { label: "tsc -p tsconfig.json", argv: [process.execPath, TSC, "-p", "tsconfig.json", "--noEmit"] },
        {
          label: "tsc -p tsconfig.client.json",
          argv: [process.execPath, TSC, "-p", "tsconfig.client.json", "--noEmit"],
        },
      ],
      files: [],
      after: [],
    },
    {
      name: "build",
      why: "the pages (Vite) and the server (tsc) every server process and browser test runs",
      steps: [
        { label: "vite build", argv: [process.execPath, VITE, "build"] },
        { label: "tsc -p tsconfig.server.json", argv: [process.execPath, TSC, "-p", "tsconfig.server.json"] },
      ],
      files: [],
      after: [],
    },
    {
      name: "unit-integration",
      why: "unit and integration files, two at a time (vitest.config.ts): written for a shared machine, they assert nothing a busy neighbour moves",
      steps: [],
      files: [...node.filter((f) => !marked.has(f)), ...filesOf("unit-integration")],
      after: ["build"],
      stream: true,
    },
    {
      name: "busy",
      why: "files that keep a core busy but assert only what a busy machine leaves alone (heap and DOM slopes, every benchmark finishing), two at a time beside unit-integration",
      steps: [],
      files: filesOf("busy"),
      after: ["build"],
    },
    ...["firefox", "webkit"].map((engine) => ({
      name: engine,
      why: `tests/engines/ in ${engine === "firefox" ? "Firefox ESR" : "WebKitGTK"}: one page at a time, asserting clock steps, counts and page states rather than latencies, beside unit-integration and each other`,
      steps: [],
      files: engines,
      after: ["build"],
      env: { TAILPROBE_ENGINE: engine },
    })),
    {
      name: "waiting",
      why: "Chromium files that wait on the clock with one page at 1 Hz and assert counts, flags and states: beside everything but the last lane",
      steps: [],
      files: filesOf("waiting"),
      after: ["build"],
      env: chromium,
    },
    ...strictHalves.map((files, i) => ({
      name: i === 0 ? "chromium" : "chromium-2",
      why: "files that assert latencies, rates, ratios in the same run or deadlines of a second (the Chromium end to end files but the waiting ones, and integration files marked so), dealt in name order to two lanes: one at a time in each, beside the other and the waiting lane only (each is one to three pages at 1-2 Hz and their servers, about a fifth of a core)",
      steps: [],
      files,
      after: ["unit-integration", "busy", "firefox", "webkit"],
      env: chromium,
      stream: i === 0,
    })),
    {
      name: "alone",
      why: "files that load the machine themselves and time latencies under that load (slow-loris's p99 under attack, the stress test's grade and goodput): last, one at a time, with nothing beside them",
      steps: [],
      files: filesOf("alone"),
      after: "all",
      env: chromium,
      stream: true,
    },
  ];
  // A marker naming no lane of test files is an error, so a typo cannot drop a file.
  const testLanes = new Set(["unit-integration", "busy", "waiting", "chromium", "alone"]);
  for (const [f, lane] of [...marked, ...enginesInChromium])
    if (!testLanes.has(lane) || (enginesInChromium.has(f) && !["waiting", "chromium"].includes(lane)))
      throw new Error(`${f}: @lane ${lane} is not a lane it may join (${[...testLanes].join(", ")})`);
  for (const lane of lanes) {
    if (lane.files.length === 0) continue;
    const serial = lane.name !== "unit-integration" && lane.name !== "busy";
    lane.steps = [vitestStep(`vitest run (${lane.files.length} files)`, lane.files, { serial, env: lane.env ?? {} })];
  }
  return lanes;
}
