// Serves the built pages: / is the probe page, /histogram the histogram page.
import fs from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";
import express, { type Router } from "express";

/**
 * Cross-origin isolation: without it Chromium coarsens performance.now() to
 * 100 µs, ±4 % of a 1.2 ms WebSocket round trip. With it, 5 µs. The pages
 * then load only same-origin resources or those that opt in: peers' /echo
 * answers CORS (Access-Control-Allow-Origin: *) and /jsonp carries
 * Cross-Origin-Resource-Policy: cross-origin (server/echo/http-echo.ts);
 * WebSockets are not subject to COEP. Set on the pages and on their assets,
 * since the clock worker's script must be isolated as well.
 */
export const ISOLATION_HEADERS = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
} as const;

function isolate(res: ServerResponse): void {
  for (const [name, value] of Object.entries(ISOLATION_HEADERS)) res.setHeader(name, value);
}

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
    express.static(path.join(clientDir, "assets"), {
      immutable: true,
      maxAge: "365d",
      fallthrough: false,
      setHeaders: isolate,
    }),
  );
  router.use(
    express.static(clientDir, {
      extensions: ["html"],
      setHeaders: (res) => {
        res.setHeader("Cache-Control", "no-cache");
        isolate(res);
      },
    }),
  );
  return router;
}
