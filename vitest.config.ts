import { defineConfig } from "vitest/config";

// Two cores: unit and integration files run two at a time. `npm test` runs
// every file in a lane of scripts/lanes.js (scripts/test-lanes.js runs them,
// docs/decisions/0029-test-lanes.md says why each may run beside which): the
// files that assert latencies run one at a time in each of two lanes
// (--fileParallelism=false), beside each other and those that wait on the
// clock only; slow-loris and the stress test's end to end files, which load
// the machine themselves and time what they measure under that load, run
// last, alone. Real-time scenarios get the time they need.
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
