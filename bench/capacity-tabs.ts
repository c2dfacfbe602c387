// Simulated probe tabs for the capacity benchmark (bench/capacity.ts), in their
// own process so the tabs' work is not the measuring process's. Each tab does
// what a probe page does on the wire: a WebSocket that says hello, a keep-alive
// HTTP connection, four probes a tick (XHR, JSONP, WebSocket, and best-of-two's
// two legs, WebSocket + JSONP, both to this one server: a one-server deployment
// has no best-of-two pair, so the race itself is not reported), the baselines
// the server pushes reported back, and a report every 5 s that keeps refused
// samples for the next one on 429/503, as the outbox does.
// Each tab binds its own loopback source address (127.0.x.y), so the server
// sees as many client addresses as the run asks for.
//   node --import tsx bench/capacity-tabs.ts URL ADDRESSES
// Reads "tabs N" lines on stdin (ramps to N tabs, opening them over 2 s) and
// "stop" (a last report from every tab, then exit). Prints one JSON line of
// running totals a second.
import { randomBytes } from "node:crypto";
import readline from "node:readline";
import WebSocket from "ws";
import type { BaselineSample, Sample } from "../shared/contract/index.js";
import type { Outcome, ProbeMethod } from "../shared/methods.js";
import { BareHttpConn, BareHttpError } from "./bare-http-conn.js";
import { zeroTotals } from "./capacity-totals.js";

const [baseUrl, addressesArg] = process.argv.slice(2);
if (baseUrl === undefined) {
  process.stderr.write("usage: capacity-tabs.ts URL ADDRESSES\n");
  process.exit(2);
}
const ADDRESSES = Number(addressesArg ?? 500);
const TICK_MS = 1000;
const REPORT_MS = 5000;
/** A probe unanswered after this long is a timeout, as on the page. */
const TIMEOUT_MS = 5000;
const RAMP_MS = 2000;
/** Reports a stopping tab tries before it gives up on what is left (counted in unsentAtStop). */
const STOP_REPORTS_MAX = 40;
/** A report unanswered this long (ms) is an error and its samples are kept; a stuck one must not hang the stop. */
const REPORT_TIMEOUT_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const { hostname: HOST, port: PORT } = new URL(baseUrl);
/** How often requests in flight are checked against their deadline (ms): a timeout reads up to this much late. */
const SWEEP_MS = 250;

const totals = zeroTotals();
/** Why probes and reports failed (HTTP status or error code), so a failed run says what the server answered. */
const countError = (kind: string) => (totals.errorKinds[kind] = (totals.errorKinds[kind] ?? 0) + 1);

