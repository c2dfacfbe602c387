// GET /api/clients: everyone who has reported, from the sessions table alone
// (each session keeps the t of its newest sample).
import type { ReadPool } from "../store/read-pool.js";
import type { StoredClient } from "./stored-client.js";
import { parseUserAgent } from "./user-agent.js";

interface SessionRow {
  client_id: string;
  label: string | null;
  user_agent: string | null;
  first_seen_ms: number;
  last_t: number | null;
}

/** Everyone who has reported, most recently seen first. */
export async function clientsQuery(pool: ReadPool): Promise<StoredClient[]> {
  const rows = await pool.all<SessionRow>(
    `SELECT s.client_id, s.label, s.user_agent, s.first_seen_ms, s.last_t
     FROM sessions s ORDER BY s.first_seen_ms, s.id`,
    [],
  );
  const byClient = new Map<string, StoredClient>();
  for (const r of rows) {
    const lastSeen = Math.max(r.first_seen_ms, r.last_t ?? r.first_seen_ms);
    let c = byClient.get(r.client_id);
    if (c === undefined) {
      c = {
        clientId: r.client_id,
        label: null,
        userAgent: null,
        browser: null,
        os: null,
        firstSeen: r.first_seen_ms,
        lastSeen,
        sessions: 0,
      };
      byClient.set(r.client_id, c);
    }
    c.sessions++;
    c.lastSeen = Math.max(c.lastSeen, lastSeen);
    // Sessions come oldest first: the newest label and user agent win.
    if (r.label !== null) c.label = r.label;
    if (r.user_agent !== null) c.userAgent = r.user_agent;
  }
  const clients = [...byClient.values()];
  for (const c of clients) {
    const ua = parseUserAgent(c.userAgent);
    c.browser = ua.browser;
    c.os = ua.os;
  }
  return clients.sort((a, b) => b.lastSeen - a.lastSeen || a.clientId.localeCompare(b.clientId));
}
