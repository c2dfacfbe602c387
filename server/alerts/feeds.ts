// The two feeds alerts consume, as INTERFACES.md fixes them: the HealthFeed of
// server/health/feed.ts (its incidents: shared/contract/incidents.ts) and the
// ChangeSource of server/changes/source.ts (its changes:
// shared/contract/changes.ts). Named here once for the alert modules.
import type { Incident } from "../../shared/contract/incidents.js";

export type { HealthFeed, HealthState } from "../health/feed.js";
/** An incident as the health feed sends it. */
export type IncidentView = Incident;

/** A change as the change source sends it (shared/contract/changes.ts). */
export type { Change as ChangeView } from "../../shared/contract/index.js";
export type { ChangeSource } from "../changes/source.js";
