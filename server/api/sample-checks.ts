// What a sample must satisfy beyond its shape to be stored by this
// deployment: a time near the server's clock and a target it knows, as the
// rules server/ingest/read-batch.ts applies.
import { best2Target } from "../../shared/names.js";
import type { SampleRules } from "../ingest/read-batch.js";

const DAY_MS = 86_400_000;
/** How far ahead of the server's clock a sample may be dated (ms): a client clock a day fast is still honest. */
export const SAMPLE_AHEAD_MS_MAX = DAY_MS;

export interface SampleCheckOptions {
  /** The server's wall clock (epoch ms). */
  nowMs: () => number;
  /** Raw retention (days, --raw-days): an older sample would be pruned at once, or is forged. */
  rawDays: number;
  /** This server's own name. */
  ownName: string;
  /** The peers' names as known now (learned names replace placeholders). */
  peerNames: () => string[];
  /**
   * Targets the deployment's other servers measure (servers on one PostgreSQL
   * share them), and where this server's are announced to them. Default: none, nowhere.
   */
  deployment?: { targets(): readonly string[]; announce(targets: readonly string[]): void };
}

/** The targets this deployment's pages measure: its servers and their best-of-two pair (see client plan.ts). */
export function knownTargets(ownName: string, peerNames: readonly string[]): Set<string> {
  return new Set([ownName, ...peerNames, best2Target(ownName, peerNames[0] ?? ownName)]);
}

/** The rules a batch is read under, as of now (the clock, the peers' names and the deployment's targets change). */
export function sampleRules(o: SampleCheckOptions): () => SampleRules {
  return () => {
    const now = o.nowMs();
    const targets = knownTargets(o.ownName, o.peerNames());
    o.deployment?.announce([...targets]);
    for (const t of o.deployment?.targets() ?? []) targets.add(t);
    return {
      oldestMs: now - o.rawDays * DAY_MS,
      newestMs: now + SAMPLE_AHEAD_MS_MAX,
      rawDays: o.rawDays,
      targets: [...targets],
    };
  };
}
