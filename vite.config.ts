import fs from "node:fs";
import { join, resolve } from "node:path";
import { defineConfig, type Plugin, transformWithEsbuild } from "vite";

/**
 * Scripts in client/public (page-guard.js, every page's first script) are kept
 * as written, comments and all, for the person reading them; the copies served
 * are minified like every other script, since they count against the probe
 * page's 30 KB (tests/e2e/bundle-split.test.ts). es2020: the syntax they use,
 * so minifying introduces none newer.
 */
function minifyPublicScripts(): Plugin {
  let outDir = "";
  let publicDir = "";
  return {
    name: "tailprobe:minify-public-scripts",
    apply: "build",
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
      publicDir = config.publicDir;
    },
    // Vite copies the public directory before the bundle is written.
    async writeBundle() {
      for (const name of fs.readdirSync(publicDir).filter((n) => n.endsWith(".js"))) {
        const file = join(outDir, name);
        const { code } = await transformWithEsbuild(fs.readFileSync(file, "utf8"), file, {
          minify: true,
          target: "es2020",
        });
        fs.writeFileSync(file, code);
      }
    },
  };
}

// Two pages: the probe page (/) and the histogram page (/histogram).
export default defineConfig({
  root: resolve(import.meta.dirname, "client"),
  base: "/",
  plugins: [minifyPublicScripts()],
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
