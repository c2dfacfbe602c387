// Shared by the durability tests: read what a session stored, find the
// browser's renderer processes, and check that every tick is accounted for.
import fs from "node:fs";
import Database from "better-sqlite3";
import type { Page } from "playwright-core";
import { PROBE_METHODS } from "../../shared/methods.js";
import type { EvaluatingPage } from "../../testkit/delivered.js";
import { loadSampleTables } from "../../testkit/sample-table.js";

export interface StoredSample {
  seq: number;
  t: number;
  method: string;
  target: string;
  ms: number | null;
  outcome: string;
  reason: string | null;
  scheduledT: number | null;
  hiddenMs: number | null;
  lateMs: number | null;
  flags: number;
  /** Best of two: which leg answered first, and how the other leg did. */
  winner: string | null;
  otherMs: number | null;
  otherOutcome: string | null;
}

/** Every sample one session stored, in seq order (read-only: the server may be running). */
export function readSession(dbPath: string, sessionId: string): StoredSample[] {
  if (!fs.existsSync(dbPath)) return [];
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return loadSampleTables(db)
      .prepare(
        `SELECT seq, t, method, target, ms, outcome, reason, scheduled_t AS scheduledT, hidden_ms AS hiddenMs,
                late_ms AS lateMs, flags, winner, other_ms AS otherMs, other_outcome AS otherOutcome
         FROM samples JOIN sessions ON sessions.id = samples.session
         WHERE sessions.session_key = ? ORDER BY seq`,
      )
      .all(sessionId) as StoredSample[];
  } finally {
    db.close();
  }
}

/** Seqs stored for a session run from 0 to the last one with no gap (the table's key rules out duplicates). */
export function seqGaps(rows: StoredSample[]): number[] {
  const gaps: number[] = [];
  let expect = 0;
  for (const r of rows) {
    for (; expect < r.seq && gaps.length < 20; expect++) gaps.push(expect);
    expect = r.seq + 1;
  }
  return gaps;
}

export interface TickAccount {
  /** Ticks in the window. */
  ticks: number;
  /** Per probe method: records in the window, and by outcome. */
  perMethod: Record<
    string,
    { records: number; ok: number; failed: number; skipped: number; skippedWithoutReason: number }
  >;
  /** Due times in the window with no record, or more than one, for some method. */
  problems: string[];
}

/**
 * The "done when": samples = methods × ticks. Every due time of every
 * probe method in [fromT, toT] has exactly one record: ok, failed (timeout,
 * error) or skipped with a reason. Slot offsets differ per method, so each
 * method's due times are counted on its own grid.
 */
/**
 * The earliest due time among the page's own probes. Baselines the servers
 * measured (ping, wsping, tcprtt) have no due time: SQLite hands back null,
 * which Math.min would read as 0.
 */
export function firstDueT(rows: StoredSample[]): number {
  const due = rows.filter((r) => (PROBE_METHODS as readonly string[]).includes(r.method) && r.scheduledT !== null);
  if (due.length === 0) throw new Error("no probe with a due time among the stored samples");
  return Math.min(...due.map((r) => r.scheduledT!));
}

export function accountTicks(rows: StoredSample[], intervalMs: number, fromT: number, toT: number): TickAccount {
  const ticks = Math.floor((toT - fromT) / intervalMs);
  // A window of a million ticks is a mistaken bound (e.g. fromT 0), not a test run.
  if (!(ticks >= 0 && ticks <= 1_000_000)) throw new Error(`accountTicks: ${ticks} ticks from ${fromT} to ${toT}`);
  const perMethod: TickAccount["perMethod"] = {};
  const problems: string[] = [];
  for (const method of PROBE_METHODS) {
    const mine = rows.filter((r) => r.method === method && r.scheduledT !== null);
    const byTick = new Map<number, StoredSample[]>();
    for (const r of mine) {
      const k = Math.floor((r.scheduledT! - fromT) / intervalMs);
      if (k < 0 || k >= ticks) continue;
      const list = byTick.get(k) ?? [];
      list.push(r);
      byTick.set(k, list);
    }
    const acc = { records: 0, ok: 0, failed: 0, skipped: 0, skippedWithoutReason: 0 };
    for (let k = 0; k < ticks; k++) {
      const list = byTick.get(k) ?? [];
      if (list.length !== 1) problems.push(`${method} tick ${k}: ${list.length} records`);
      for (const r of list) {
        acc.records++;
        if (r.outcome === "ok") acc.ok++;
        else if (r.outcome === "skipped") {
          acc.skipped++;
          if (!r.reason) acc.skippedWithoutReason++;
        } else acc.failed++;
      }
    }
    perMethod[method] = acc;
  }
  return { ticks, perMethod, problems };
}

/** Renderer processes of the browsers this test process launched (children of its children). */
export function rendererPids(): number[] {
  const parent = new Map<number, number>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      // Field 4 (ppid) follows the parenthesised command, which may contain spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parent.set(Number(name), ppid);
    } catch {
      // The process exited while we looked.
    }
  }
  const isMine = (pid: number) => {
    for (let p = parent.get(pid), hops = 0; p !== undefined && hops < 10; p = parent.get(p), hops++) {
      if (p === process.pid) return true;
    }
    return false;
  };
  return [...parent.keys()].filter((pid) => {
    if (!isMine(pid)) return false;
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer");
    } catch {
      return false;
    }
  });
}

export interface TailprobeDebug {
  clientId: string;
  sessionId: string;
  sent: number;
  ticks: number;
  pending: number;
  outbox: {
    pending: number;
    delivered: number;
    duplicates: number;
    dropped: number;
    rejected: number;
    failures: number;
    storage: string;
  };
}

/** The probe page's window.tailprobe, from a page of any driver (Playwright's or testkit/engines.ts's). */
export function debugState(page: EvaluatingPage): Promise<TailprobeDebug> {
  return page.evaluate<TailprobeDebug>(`(() => {
    const t = window.tailprobe;
    return { clientId: t.clientId, sessionId: t.sessionId, sent: t.sent, ticks: t.ticks, pending: t.pending, outbox: t.outbox };
  })()`);
}

/** Opens the probe page and waits until its clock has ticked. */
export async function openProbePage(page: Page, url: string): Promise<TailprobeDebug> {
  await page.goto(url);
  await page.waitForFunction(
    () => ((window as unknown as { tailprobe?: { ticks: number } }).tailprobe?.ticks ?? 0) > 0,
    undefined,
    { timeout: 15_000 },
  );
  return debugState(page);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
