// A test-only hook that plants a server stall: echoes started while it is
// armed wait `delayMs` inside their handler before answering, as a slow
// handler would, so the stall shows in the server's own time (Server-Timing
// `app`, the WebSocket `served` note). Off unless the server was started with
// TAILPROBE_TEST_HOOKS=1 (read once in server/cli/main.ts); the route below
// is not even mounted otherwise.
import express, { type Router } from "express";
import { z } from "zod";
import { parseWith } from "../../shared/contract/index.js";
import { sendError } from "../api/http-error.js";

/** A planted stall lasts at most this long (ms) and delays each echo by at most this much. */
export const STALL_MS_MAX = 10_000;

export interface EchoStall {
  /** How long an echo starting now must wait (ms); 0 when not armed. */
  delayMs(): number;
}

const armSchema = z
  .object({
    /** Added inside the handler of each echo started while armed (ms). */
    delayMs: z.number().int().min(1).max(STALL_MS_MAX),
    /** How long the stall stays armed from now (ms). */
    durationMs: z.number().int().min(1).max(STALL_MS_MAX),
  })
  .strict();

export function createEchoStall(nowMs: () => number): EchoStall & { router(): Router } {
  let untilMs = 0;
  let delay = 0;
  return {
    delayMs: () => (nowMs() < untilMs ? delay : 0),
    router() {
      const r = express.Router();
      r.post("/api/test/stall", express.json({ limit: 1024 }), (req, res) => {
        const arm = parseWith(armSchema, req.body);
        if (!arm.ok) return sendError(res, 400, "INVALID_STALL", arm.error);
        delay = arm.value.delayMs;
        untilMs = nowMs() + arm.value.durationMs;
        res.json({ armedUntil: untilMs, delayMs: delay });
      });
      return r;
    },
  };
}

/** No hooks: the echo never waits. */
export const NO_STALL: EchoStall = { delayMs: () => 0 };
