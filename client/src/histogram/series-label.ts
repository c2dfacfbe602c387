// How a (method, server) pair is named in legends, titles and the table.
import { METHOD_LABELS } from "../../../shared/methods.js";

const SHORT_LABELS: Record<string, string> = {
  xhr: "XHR",
  jsonp: "JSONP",
  ws: "WebSocket",
  best2: "Best of two",
  ping: "Ping",
  wsping: "WS ping frame",
  tcprtt: "TCP RTT",
  tcpminrtt: "TCP min RTT",
  // A server's own echo probes of its peer (server/health/): no browser in them.
  peerhttp: "Peer HTTP",
  peerws: "Peer WS",
};

export function methodLabel(method: string): string {
  return (METHOD_LABELS as Record<string, string>)[method] ?? SHORT_LABELS[method] ?? method;
}

/** Short enough for a legend on a phone: "WebSocket · A". */
export function seriesLabel(method: string, target: string): string {
  return `${SHORT_LABELS[method] ?? method} · ${target}`;
}
