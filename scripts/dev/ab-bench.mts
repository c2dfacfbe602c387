// Compares one benchmark between two checkouts (say the commit before a
// change and after it) on a shared, busy machine: it runs the benchmark's
// smoke size in each tree alternately, round after round, so both meet the
// same load, and prints each figure's median per tree and the median of the
// per-round ratios (after / before). Each tree must be built (npm run build:server).
//
// Run: npx tsx scripts/dev/ab-bench.mts BEFORE_DIR AFTER_DIR BENCH [ROUNDS]
// e.g. npx tsx scripts/dev/ab-bench.mts /tmp/tp-before . ingest-rate 12
import { execFileSync } from "node:child_process";
import path from "node:path";

const [before, after, bench, roundsArg] = process.argv.slice(2);
if (before === undefined || after === undefined || bench === undefined) {
  console.error("usage: ab-bench.mts BEFORE_DIR AFTER_DIR BENCH [ROUNDS]");
  process.exit(2);
}
const ROUNDS = Number(roundsArg ?? 10);

/** The figures one run prints in its table: "| bench | figure | value | …" rows. */
function runOnce(tree: string): Map<string, number> {
  const out = execFileSync("npx", ["tsx", path.join("bench", `${bench}.ts`), "smoke"], {
    cwd: path.resolve(tree),
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  const figures = new Map<string, number>();
  for (const line of out.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells[1] !== bench || cells[3] === undefined) continue;
    const value = Number(cells[3].replace(/[^0-9.eE+-]/g, ""));
    if (Number.isFinite(value)) figures.set(cells[2]!, value);
  }
  return figures;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const runs: { before: Map<string, number>; after: Map<string, number> }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  // Alternate which goes first, so neither always follows the other's disk traffic.
  const first = r % 2 === 0 ? before : after;
  const a = runOnce(first);
  const b = runOnce(first === before ? after : before);
  runs.push(first === before ? { before: a, after: b } : { before: b, after: a });
  process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
}
console.log(`${bench}: ${ROUNDS} rounds, smoke size, before ${before} / after ${after}`);
for (const figure of runs[0]!.before.keys()) {
  const b = runs.map((x) => x.before.get(figure)!).filter(Number.isFinite);
  const a = runs.map((x) => x.after.get(figure)!).filter(Number.isFinite);
  const ratios = runs.map((x) => x.after.get(figure)! / x.before.get(figure)!).filter(Number.isFinite);
  console.log(
    `${figure}: before ${median(b).toPrecision(4)}, after ${median(a).toPrecision(4)}, after/before ${median(ratios).toFixed(3)} (rounds: ${ratios.map((x) => x.toFixed(2)).join(" ")})`,
  );
}
