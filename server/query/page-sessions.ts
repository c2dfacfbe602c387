// Which sessions are pages': a server's own probes of its peers are stored as
// a session too (client ids prefixed by PEER_PROBER_ID_PREFIX), but no
// browser sent them. One condition, so the queries that count pages agree.
import { PEER_PROBER_ID_PREFIX } from "../health/peer-samples.js";

/** SQL condition on `clientIdColumn` that leaves out ids starting with `prefix`, and its two parameters. */
export function notPeerProber(
  clientIdColumn: string,
  prefix: string = PEER_PROBER_ID_PREFIX,
): { sql: string; params: [number, string] } {
  return { sql: `substr(${clientIdColumn}, 1, ?) <> ?`, params: [prefix.length, prefix] };
}
