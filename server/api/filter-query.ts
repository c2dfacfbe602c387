// Every query endpoint parses its query string and the sample filters in it
// the same way, and answers a bad one itself with 400 INVALID_QUERY.
import type { Request, Response } from "express";
import type { z } from "../../shared/zod.js";
import { parseWith } from "../../shared/contract/index.js";
import { filterFromQuery, type SampleFilter } from "../store/store.js";
import type { SampleFilterQuery } from "../store/sample-filter.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import { sendError } from "./http-error.js";

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
