import { defineConfig } from "vitest/config";

// Two cores: unit and integration files run two at a time, but for
// slow-loris, which compares an honest prober's p99 during an attack with
// before and after it, and runs alone after them (`npm run test:fast`): a
// neighbour file's burst in the attack phase alone would move its ratio. The Chromium end to
// end files run one at a time (`npm run test:e2e`, scripts/test-e2e.js),
// because they assert on real-time rates (about one sample a second) that a
// second busy browser on the same two cores would disturb; only the hidden-tab file,
// which spends minutes waiting on the clock, runs in a lane beside them. Real-time
// scenarios get the time they need.
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
