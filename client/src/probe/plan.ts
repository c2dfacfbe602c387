// Which probes run each tick, in which slot of the interval. Spreading them
// keeps one probe from queueing behind another in the browser.
import type { ProbeMethod } from "../../../shared/methods.js";
import { best2Target } from "../../../shared/names.js";
import type { ServerInfo } from "../../../shared/contract/config.js";

export interface ProbeServer {
  name: string;
  /** Absolute base URL of the server's echo paths. */
  baseUrl: string;
  wsUrl: string;
  /** Why the page cannot probe this server at all (e.g. mixed content), or null. */
  blockedReason: string | null;
}

export interface Slot {
  method: ProbeMethod;
  target: string;
  /** Server(s) this slot talks to: one, or [wsServer, jsonpServer] for best-of-two. */
  servers: ProbeServer[];
}

export function resolveServers(servers: ServerInfo[], pageUrl: string): ProbeServer[] {
  const page = new URL(pageUrl);
  return servers.map((s) => {
    const base = new URL(s.url === "" ? page.origin : s.url);
    const wsBase = new URL(base.href);
    wsBase.protocol = base.protocol === "https:" ? "wss:" : "ws:";
    const blockedReason =
      page.protocol === "https:" && base.protocol === "http:"
        ? `mixed content: this page is served over HTTPS, so the browser will not let it reach ${base.origin} over plain HTTP; serve ${s.name} with --tls-cert/--tls-key or behind an HTTPS proxy`
        : null;
    return {
      name: s.name,
      baseUrl: base.href.replace(/\/+$/, ""),
      wsUrl: `${wsBase.href.replace(/\/+$/, "")}/ws`,
      blockedReason,
    };
  });
}

/** Every server gets xhr, jsonp and ws; best-of-two races ws to the first against jsonp to the second. */
export function buildPlan(servers: ProbeServer[]): Slot[] {
  const slots: Slot[] = [];
  for (const method of ["xhr", "jsonp", "ws"] as const) {
    for (const s of servers) slots.push({ method, target: s.name, servers: [s] });
  }
  const a = servers[0];
  if (a !== undefined) {
    const b = servers[1] ?? a;
    slots.push({ method: "best2", target: best2Target(a.name, b.name), servers: [a, b] });
  }
  return slots;
}
