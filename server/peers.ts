// The other servers a page probes. A peer's name comes from the command line
// (NAME=URL) or is learned from its /api/config, retried until it answers.
import { configSchema, parseWith, type ServerInfo } from "../shared/contract/index.js";
import type { PeerSpec } from "./cli/options.js";

/** How long one attempt to learn a peer's name may take (ms). */
const LEARN_TIMEOUT_MS = 2000;
/** Pause between attempts while a peer does not answer (ms). */
const LEARN_RETRY_MS = 5000;

export interface PeerDirectory {
  list(): ServerInfo[];
  /** Resolves when every peer's name is known, or after waitMs. */
  settled(waitMs: number): Promise<void>;
  stop(): void;
}

function placeholderName(index: number, taken: Set<string>): string {
  for (let c = "B".charCodeAt(0) + index; c <= "Z".charCodeAt(0); c++) {
    const name = String.fromCharCode(c);
    if (!taken.has(name)) return name;
  }
  return `peer${index + 1}`;
}

export function createPeerDirectory(ownName: string, specs: PeerSpec[], log: (line: string) => void): PeerDirectory {
  const taken = new Set([ownName, ...specs.flatMap((s) => (s.name ? [s.name] : []))]);
  const entries = specs.map((spec, i) => {
    const name = spec.name ?? placeholderName(i, taken);
    taken.add(name);
    return { url: spec.url, name, known: spec.name !== undefined };
  });
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();

  async function learn(entry: (typeof entries)[number]): Promise<void> {
    // Said once per peer, not on every retry: a peer that is down is news, its staying down is not.
    let complained = false;
    while (!stopped && !entry.known) {
      let problem: string;
      try {
        const res = await fetch(`${entry.url}/api/config`, { signal: AbortSignal.timeout(LEARN_TIMEOUT_MS) });
        const cfg = parseWith(configSchema, await res.json());
        problem = cfg.ok ? "" : `its /api/config is not tailprobe's (${cfg.error})`;
        if (cfg.ok) {
          const name = cfg.value.name;
          if (name !== entry.name && taken.has(name)) {
            log(
              `tailprobe: peer ${entry.url} calls itself '${name}', a name already used here; keeping '${entry.name}' (use --peer NAME=URL)`,
            );
          } else {
            taken.delete(entry.name);
            taken.add(name);
            entry.name = name;
          }
          entry.known = true;
          if (complained) log(`tailprobe: peer ${entry.url} answered; it is '${entry.name}'`);
          return;
        }
      } catch (err) {
        // The peer may simply not be up yet: keep its placeholder name and retry.
        const e = err as Error & { cause?: { code?: string; message?: string } };
        problem = e.cause?.code ?? e.cause?.message ?? e.message;
      }
      if (!complained && !stopped) {
        complained = true;
        log(
          `tailprobe: peer ${entry.url} cannot be reached (${problem}); pages show it as '${entry.name}' ` +
            `until it answers, retrying every ${LEARN_RETRY_MS / 1000} s (--peer NAME=URL names it without asking)`,
        );
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          timers.delete(t);
          resolve();
        }, LEARN_RETRY_MS);
        timers.add(t);
      });
    }
  }
  const learning = Promise.all(entries.map(learn));

  return {
    list: () => entries.map((e) => ({ name: e.name, url: e.url })),
    settled: (waitMs) =>
      Promise.race([learning.then(() => undefined), new Promise<void>((r) => setTimeout(r, waitMs).unref())]),
    stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
    },
  };
}
