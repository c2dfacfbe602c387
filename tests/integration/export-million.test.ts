// A month-sized export: 1,000,000 stored samples stream out of a child server
// as CSV and as NDJSON with exact row counts, while the server's resident
// memory grows by far less than the export's size (it holds one page, not
// the result); a reader that stops reading stops the server's reading too.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../server/store/sqlite/store.js";
import { bulkLoader } from "../../server/store/sqlite/bulk-loader.js";
import { Codes } from "../../server/store/sqlite/codes.js";
import type { Sample } from "../../shared/contract/index.js";
import { startServerProcess, tempDir, type ServerProcess } from "../../testkit/server-process.js";

const ROWS = 1_000_000;
const T0 = Date.UTC(2026, 9, 1);
/**
 * Allowed growth of the server's RSS while exporting (bytes). The CSV is ~80 MB
 * and the NDJSON ~180 MB, so a server that held either would pass it; what
 * grows is V8's young garbage between collections, which a loaded two-core
 * machine lets reach ~50 MiB (measured 31–52 MiB for the CSV, 7 MiB for the NDJSON).
 */
const RSS_GROWTH_MAX = 64 << 20;

let server: ServerProcess;
let dbPath: string;

function fill(file: string): void {
  const store = openStore(file);
  // The bulk path the benchmarks use: the same rows and rollups as ingest, written in big transactions.
  const loader = bulkLoader(store.db, new Codes(store.db));
  const methods = ["xhr", "jsonp", "ws", "best2"] as const;
  const BATCH = 10_000;
  for (let from = 0; from < ROWS; from += BATCH) {
    const samples: Sample[] = [];
    for (let i = from; i < from + BATCH; i++) {
      const failed = i % 97 === 0;
      // Eight probes a second over ~35 hours; several share a millisecond, as real ticks do.
      samples.push({
        seq: i,
        t: T0 + Math.floor(i / 8) * 1000 + (i % 4),
        method: methods[i % 4]!,
        target: i % 8 < 4 ? "A" : "B",
        ms: failed ? null : 20 + (i % 50),
        outcome: failed ? "error" : "ok",
        lateMs: i % 7,
        visibleAtSend: true,
        visibleAtReply: true,
        serverMs: 0.05,
      });
    }
    loader.add({ clientId: "c-million", sessionId: "s-million", samples });
  }
  loader.finish();
  void store.close();
}

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m![1]) * 1024;
}

/** CPU seconds the process has used (user + system; /proc/PID/stat fields 14 and 15, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** GETs url, counting lines and the server's peak RSS while the body streams. */
function streamLines(url: string): Promise<{ lines: number; bytes: number; peakRss: number; lastLine: string }> {
  const pid = server.child.pid!;
  return new Promise((resolve, reject) => {
    let peakRss = rssBytes(pid);
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssBytes(pid))), 50);
    http
      .get(url, (res) => {
        let lines = 0;
        let bytes = 0;
        let tail = "";
        res.on("data", (d: Buffer) => {
          bytes += d.length;
          for (let i = d.indexOf(10); i >= 0; i = d.indexOf(10, i + 1)) lines++;
          // Room for the last two whole lines (an NDJSON record is ~500 characters).
          tail = (tail + d.toString("utf8")).slice(-2000);
        });
        res.on("end", () => {
          clearInterval(sampler);
          const parts = tail.split("\n");
          resolve({ lines, bytes, peakRss, lastLine: parts[parts.length - 2] ?? "" });
        });
        res.on("error", reject);
      })
      .on("error", (e) => {
        clearInterval(sampler);
        reject(e);
      });
  });
}

beforeAll(async () => {
  dbPath = path.join(tempDir(), "million.db");
  fill(dbPath);
  server = await startServerProcess(["--no-ping"], { dbPath });
  // Warm up on a tenth of the rows: V8's heap and SQLite's page cache settle at their working size
  // (measured: ~80 MiB on a cold server), so the exports below measure growth with the export's size.
  const warm = await streamLines(`${server.url}/api/samples.csv?from=${T0}&to=${T0 + (ROWS / 80) * 1000 - 1}`);
  expect(warm.lines).toBe(ROWS / 10 + 1);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe("export of 1,000,000 samples", () => {
  it("CSV: header + one line per sample, in bounded memory", async () => {
    const before = rssBytes(server.child.pid!);
    const r = await streamLines(`${server.url}/api/samples.csv?from=${T0}&to=${T0 + 86_400_000 * 3}`);
    expect(r.lines).toBe(ROWS + 1);
    expect(r.lastLine.split(",")[3]).toBe(String(ROWS - 1));
    expect(r.bytes).toBeGreaterThan(RSS_GROWTH_MAX * 1.2);
    console.log(`export ${r.bytes} bytes; server RSS grew ${((r.peakRss - before) / 2 ** 20).toFixed(1)} MiB`);
    expect(r.peakRss - before).toBeLessThan(RSS_GROWTH_MAX);
  }, 120_000);

  it("NDJSON: one object per sample and nothing else, filtered like /api/stats", async () => {
    const before = rssBytes(server.child.pid!);
    const r = await streamLines(`${server.url}/api/samples.ndjson?from=${T0}&to=${T0 + 86_400_000 * 3}&target=B`);
    expect(r.lines).toBe(ROWS / 2);
    expect(JSON.parse(r.lastLine)).toMatchObject({ target: "B", seq: ROWS - 1, visibleAtSend: true, froze: null });
    expect(r.bytes).toBeGreaterThan(RSS_GROWTH_MAX * 2.5);
    console.log(`export ${r.bytes} bytes; server RSS grew ${((r.peakRss - before) / 2 ** 20).toFixed(1)} MiB`);
    expect(r.peakRss - before).toBeLessThan(RSS_GROWTH_MAX);
  }, 120_000);

  it("a reader that stops reading holds the server at one page; hanging up stops the export", async () => {
    const pid = server.child.pid!;
    const before = rssBytes(pid);
    let received = 0;
    const req = http.get(`${server.url}/api/samples.csv?from=${T0}&to=${T0 + 86_400_000 * 3}`);
    const res = await new Promise<http.IncomingMessage>((resolve) => req.on("response", resolve));
    res.on("data", (d: Buffer) => {
      received += d.length;
      if (received > 1 << 20) res.pause();
    });
    await new Promise((r) => setTimeout(r, 2000));
    const whilePaused = received;
    let peak = 0;
    for (let i = 0; i < 10; i++) {
      peak = Math.max(peak, rssBytes(pid));
      await new Promise((r) => setTimeout(r, 100));
    }
    // Paused: the socket's buffers fill and the server stops reading pages.
    expect(received).toBe(whilePaused);
    expect(received).toBeLessThan(16 << 20);
    expect(peak - before).toBeLessThan(RSS_GROWTH_MAX);
    req.destroy();
    // The server is free again: an echo answers, and the export stopped working: a
    // second of an export still reading pages and writing CSV costs most of a core.
    const echo = await fetch(`${server.url}/echo`);
    expect(echo.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const cpuBefore = cpuSeconds(pid);
    await new Promise((r) => setTimeout(r, 1000));
    expect(cpuSeconds(pid) - cpuBefore).toBeLessThan(0.25);
  }, 60_000);
});
