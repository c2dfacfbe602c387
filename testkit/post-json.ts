// POST a JSON body on a keep-alive connection, at as little CPU as the load
// scripts can spend: node:http with an agent rather than fetch, whose streams
// and abort plumbing cost more than the request. The benchmarks that load a
// server from the same two cores (ingest-rate, ingest-stall's burst) measure
// the server, so what the load itself costs is taken from what they measure.
import http from "node:http";

/** A keep-alive agent holding up to `sockets` connections. */
export const keepAliveAgent = (sockets: number): http.Agent => new http.Agent({ keepAlive: true, maxSockets: sockets });

/** Posts `body` (JSON text) to `url`; resolves with the answer's status and text. */
export function postJson(url: string, body: string, agent: http.Agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
