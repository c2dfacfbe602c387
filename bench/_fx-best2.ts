// Experiment (not committed): why Firefox's best2 median on the probe page exceeds the bare page's.
import http from "node:http";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import { summarize } from "../shared/stats.js";
import { launchEngine, type Engine } from "../testkit/engines.js";
import { startServerProcess, waitForPeerName } from "../testkit/server-process.js";
import { waitForDelivered } from "../testkit/delivered.js";
import { bareUrl } from "./bare-page.js";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const engine = (process.argv[2] ?? "firefox") as Engine;
const S = Number(process.argv[3] ?? 40);
const BARE = fs.readFileSync("bench/bare-page/bare.html");
const JS = BARE.toString().split("<script>")[1]!.split("</script>")[0]!;
const HTML = BARE.toString().split("<script>")[0] + '<script src="/bare.js"></script>';
function serve(csp: string | null) {
  const srv = http.createServer((q, res) => {
    if (q.url?.startsWith("/bare.js")) {
      res.writeHead(200, { "Content-Type": "text/javascript", "Cross-Origin-Resource-Policy": "same-origin", "Cache-Control": "no-store" });
      res.end(JS);
      return;
    }
    const h: Record<string, string> = { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp" };
    if (csp) h["Content-Security-Policy"] = csp;
    res.writeHead(200, h); res.end(csp ? HTML : BARE);
  });
  return new Promise<{ url: string; close(): void }>((r) => srv.listen(0, "127.0.0.1", () => r({ url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`, close: () => srv.close() })));
}
const b = await startServerProcess(["--name", "B", "--no-ping"]);
const a = await startServerProcess(["--name", "A", "--no-ping", "--peer", b.url]);
await waitForPeerName(a, "B");
const csp = (await fetch(`${a.url}/`)).headers.get("content-security-policy");
console.log("csp:", csp);
const br = await launchEngine(engine);
const q = (ms: number[]) => { const s = summarize(ms); return `n ${s.count} p50 ${s.p50?.toFixed(2)} p90 ${s.p90?.toFixed(2)}`; };
try {
  for (let rep = 0; rep < 2; rep++) {
  const tp = await br.newPage();
  await tp.goto(`${a.url}/`);
  await sleep(4000);
  const from = Date.now();
  await sleep(S * 1000);
  const to = Date.now();
  await waitForDelivered(tp, a.dbPath);
  await tp.close();
  const text = await (await fetch(`${a.url}/api/samples.ndjson?from=${from}&to=${to}`)).text();
  const rows = text.trim().split("\n").map((l) => JSON.parse(l));
  const best = rows.filter((r) => r.method === "best2" && r.outcome === "ok");
  const wsA = rows.filter((r) => r.method === "ws" && r.target === "A" && r.outcome === "ok");
  console.log("tailprobe ws A", q(wsA.map((r) => r.ms)));
  console.log("tailprobe best2", q(best.map((r) => r.ms)), "winners", JSON.stringify(best.reduce((m: any, r) => ((m[r.winner] = (m[r.winner] ?? 0) + 1), m), {})));
  console.log("tailprobe best2 ws-won", q(best.filter((r) => r.winner === "ws").map((r) => r.ms)), "other (jsonp)", q(best.filter((r) => r.winner === "ws" && r.otherMs != null).map((r) => r.otherMs)));
  for (const withCsp of [false, true]) {
    const bare = await serve(withCsp ? csp!.replace("script-src 'self'", `script-src 'self' ${a.url}`).replace("connect-src 'self'", `connect-src 'self' ${a.url.replace("http", "ws")} ${b.url.replace("http", "ws")}`) : null);
    const bp = await br.newPage();
    await bp.goto(bareUrl(bare.url, a.url, b.url));
    await sleep(4000);
    const f = Date.now();
    await sleep(S * 1000);
    const got = (await bp.evaluate<any[]>("window.bare.samples")).filter((s) => s.t >= f && s.ms !== null);
    await bp.close(); bare.close();
    console.log(`bare${withCsp ? "+csp" : ""} ws A`, q(got.filter((s) => s.method === "ws" && s.target === "A").map((s) => s.ms)), "best2", q(got.filter((s) => s.method === "best2").map((s) => s.ms)));
  }
  }
} finally { await br.close(); await a.stop(); await b.stop(); }
