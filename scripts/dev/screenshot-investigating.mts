// Regenerates the screenshots of docs/investigating.md from a run of the
// end-to-end test that plants a client stall, a server stall and a network
// spike (tests/e2e/attribution.test.ts): the pictures are the test's own
// view of the page, so they show what the test asserted. Needs Chromium and
// toxiproxy-server (.ci/run installs both).
// Run after `npm run build`: npx tsx scripts/dev/screenshot-investigating.mts
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const SHOTS = [
  "attribution-client.png",
  "attribution-server.png",
  "attribution-network.png",
  "compare.png",
  "fanout.png",
];
const ARTIFACTS = path.resolve("test-artifacts");
const DOCS_IMG = path.resolve("docs/img");

// A failed run must not leave an older run's pictures to be copied.
for (const f of SHOTS) fs.rmSync(path.join(ARTIFACTS, f), { force: true });
execFileSync("npx", ["vitest", "run", "tests/e2e/attribution.test.ts"], { stdio: "inherit" });
for (const f of SHOTS) {
  fs.copyFileSync(path.join(ARTIFACTS, f), path.join(DOCS_IMG, f));
  console.log(`wrote docs/img/${f}`);
}
