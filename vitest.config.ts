import { defineConfig } from "vitest/config";

// Two cores: unit and integration files run two at a time. `npm test` runs
// every file in a lane of scripts/lanes.js (scripts/test-lanes.js runs them,
// docs/decisions/0029-test-lanes.md says why each may run beside which): the
// Chromium end to end files that assert latencies run one at a time
// (--fileParallelism=false), beside only those that wait on the clock and
// assert what a busy machine does not move; slow-loris, which compares an
// honest prober's p99 during an attack with before and after it, runs last,
// alone. Real-time scenarios get the time they need.
export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default"],
  },
});
