// The health feed: what a server knows of each target's health now, and
// every incident as it opens, changes and closes. The alerts (server/alerts/)
// and anything else that must be told subscribe here; the health monitor
// (monitor.ts) is its one implementation. The shape is a contract between
// branches (INTERFACES.md): extend, never rename.
import type { Incident } from "../../shared/contract/incidents.js";

export type HealthState = "up" | "degraded" | "down" | "unknown";

export interface TargetHealth {
  target: string;
  state: HealthState;
  /** Epoch ms since which the state holds. */
  sinceMs: number;
}

export interface IncidentEvent {
  type: "opened" | "updated" | "closed";
  incident: Incident;
}

export interface HealthFeed {
  /** Every target this server knows (itself, its peers; with PostgreSQL every server of the deployment). */
  states(): readonly TargetHealth[];
  /** Called on every incident opened, updated or closed; returns the unsubscribe. */
  subscribe(listener: (e: IncidentEvent) => void): () => void;
}
