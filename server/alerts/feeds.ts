// The two feeds alerts consume, as INTERFACES.md fixes them: the health
// branch's HealthFeed (server/health/feed.ts, shared/contract/incidents.ts),
// declared here by the fields alerts reads until it lands (the real one
// satisfies it structurally), and the ChangeSource of server/changes/source.ts.

export type Verdict = "server" | "client" | "network" | "http" | "browser" | "unknown";

export interface IncidentView {
  id: string;
  target: string;
  kind: "down" | "degraded";
  /** epoch ms */
  start: number;
  /** epoch ms; null while open. */
  end: number | null;
  verdict: Verdict;
  /** One sentence, e.g. "B down: failing from 3 of 3 clients and from A's own probe since 05:14:07". */
  summary: string;
  methods: readonly string[];
  /** Public ids. */
  clients: readonly string[];
  evidence: readonly string[];
  /** The server whose health monitor saw it (with PostgreSQL each server opens its own). */
  observer?: string | undefined;
}

export type HealthState = "up" | "degraded" | "down" | "unknown";

export interface HealthFeed {
  states(): readonly { target: string; state: HealthState; sinceMs: number }[];
  subscribe(listener: (e: { type: "opened" | "updated" | "closed"; incident: IncidentView }) => void): () => void;
}

/** A change as the change source sends it (shared/contract/changes.ts). */
export type { Change as ChangeView } from "../../shared/contract/index.js";
export type { ChangeSource } from "../changes/source.js";
