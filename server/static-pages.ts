// Serves the built pages: / is the probe page, /histogram the histogram page.
import fs from "node:fs";
import path from "node:path";
import express, { type Router } from "express";

export function staticPages(clientDir: string): Router {
  const router = express.Router();
  // Browsers ask for it on every page; an empty answer keeps their consoles clean.
  router.get("/favicon.ico", (_req, res) => void res.status(204).set("Cache-Control", "max-age=86400").end());
  if (!fs.existsSync(path.join(clientDir, "index.html"))) {
    router.get(["/", "/histogram"], (_req, res) => {
      res.status(503).type("text/plain").send(`The pages are not built (no ${clientDir}). Run: npm run build\n`);
    });
    return router;
  }
  // Hashed assets can be cached forever; the HTML must always be fresh.
  router.use(
    "/assets",
    express.static(path.join(clientDir, "assets"), { immutable: true, maxAge: "365d", fallthrough: false }),
  );
  router.use(
    express.static(clientDir, {
      extensions: ["html"],
      setHeaders: (res) => res.setHeader("Cache-Control", "no-cache"),
    }),
  );
  return router;
}
