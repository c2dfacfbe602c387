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
      // zod ships comments Rollup cannot place; they are harmless and only drown real warnings.
      onwarn(warning, warn) {
        if (warning.code === "INVALID_ANNOTATION" && warning.id?.includes("node_modules/zod")) return;
        warn(warning);
      },
      input: {
        probe: resolve(import.meta.dirname, "client/index.html"),
        histogram: resolve(import.meta.dirname, "client/histogram.html"),
      },
    },
  },
  worker: { format: "es" },
});
