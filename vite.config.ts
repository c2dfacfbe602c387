import { resolve } from "node:path";
import { defineConfig } from "vite";

// Two pages: the probe page (/) and the histogram page (/histogram).
export default defineConfig({
  root: resolve(import.meta.dirname, "client"),
  base: "/",
  build: {
    outDir: resolve(import.meta.dirname, "dist/client"),
    emptyOutDir: true,
    target: "es2022",
    rollupOptions: {
      input: {
        probe: resolve(import.meta.dirname, "client/index.html"),
        histogram: resolve(import.meta.dirname, "client/histogram.html"),
      },
    },
  },
  worker: { format: "es" },
});
