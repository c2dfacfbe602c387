import { defineConfig } from "vitest/config";

// Two cores: browser and multi-process tests are heavy, so run files two at a
// time and give real-time scenarios the time they need.
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
