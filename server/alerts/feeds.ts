// The two feeds alerts consume, as INTERFACES.md fixes them: the health
// branch's HealthFeed (server/health/feed.ts, shared/contract/incidents.ts)
// and the changes branch's ChangeSource (server/changes/source.ts,
// shared/contract/changes.ts). Declared here by the fields alerts reads, so
// this module builds before those land; theirs satisfy these structurally.

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

export interface ChangeView {
  method: string;
  target: string;
  /** A public id, or null for every client together. */
  client: string | null;
  /** epoch ms */
  t: number;
  statistic: "p50" | "p90" | "p99";
  /** ms */
  before: number;
  /** ms */
  after: number;
  ratio: number;
  verdict: string;
  evidence: string;
}

export interface ChangeSource {
  changes(fromMs: number, toMs: number): Promise<ChangeView[]>;
}
