// A notification receiver for tests: an HTTP server on a loopback port that
// records every POST (path, headers, parsed JSON body, arrival time) and can
// be told to refuse (503) or to hang, as a receiver that is down would.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedPost {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  atMs: number;
}

export interface WebhookSink {
  url: string;
  port: number;
  posts: ReceivedPost[];
  /** "ok": 200; "fail": 503; "hang": never answer (the sender's timeout must act). */
  mode: "ok" | "fail" | "hang";
  /** Attempts refused or left hanging, in order. */
  refused: number[];
  /** Resolves with the posts once there are at least n accepted ones. */
  waitForPosts(n: number, timeoutMs: number): Promise<ReceivedPost[]>;
  close(): Promise<void>;
}

export async function startWebhookSink(port = 0): Promise<WebhookSink> {
  const hanging = new Set<http.ServerResponse>();
  const sink: WebhookSink = {
    url: "",
    port: 0,
    posts: [],
    mode: "ok",
    refused: [],
    waitForPosts: async (n, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (sink.posts.length < n) {
        if (Date.now() > deadline)
          throw new Error(`webhook sink: ${sink.posts.length} of ${n} posts after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return sink.posts;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const atMs = Date.now();
      if (sink.mode === "fail") {
        sink.refused.push(atMs);
        res.writeHead(503, { "Content-Type": "text/plain" }).end("down for maintenance");
        return;
      }
      if (sink.mode === "hang") {
        sink.refused.push(atMs);
        hanging.add(res);
        return;
      }
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      sink.posts.push({ path: req.url ?? "", headers: req.headers, body, atMs });
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  sink.port = (server.address() as AddressInfo).port;
  sink.url = `http://127.0.0.1:${sink.port}`;
  return sink;
}
