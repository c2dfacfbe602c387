// Every query endpoint parses its query string and the sample filters in it
// the same way, and answers a bad one itself with 400 INVALID_QUERY.
import type { Request, Response } from "express";
import { z } from "../../shared/zod.js";
import { parseWith, sampleFilterQueryShape } from "../../shared/contract/index.js";
import { fail, ok, type Result } from "../../shared/result.js";
import { loadCode } from "../../shared/stress/phases.js";
import type { SampleFilter } from "../store/sample-filter.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import { sendError } from "./http-error.js";

const filterQuerySchema = z.object(sampleFilterQueryShape);
export type SampleFilterQuery = z.infer<typeof filterQuerySchema>;

/** Query-string filters → store filter; `to` defaults to now, `from` to the beginning. */
export function filterFromQuery(q: SampleFilterQuery, nowMs: number): Result<SampleFilter> {
  const fromMs = q.from ?? 0;
  const toMs = q.to ?? nowMs;
  if (fromMs > toMs) return fail(q.to === undefined ? "from must not be in the future" : "from must not be after to");
  return ok({
    fromMs,
    toMs,
    clientId: q.client,
    methods: q.method,
    targets: q.target,
    visibleOnly: q.visible,
    maxLateMs: q.maxLateMs,
    exclude: q.exclude,
    timeoutsInTail: q.timeouts,
    reportInFlight: q.reportInFlight,
    loads: q.load?.map(loadCode),
    stressRun: q.stressRun,
  });
}

/** The parsed query and its filter, or null once a 400 has been sent. */
export function parseFilterQuery<T extends SampleFilterQuery>(
  schema: z.core.$ZodType<T>,
  req: Request,
  res: Response,
  nowMs: number,
  clients: ClientDirectory,
): { q: T; filter: SampleFilter } | null {
  const q = parseWith(schema, req.query);
  if (!q.ok) {
    sendError(res, 400, "INVALID_QUERY", q.error);
    return null;
  }
  const filter = filterFromQuery(q.value, nowMs);
  if (!filter.ok) {
    sendError(res, 400, "INVALID_QUERY", filter.error);
    return null;
  }
  // ?client= is a public id; the store filters by the clientId behind it.
  // An id nobody here has becomes "", which no clientId matches (8+ characters).
  if (filter.value.clientId !== undefined) filter.value.clientId = clients.clientIdOf(filter.value.clientId) ?? "";
  return { q: q.value, filter: filter.value };
}
