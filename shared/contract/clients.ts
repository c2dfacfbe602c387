// GET /api/clients: who has reported, for the series picker.
import { z } from "../zod.js";
import { count, ms } from "./fields.js";

/** GET /api/clients takes no parameters. */
export const clientsQuerySchema = z.strictObject({});

/**
 * GET /api/clients: who has reported, for the series picker. A client is
 * named by its public id (a keyed hash of its clientId, which stays the
 * browser's secret), its label and its browser family; never its address,
 * clientId or full user agent.
 */
export const clientInfoSchema = z.object({
  /** Public id: what ?client= takes. */
  id: z.string(),
  /** The label its page was given, as sent (render it as text). */
  label: z.nullable(z.string()),
  /** Browser family without version, e.g. "Firefox". */
  browser: z.nullable(z.string()),
  firstSeen: ms,
  lastSeen: ms,
  sessions: count,
});
export type ClientInfo = z.infer<typeof clientInfoSchema>;
export const clientsResponseSchema = z.object({ clients: z.array(clientInfoSchema) });
export type ClientsResponse = z.infer<typeof clientsResponseSchema>;
