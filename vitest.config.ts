import { defineConfig } from "vitest/config";

// Two cores: unit and integration files run two at a time; the Chromium end to
// end files run one at a time (`npm run test:e2e`), because they assert on
// real-time rates (about one sample a second) that a second browser on the
// same two cores would disturb. Real-time scenarios get the time they need.
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