/** 127.0.x.y for the i-th address, skipping .0 and .255 in the last octet. */
function addressOf(i: number): string {
  const n = i % ADDRESSES;
  return `127.0.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;
}

class Tab {
  private readonly clientId = randomBytes(12).toString("base64url");
  private readonly sessionId = randomBytes(12).toString("base64url");
  private readonly http: BareHttpConn;
  private ws: WebSocket | null = null;
  private name = "A";
  private seq = 0;
  private wsId = 0;
  private readonly waiting = new Map<number, () => void>();
  private outbox: Sample[] = [];
  private reporting = false;
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(private readonly address: string) {
    // One keep-alive HTTP connection a tab (issue 13's model of a tab): its probes and reports queue on it.
    this.http = new BareHttpConn(HOST, Number(PORT), address);
    conns.add(this.http);
  }

  start(): void {
    this.connect();
    const phase = Math.random() * TICK_MS;
    this.timers.push(setTimeout(() => this.timers.push(setInterval(() => this.tick(), TICK_MS)), phase));
    this.timers.push(
      setTimeout(
        () => this.timers.push(setInterval(() => void this.report(), REPORT_MS)),
        phase + Math.random() * REPORT_MS,
      ),
    );
  }

  private connect(): void {
    const ws = new WebSocket(`${baseUrl!.replace(/^http/, "ws")}/ws`, {
      localAddress: this.address,
      perMessageDeflate: false,
    });
    this.ws = ws;
    ws.on("open", () => ws.send(JSON.stringify({ type: "hello", clientId: this.clientId, sessionId: this.sessionId })));
    ws.on("message", (data) => {
      const m = JSON.parse(data.toString()) as { type: string; id?: number; name?: string; samples?: BaselineSample[] };
      if (m.type === "echo" && m.id !== undefined) this.waiting.get(m.id)?.();
      else if (m.type === "welcome" && m.name !== undefined) this.name = m.name;
      else if (m.type === "baseline" && m.samples !== undefined)
        for (const b of m.samples) {
          // The server's per-connection id only keeps a page from reporting one twice; the report carries a seq instead.
          const { id: _id, ...rest } = b;
          this.outbox.push({ ...rest, seq: this.seq++ });
        }
    });
    ws.on("error", () => undefined);
    ws.on("close", () => {
      if (this.stopped) return;
      totals.wsDrops++;
      setTimeout(() => this.connect(), 1000);
    });
  }

  private record(method: ProbeMethod, t: number, scheduledT: number, ms: number | null, outcome: Outcome): void {
    totals.probes++;
    if (outcome === "timeout") totals.timeouts++;
    else if (outcome !== "ok") totals.probeErrors++;
    this.outbox.push({
      seq: this.seq++,
      t,
      scheduledT,
      method,
      target: this.name,
      ms,
      outcome,
      lateMs: Math.max(0, t - scheduledT),
      visibleAtSend: true,
      visibleAtReply: true,
    });
  }

  private async httpProbe(path: string): Promise<[number | null, Outcome]> {
    const start = performance.now();
    try {
      const res = await this.http.request("GET", path, TIMEOUT_MS);
      if (res.status === 200) return [performance.now() - start, "ok"];
      countError(`probe HTTP ${res.status}`);
      return [null, "error"];
    } catch (err) {
      const code = err instanceof BareHttpError ? err.code : (err as Error).message;
      if (code === "TIMEOUT") return [TIMEOUT_MS, "timeout"];
      countError(`probe ${code}`);
      return [null, "error"];
    }
  }

  private wsProbe(): Promise<[number | null, Outcome]> {
    const ws = this.ws;
    if (ws === null || ws.readyState !== WebSocket.OPEN) {
      countError("probe ws not open");
      return Promise.resolve([null, "error"]);
    }
    const id = this.wsId++;
    const start = performance.now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve([TIMEOUT_MS, "timeout"]);
      }, TIMEOUT_MS);
      this.waiting.set(id, () => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve([performance.now() - start, "ok"]);
      });
      ws.send(JSON.stringify({ type: "echo", id }));
    });
  }

  private tick(): void {
    const scheduledT = Date.now();
    const q = () => `cb_${this.seq}_${Math.floor(Math.random() * 1e9)}`;
    const run = (method: ProbeMethod, p: Promise<[number | null, Outcome]>) => {
      const t = Date.now();
      void p.then(([ms, outcome]) =>
        this.record(method, t, scheduledT, ms === null ? null : Math.round(ms * 1000) / 1000, outcome),
      );
    };
    run("xhr", this.httpProbe(`/echo?t=${scheduledT}`));
    run("jsonp", this.httpProbe(`/jsonp?callback=${q()}`));
    run("ws", this.wsProbe());
    // Best-of-two's legs: counted as probes, not reported (no pair to name).
    for (const leg of [this.wsProbe(), this.httpProbe(`/jsonp?callback=${q()}`)])
      void leg.then(([, outcome]) => {
        totals.probes++;
        if (outcome !== "ok") totals.probeErrors++;
      });
  }

  async report(): Promise<void> {
    if (this.reporting || this.outbox.length === 0) return;
    this.reporting = true;
    const batch = this.outbox.splice(0, 1000);
    const body = JSON.stringify({ clientId: this.clientId, sessionId: this.sessionId, samples: batch });
    try {
      const { status, body: text } = await this.http.request("POST", "/api/samples", REPORT_TIMEOUT_MS, body);
      if (status === 200) {
        const r = JSON.parse(text) as { accepted: number; duplicates: number };
        totals.acked += r.accepted;
        totals.duplicates += r.duplicates;
      } else if (status === 429 || status === 503) {
        totals.retried += batch.length;
        this.outbox.unshift(...batch);
      } else {
        totals.refused += batch.length;
        process.stderr.write(`capacity-tabs: report refused ${status}: ${text.slice(0, 200)}\n`);
      }
    } catch (err) {
      countError(`report ${err instanceof BareHttpError ? err.code : (err as Error).message}`);
      totals.reportErrors++;
      this.outbox.unshift(...batch);
    } finally {
      this.reporting = false;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) {
      clearTimeout(t);
      clearInterval(t);
    }
    // Let probes in flight settle, then leave (the server stops pushing this
    // tab's baselines, which would otherwise keep refilling the outbox), and
    // report until the outbox is empty, within STOP_REPORTS_MAX tries.
    await sleep(500);
    this.ws?.close();
    for (let i = 0; i < STOP_REPORTS_MAX && (this.outbox.length > 0 || this.reporting); i++) {
      if (this.reporting) await sleep(250);
      else await this.report();
      if (this.outbox.length > 0) await sleep(500);
    }
    totals.unsentAtStop += this.outbox.length;
    this.http.close();
    conns.delete(this.http);
  }
}

const tabs: Tab[] = [];
const conns = new Set<BareHttpConn>();
const sweep = setInterval(() => {
  const now = performance.now();
  for (const c of conns) c.sweep(now);
}, SWEEP_MS);

async function rampTo(n: number): Promise<void> {
  const add = n - tabs.length;
  for (let i = 0; i < add; i++) {
    const tab = new Tab(addressOf(tabs.length));
    tabs.push(tab);
    tab.start();
    totals.tabs = tabs.length;
    if (i % 50 === 49) await new Promise((r) => setTimeout(r, (RAMP_MS * 50) / add));
  }
}

const print = setInterval(() => process.stdout.write(`${JSON.stringify(totals)}\n`), 1000);
// Bounded: a forgotten generator stops by itself after an hour.
const deadline = setTimeout(() => void finish(), 3_600_000);

async function finish(): Promise<void> {
  clearTimeout(deadline);
  await Promise.all(tabs.map((t) => t.stop()));
  clearInterval(print);
  clearInterval(sweep);
  process.stdout.write(`${JSON.stringify({ ...totals, done: true })}\n`);
  process.exit(0);
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const m = /^tabs (\d+)$/.exec(line.trim());
  if (m) void rampTo(Number(m[1]));
  else if (line.trim() === "stop") void finish();
});
