// GET /api/config: the page learns its servers and probe settings here.
import express, { type Router } from "express";
import {
  PROTOCOL_VERSION,
  type BaselineStatus,
  type Config,
  type ServerInfo,
  type StressPorts,
} from "../../shared/contract/index.js";

export interface ConfigSource {
  name: string;
  intervalMs: number;
  timeoutMs: number;
  /** Peers as currently known (names may be learned after start-up). */
  peers(): ServerInfo[];
  baselines(): Record<string, BaselineStatus>;
  /** This server's load paths; undefined with --no-stress. */
  stress?: StressPorts | undefined;
}

export function buildConfig(src: ConfigSource): Config {
  return {
    protocol: PROTOCOL_VERSION,
    name: src.name,
    servers: [{ name: src.name, url: "", ...(src.stress === undefined ? {} : { stress: src.stress }) }, ...src.peers()],
    intervalMs: src.intervalMs,
    timeoutMs: src.timeoutMs,
    baselines: src.baselines(),
  };
}

export function configRouter(src: ConfigSource): Router {
  const router = express.Router();
  router.get("/api/config", (_req, res) => {
    // A peer's page reads this cross-origin to learn the peer's name.
    res.set({ "Cache-Control": "no-store", "Access-Control-Allow-Origin": "*" }).json(buildConfig(src));
  });
  return router;
}
