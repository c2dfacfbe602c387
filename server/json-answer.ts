// A JSON answer written with node:http alone, headers as express's res.json
// writes them: for the paths answered before express (the echo's budget, a
// page's report) and for what both readers of a report share.
import type { ServerResponse } from "node:http";

export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}
