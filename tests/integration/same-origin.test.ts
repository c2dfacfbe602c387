// Ingest takes writes only from the server's own pages: an Origin header must
// be exactly the server's origin, scheme included, as a browser serializes it
// (no userinfo, no path). Checked on both readers of a report: the raw path
// (a plain JSON body with its length) and express's (a chunked body).
import http from "node:http";
import https from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInProcess } from "../helpers/in-process.js";
import { makeSelfSignedCert } from "../helpers/tls.js";

type Server = Awaited<ReturnType<typeof startInProcess>>;

let seq = 0;
/** POSTs one good batch with these headers; chunked: no Content-Length, so express reads it. */
function post(
  server: Server,
  headers: Record<string, string>,
  chunked: boolean,
  ca?: Buffer,
): Promise<{ status: number; body: string }> {
  const n = ++seq;
  const body = JSON.stringify({
    clientId: "client_origin",
    sessionId: `session_origin_${n}`,
    samples: [{ seq: 0, t: Date.now() - 1000, method: "xhr", target: "A", ms: 2, outcome: "ok" }],
  });
  const url = new URL(`${server.url}/api/samples`);
  const lib = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      url,
      {
        method: "POST",
        ...(ca ? { ca } : {}),
        headers: {
          "Content-Type": "application/json",
          ...(chunked ? {} : { "Content-Length": Buffer.byteLength(body) }),
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    if (chunked) req.write(body.slice(0, 10));
    req.end(chunked ? body.slice(10) : body);
  });
}

const PATHS = [
  ["raw path", false],
  ["express path", true],
] as const;

describe.each(PATHS)("same origin on ingest (%s)", (_path, chunked) => {
  let server: Server;
  let proxied: Server;
  beforeAll(async () => {
    server = await startInProcess(["--name", "A", "--no-rate-limit"]);
    // As behind a reverse proxy on this host: it names the page's scheme in X-Forwarded-Proto.
    proxied = await startInProcess(["--name", "A", "--no-rate-limit", "--trust-proxy"]);
  });
  afterAll(async () => {
    await server?.close();
    await proxied?.close();
  });

  const host = () => new URL(server.url).host;

  it("takes the server's own origin, and no Origin at all (not a browser)", async () => {
    expect((await post(server, { Origin: server.url }, chunked)).status).toBe(200);
    expect((await post(server, {}, chunked)).status).toBe(200);
  });

  it.each([
    ["https on an http server", (h: string) => `https://${h}`],
    ["userinfo before the host", (h: string) => `http://user@${h}`],
    ["https with userinfo", (h: string) => `https://user:pw@${h}`],
    ["a path after the origin", (h: string) => `http://${h}/api`],
    ["another port", (h: string) => `http://${h.replace(/:\d+$/, ":1")}`],
    ["the opaque origin", () => "null"],
  ])("refuses %s with 403 FOREIGN_ORIGIN", async (_what, origin) => {
    const r = await post(server, { Origin: origin(host()) }, chunked);
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body)).toMatchObject({ code: "FOREIGN_ORIGIN" });
  });

  it("believes X-Forwarded-Proto only from a trusted proxy", async () => {
    const origin = `https://${host()}`;
    expect((await post(server, { Origin: origin, "X-Forwarded-Proto": "https" }, chunked)).status).toBe(403);
    const ph = new URL(proxied.url).host;
    expect((await post(proxied, { Origin: `https://${ph}`, "X-Forwarded-Proto": "https" }, chunked)).status).toBe(200);
    // The page is https (as the proxy says): an http page of the same host and port is another origin.
    const plain = await post(proxied, { Origin: `http://${ph}`, "X-Forwarded-Proto": "https" }, chunked);
    expect(plain.status).toBe(403);
    // A proxy that says nothing: the scheme cannot be known, host and port are compared (docs/security.md).
    expect((await post(proxied, { Origin: `http://${ph}` }, chunked)).status).toBe(200);
  });
});

describe("same origin on a TLS server", () => {
  let server: Server;
  let ca: Buffer;
  beforeAll(async () => {
    const cert = makeSelfSignedCert();
    ca = cert.pem;
    server = await startInProcess([
      "--name",
      "A",
      "--no-rate-limit",
      "--tls-cert",
      cert.certPath,
      "--tls-key",
      cert.keyPath,
    ]);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("takes https://host:port and refuses http://host:port", async () => {
    const h = new URL(server.url).host;
    expect((await post(server, { Origin: `https://${h}` }, false, ca)).status).toBe(200);
    expect((await post(server, { Origin: `http://${h}` }, false, ca)).status).toBe(403);
    expect((await post(server, { Origin: `http://${h}` }, true, ca)).status).toBe(403);
  });
});
