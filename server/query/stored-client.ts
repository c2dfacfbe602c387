// A client as the store knows it. Server-side only: its clientId is the
// browser's secret and its user agent is kept for the operator, so the public
// API shows a ClientInfo (shared/contract/clients.ts) made from it instead.
export interface StoredClient {
  clientId: string;
  label: string | null;
  userAgent: string | null;
  /** Browser and version parsed from the user agent, e.g. "Firefox 121". */
  browser: string | null;
  os: string | null;
  firstSeen: number;
  lastSeen: number;
  sessions: number;
}
