// Connections to PostgreSQL: the URL from --db (password in it or in PG*
// variables, which the client library reads itself), numbers as JS numbers.
import postgres from "postgres";
import { READERS_MAX } from "../read-pool.js";

/** Write connections: concurrent ingest transactions (a batch holds one for a few ms). */
export const WRITE_CONNECTIONS_MAX = 4;
/** Read connections: queries at once, as SQLite's READERS_MAX (2 cores: more would only share them); reads never block writes (MVCC). */
export const READ_CONNECTIONS_MAX = READERS_MAX;
/** How long a new connection may take before the attempt fails (s): ingest then answers 503. */
export const CONNECT_TIMEOUT_S = 5;
/** Idle connections are closed after this long (s). */
const IDLE_TIMEOUT_S = 60;
/**
 * Longest wait before a connection is tried again after one failed (s),
 * jittered down to half. postgres.js's default grows with every failure to
 * 20 s (3^n / 100): a 20 s outage then left writes waiting 4-15 s for their
 * 503 and the first write after the restart up to 20 s for its connection.
 * A failed attempt against a stopped or restarting server costs a refused
 * TCP connect, so retrying this often is cheap for PostgreSQL and keeps the
 * promise of docs/deployment.md: 503 within a second while the database is
 * away, the first 200 within two once it accepts connections again.
 */
export const RECONNECT_DELAY_S_MAX = 0.5;
const reconnectDelayS = () => RECONNECT_DELAY_S_MAX * (0.5 + Math.random() / 2);

/**
 * int8 and numeric as JS numbers: every stored integer (epoch ms, µs,
 * counts) is far below 2^53, and the query layer does arithmetic on them.
 */
const asNumber = (x: string) => Number(x);

export function connect(url: string, max: number): postgres.Sql {
  return postgres(url, {
    max,
    connect_timeout: CONNECT_TIMEOUT_S,
    idle_timeout: IDLE_TIMEOUT_S,
    backoff: reconnectDelayS,
    onnotice: () => {},
    types: {
      int8: { to: 20, from: [20], serialize: (x: number) => String(x), parse: asNumber },
      numeric: { to: 1700, from: [1700], serialize: (x: number) => String(x), parse: asNumber },
    },
  });
}
