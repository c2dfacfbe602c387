// Samples wait here until the home server acknowledges them. Each one is
// written to the outbox store (IndexedDB) before any attempt to send it, and
// deleted only after the server's 200, so a reload, a crashed tab or a dead
// server loses nothing. Delivery is idempotent on (sessionId, seq): a batch
// sent twice (a lost answer, a beacon and then a retry) is never counted twice.
import { parseWith } from "../../../shared/contract/parse.js";
import { upgradeReason } from "../../../shared/contract/reasons.js";
import { BATCH_SAMPLES_MAX, sampleRefusalSchema } from "../../../shared/contract/refusal.js";
import type { BrowserEngine, IngestResult, Sample } from "../../../shared/contract/samples.js";
import type { Clock } from "../common/clock.js";
import { MemoryStore, type OutboxRow, type OutboxStore, type StoredRow } from "./outbox-store.js";

/**
 * Send at most this often while samples trickle in (ms). Each report costs
 * the page an IndexedDB read and delete and a request (~1 % of a core at one
 * every 2 s, scripts/dev/main-thread-breakdown.mts), and its server a commit;
 * the histogram page refreshes every 5 s, so sooner shows nothing sooner.
 */
export const FLUSH_INTERVAL_MS = 5000;
/** Retry backoff after a failed delivery: doubles up to the cap, with jitter (ms). */
export const RETRY_MS_FIRST = 1000;
export const RETRY_MS_MAX = 30_000;
/** Samples per POST; the server accepts up to BATCH_SAMPLES_MAX. */
export const BATCH_SAMPLES = Math.min(500, BATCH_SAMPLES_MAX);
/**
 * Rows kept at most (~200 MB of IndexedDB at worst, days of probing with the
 * home server away); beyond it the oldest are dropped and counted.
 */
export const STORED_ROWS_MAX = 500_000;
/** Chrome allows 64 KiB in flight across all keepalive requests and beacons; stay under it. */
export const UNLOAD_BODY_BYTES_MAX = 60_000;
/** How often to look for rows that closed sessions left behind (ms). */
export const ORPHAN_SCAN_MS = 60_000;
/** This session's unacknowledged samples kept in memory too, for the beacon at pagehide. */
export const RECENT_MAX = 2000;

/**
 * Pumps in a row whose report may miss its moment (pump's deadline passed
 * before the request could start) before one goes regardless: at very short
 * intervals there is no moment free of probes, and the outbox must still drain.
 */
export const POSTPONE_MAX = 3;
/**
 * Report round trips remembered to judge whether the next one fits before
 * the next probe: the slowest of the last few, so one slow commit on a busy
 * server makes the next reports wait for a gap they fit in.
 */
export const REQUEST_DURATIONS_KEPT = 8;
/**
 * Report round trips longer than this (ms) are not remembered. One measured
 * across a freeze or a stopped machine says nothing of the next report, and
 * kept it would hold the next REQUEST_DURATIONS_KEPT reports back until each
 * went regardless, over a probe (seen: an 8 s SIGSTOP delayed every report
 * of a hidden tab by 20 s). A server that really takes this long leaves no
 * gap at 1 Hz in any case.
 */
export const REPORT_RECORDED_MS_MAX = 1000;
/** Assumed for a page's first report, before any round trip was timed (ms). */
export const REPORT_GUESS_MS = 20;

/**
 * How long the next report may take (ms): twice the slowest recent round trip
 * and 10 ms more, because a report's time is not a constant: a batch grows
 * between reports and a busy machine stretches one round trip to several of
 * its neighbours (a prediction of exactly the slowest let one report in five
 * minutes run into a probe on a loaded two-core machine).
 */
export const predictedReportMs = (recentMs: readonly number[]): number =>
  2 * Math.max(REPORT_GUESS_MS, ...recentMs) + 10;

/** Answers that will never succeed however often the same batch is retried. */
const HOPELESS_STATUS = new Set([400, 409, 413]);
/** Answers that ask to come back later, after their Retry-After. */
const LATER_STATUS = new Set([429, 503]);
/** The longest Retry-After honoured (ms): a wrong header must not silence a page for a day. */
export const RETRY_AFTER_MS_MAX = 600_000;

/**
 * Retry-After in ms: delta-seconds or an HTTP date (RFC 9110), else undefined.
 * Bounded by RETRY_AFTER_MS_MAX.
 */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const ms = /^\d+$/.test(header.trim()) ? Number(header.trim()) * 1000 : Date.parse(header) - nowMs;
  return Number.isFinite(ms) ? Math.min(RETRY_AFTER_MS_MAX, Math.max(0, ms)) : undefined;
}

export interface OutboxCounters {
  /** Samples not yet acknowledged (stored plus still being written). */
  pending: number;
  /** Samples the server stored because of this page's deliveries. */
  delivered: number;
  /** Samples the server already had (a retried or beaconed batch). */
  duplicates: number;
  /** Oldest samples discarded because the outbox was full. */
  dropped: number;
  /** Samples the server refused for good: those it named as bad, or a batch it refused whole (409, or one sample alone). */
  rejected: number;
  /** Consecutive failed deliveries (0 once one succeeds). */
  failures: number;
  storage: OutboxStore["kind"];
  fallbackReason: string | undefined;
  lastError: string | undefined;
}

/** How a batch leaves the page: `fetch` and `navigator.sendBeacon` in a browser, fakes in tests. */
export interface OutboxTransport {
  fetch(url: string, init: RequestInit): Promise<Response>;
  /** Absent where the browser has no sendBeacon. */
  sendBeacon?(url: string, body: string): boolean;
}

export const browserTransport = (): OutboxTransport => ({
  fetch: (url, init) => fetch(url, init),
  ...(typeof navigator.sendBeacon === "function" ? { sendBeacon: (url, body) => navigator.sendBeacon(url, body) } : {}),
});

export interface OutboxOptions {
  endpoint: string;
  clock: Clock;
  transport: OutboxTransport;
  clientId: string;
  sessionId: string;
  label?: string | undefined;
  /** Sessions whose page is still open elsewhere; their own tab delivers their rows. */
  liveSessions?(): Promise<Set<string>>;
  onChange?(counters: OutboxCounters): void;
  /** This page's measured performance.now() step (ms), sent with every batch of its own session. */
  timerResolutionMs?: number | undefined;
  /** The engine running this page (client/src/probe/engine.ts), sent like timerResolutionMs. */
  engine?: BrowserEngine | undefined;
}

export class Outbox {
  /** Samples handed over but not yet committed to the store. */
  private unsaved: OutboxRow[] = [];
  /** Rows in the transaction being written. */
  private writing = 0;
  /** The write under way, if any: a delivery waits for it so it reads what was taken. */
  private saving: Promise<void> | null = null;
  /** This session's unacknowledged samples by seq, newest last. */
  private readonly recent = new Map<number, Sample>();
  /**
   * This session's rows in the store, kept in step with our own writes and
   * deletes: counting an IndexedDB store walks every row, too slow to do per batch.
   */
  private own = 0;
  /** Closed sessions with rows left, found by the last scan; delivered before our own. */
  private orphanSessions: string[] = [];
  private orphanRows = 0;
  private lastScanMs = Number.NEGATIVE_INFINITY;
  /** Per session, the last seq delivered (or refused): the next read starts after it. */
  private readonly doneSeq = new Map<string, number>();
  private inFlight = false;
  /** The last few report round trips (ms), newest last. */
  private readonly requestDurationsMs: number[] = [];
  /** A request to the endpoint is on the wire (sent, answer not yet read). */
  private requesting = false;
  /** Deliveries in a row that found their deadline passed. */
  private postponed = 0;
  private nextAttemptMs = 0;
  /** Samples per POST now: halved while a refused batch is split to find its bad samples, doubled back after each success. */
  private batchLimit = BATCH_SAMPLES;
  private lastSendMs = Number.NEGATIVE_INFINITY;
  private readonly c: OutboxCounters;

  constructor(
    private store: OutboxStore,
    private readonly options: OutboxOptions,
  ) {
    this.c = {
      pending: 0,
      delivered: 0,
      duplicates: 0,
      dropped: 0,
      rejected: 0,
      failures: 0,
      storage: store.kind,
      fallbackReason: store.fallbackReason,
      lastError: undefined,
    };
  }

  get counters(): Readonly<OutboxCounters> {
    this.c.pending = this.own + this.writing + this.unsaved.length + this.orphanRows;
    return this.c;
  }

  /** Learns what earlier sessions left behind and starts delivering it. */
  async start(): Promise<void> {
    await this.scan().catch(() => undefined);
    this.changed();
    this.pump();
  }

  /**
   * Takes a sample; it is written to the store at the next commit() (the
   * page's housekeeping slot), so no IndexedDB transaction runs in a probe's task.
   */
  add(sample: Sample): void {
    const o = this.options;
    const row: OutboxRow = { sessionId: o.sessionId, clientId: o.clientId, sample };
    if (o.label !== undefined) row.label = o.label;
    this.unsaved.push(row);
    this.recent.set(sample.seq, sample);
    if (this.recent.size > RECENT_MAX) this.recent.delete(this.recent.keys().next().value!);
  }

  /** Writes the samples taken since the last commit to the store. */
  commit(): void {
    if (this.unsaved.length > 0) void this.save();
  }

  /**
   * The page is going away: hands over the samples not yet written (for a
   * synchronous spill, report/spill.ts), instead of starting a transaction the
   * closing document may abort.
   */
  takeUnsaved(): OutboxRow[] {
    const rows = this.unsaved;
    this.unsaved = [];
    return rows;
  }

  /** Rows an earlier page spilled at pagehide: written before anything else, delivered like any other. */
  async restore(rows: OutboxRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.store.put(rows);
  }

  /** Whether a report request is on the wire now (probes sent meanwhile record it). */
  get requestInFlight(): boolean {
    return this.requesting;
  }

  /**
   * Called in every housekeeping slot: commits, then sends one batch when one
   * is due. deadlineMs (epoch ms, the options' clock): the request must start
   * by then or wait for the next pump (at most POSTPONE_MAX in a row), so the
   * IndexedDB read before it cannot push it into the next probe's moment.
   * nextProbeMs (epoch ms): when the next probe to this server goes; the
   * request waits for a later pump too when the slowest of the last reports
   * would not be answered by then.
   */
  pump(deadlineMs?: number, nextProbeMs?: number): void {
    this.commit();
    const now = this.options.clock.monoMs();
    if (this.inFlight || now < this.nextAttemptMs) return;
    const scanDue = now - this.lastScanMs >= ORPHAN_SCAN_MS;
    const own = this.own + this.writing + this.unsaved.length;
    if (this.orphanSessions.length === 0 && !scanDue) {
      if (own === 0) return;
      if (own < BATCH_SAMPLES && now - this.lastSendMs < FLUSH_INTERVAL_MS) return;
    }
    // A report postponed too often goes regardless of its deadline, but still as one batch.
    const force = this.postponed >= POSTPONE_MAX;
    void this.deliver(false, force ? undefined : deadlineMs, deadlineMs === undefined, force ? undefined : nextProbeMs);
  }

  /** The page was hidden: it may never run again, so send what fits in a keepalive request now. */
  flushOnHide(): void {
    this.commit();
    if (this.inFlight || this.own + this.writing + this.unsaved.length + this.orphanRows === 0) return;
    void this.deliver(true);
  }

  /**
   * The page is going away. A beacon carries this session's newest samples
   * (the ones most likely not yet written to the store); nothing is deleted,
   * since a beacon has no answer: the next session delivers the rows again
   * and the server counts them once.
   */
  beaconOnPageHide(): void {
    const beacon = this.options.transport.sendBeacon;
    if (this.recent.size === 0 || beacon === undefined) return;
    const newest = [...this.recent.values()].reverse();
    const samples = fitToBytes(newest, UNLOAD_BODY_BYTES_MAX).reverse();
    beacon(this.options.endpoint, this.body(this.options, samples));
  }

  private save(): Promise<void> {
    if (this.saving === null) this.saving = this.saveAll().finally(() => (this.saving = null));
    return this.saving;
  }

  private async saveAll(): Promise<void> {
    try {
      // Writes are batched by arrival: while one transaction commits, the next samples gather.
      while (this.unsaved.length > 0) {
        const batch = this.unsaved;
        this.unsaved = [];
        this.writing = batch.length;
        try {
          await this.store.put(batch);
        } catch (err) {
          // Quota, a deleted database, a browser bug: keep probing in memory and say so.
          const reason = `IndexedDB write failed: ${(err as Error)?.message ?? String(err)}`;
          this.store = new MemoryStore(reason);
          this.c.storage = "memory";
          this.c.fallbackReason = reason;
          this.own = 0;
          this.orphanSessions = [];
          this.orphanRows = 0;
          await this.store.put(batch);
        }
        this.own += batch.length;
        this.writing = 0;
      }
      if (this.own > STORED_ROWS_MAX) await this.bound(this.own);
    } finally {
      this.changed();
    }
  }

  /** Keeps the store within STORED_ROWS_MAX rows, dropping (and counting) the oldest. */
  private async bound(total: number): Promise<void> {
    if (total <= STORED_ROWS_MAX) return;
    const n = await this.store.dropOldest(total - STORED_ROWS_MAX);
    this.c.dropped += n;
    // The oldest rows are the orphans' if there are any, else ours; the next scan recounts.
    const fromOrphans = Math.min(n, this.orphanRows);
    this.orphanRows -= fromOrphans;
    this.own = Math.max(0, this.own - (n - fromOrphans));
  }

  /** Finds closed sessions' rows (another tab that went away leaves some) and enforces the bound. */
  private async scan(): Promise<void> {
    this.lastScanMs = this.options.clock.monoMs();
    const own = this.options.sessionId;
    const others = (await this.store.sessions()).filter((s) => s !== own);
    const live =
      others.length === 0
        ? new Set<string>()
        : ((await this.options.liveSessions?.().catch(() => undefined)) ?? new Set<string>());
    this.orphanSessions = others.filter((s) => !live.has(s));
    let rows = 0;
    for (const s of this.orphanSessions) rows += await this.store.count(s);
    this.orphanRows = rows;
    await this.bound(await this.store.count());
  }

  /** drain: send batch after batch while a backlog remains (no gap bounds the report). */
  private async deliver(keepalive: boolean, deadlineMs?: number, drain = false, nextProbeMs?: number): Promise<void> {
    this.inFlight = true;
    const lastSendMs = this.lastSendMs;
    this.lastSendMs = this.options.clock.monoMs();
    try {
      await this.save();
      if (!keepalive && this.options.clock.monoMs() - this.lastScanMs >= ORPHAN_SCAN_MS) await this.scan();
      // With a deadline, one request per call: a backlog drains one batch per
      // gap, so a report never runs on into the next probe's moment. Without
      // one (no gap is long enough), batch after batch while there is a backlog.
      for (;;) {
        const orphan = this.orphanSessions[0];
        const session = orphan ?? this.options.sessionId;
        let rows = await this.store.take(
          session,
          this.doneSeq.get(session) ?? Number.NEGATIVE_INFINITY,
          this.batchLimit,
        );
        if (rows.length === 0) {
          if (orphan === undefined) return;
          this.orphanSessions.shift();
          this.doneSeq.delete(orphan);
          continue;
        }
        if (keepalive)
          rows = rows.slice(
            0,
            fitToBytes(
              rows.map((r) => r.row.sample),
              UNLOAD_BODY_BYTES_MAX,
            ).length,
          );
        const first = rows[0]!.row;
        const samples = rows.map((r) => r.row.sample);
        const body = this.body(first, samples);
        const now = this.options.clock.nowMs();
        const late = deadlineMs !== undefined && now > deadlineMs;
        const wouldOverlap =
          nextProbeMs !== undefined && now + predictedReportMs(this.requestDurationsMs) > nextProbeMs;
        if (late || wouldOverlap) {
          this.postponed++;
          // Nothing went: the next gap may try again, a second later rather than a flush interval.
          this.lastSendMs = lastSendMs;
          return;
        }
        this.postponed = 0;
        this.requesting = true;
        const sentAtMs = this.options.clock.monoMs();
        let res: Response;
        let answer: string;
        try {
          res = await this.options.transport.fetch(this.options.endpoint, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body,
            keepalive,
          });
          answer = await res.text();
        } finally {
          this.requesting = false;
          const tookMs = this.options.clock.monoMs() - sentAtMs;
          if (tookMs <= REPORT_RECORDED_MS_MAX) this.requestDurationsMs.push(tookMs);
          if (this.requestDurationsMs.length > REQUEST_DURATIONS_KEPT) this.requestDurationsMs.shift();
        }
        if (LATER_STATUS.has(res.status)) {
          // Overloaded, rate-limited or its disk is full: the rows stay, and we come back when told.
          const wait = retryAfterMs(res.headers.get("Retry-After"), this.options.clock.nowMs());
          if (wait === undefined) throw new Error(`http-${res.status}`);
          this.c.failures++;
          this.c.lastError = `http-${res.status}, retrying in ${Math.round(wait / 1000)} s`;
          this.nextAttemptMs = this.options.clock.monoMs() + wait;
          return;
        }
        if (HOPELESS_STATUS.has(res.status)) {
          // The next call sends what is left: the good part of the batch, or its next half.
          if (await this.refused(res.status, answer, rows, first.sessionId)) return;
        } else {
          if (!res.ok) throw new Error(`http-${res.status}`);
          const result = JSON.parse(answer) as IngestResult;
          // Only now are the samples safe at home.
          await this.forget(rows, first.sessionId);
          this.c.delivered += result.accepted;
          this.c.duplicates += result.duplicates;
          this.c.failures = 0;
          this.c.lastError = undefined;
          this.nextAttemptMs = 0;
          // Past the bad part of a split batch: grow back towards full batches.
          this.batchLimit = Math.min(BATCH_SAMPLES, this.batchLimit * 2);
        }
        this.changed();
        if (orphan !== undefined && rows.length < BATCH_SAMPLES && !keepalive) {
          this.orphanSessions.shift();
          this.doneSeq.delete(orphan);
        }
        if (keepalive || !drain || (this.orphanSessions.length === 0 && this.own < BATCH_SAMPLES)) return;
      }
    } catch (err) {
      this.c.failures++;
      this.c.lastError = (err as Error)?.message ?? String(err);
      const backoff = Math.min(RETRY_MS_MAX, RETRY_MS_FIRST * 2 ** (this.c.failures - 1));
      // Jitter spreads the retries of many tabs after a server restart.
      this.nextAttemptMs = this.options.clock.monoMs() + backoff * (0.5 + this.options.clock.random() / 2);
    } finally {
      this.inFlight = false;
      this.changed();
    }
  }

  /**
   * A batch the server will never take as it is. Drops only what must go: the
   * samples it names as bad (the rest goes in the next request), else the
   * whole batch when its envelope is refused (409: the session is not this
   * client's; INVALID_BATCH) or it is a lone sample; any other refusal of
   * several samples (413, an older server's 400) is split in half until the
   * bad ones are alone. Returns true when rows are left to send again.
   */
  private async refused(status: number, answer: string, rows: StoredRow[], sessionId: string): Promise<boolean> {
    let body: unknown;
    try {
      body = JSON.parse(answer);
    } catch {
      body = undefined;
    }
    const refusal = status === 400 ? parseWith(sampleRefusalSchema, body) : undefined;
    const named = refusal?.ok
      ? refusal.value.rejected.flatMap((r) => (rows[r.index] === undefined ? [] : [rows[r.index]!]))
      : [];
    this.c.lastError = `rejected (${status}): ${answer.slice(0, 200)}`;
    if (named.length > 0) {
      await this.drop(named, sessionId);
      this.c.rejected += named.length;
      this.changed();
      return true;
    }
    // The envelope itself (ids, label) or the session is wrong: every part of the batch would be refused too.
    const whole = status === 409 || (body as { code?: unknown } | undefined)?.code === "INVALID_BATCH";
    if (!whole && rows.length > 1) {
      this.batchLimit = Math.max(1, Math.ceil(rows.length / 2));
      return true;
    }
    // Retrying cannot help, and keeping the rows would block every sample behind them.
    await this.forget(rows, sessionId);
    this.c.rejected += rows.length;
    return false;
  }

  /** Removes some rows of a batch without moving past the others, which are sent again. */
  private async drop(rows: StoredRow[], sessionId: string): Promise<void> {
    await this.store.remove(rows.map((r) => r.key));
    if (sessionId === this.options.sessionId) {
      this.own = Math.max(0, this.own - rows.length);
      for (const r of rows) this.recent.delete(r.row.sample.seq);
    } else {
      this.orphanRows = Math.max(0, this.orphanRows - rows.length);
    }
  }

  private async forget(rows: StoredRow[], sessionId: string): Promise<void> {
    await this.store.remove(rows.map((r) => r.key));
    this.doneSeq.set(sessionId, rows[rows.length - 1]!.row.sample.seq);
    if (sessionId === this.options.sessionId) {
      this.own = Math.max(0, this.own - rows.length);
      for (const r of rows) this.recent.delete(r.row.sample.seq);
    } else {
      this.orphanRows = Math.max(0, this.orphanRows - rows.length);
    }
  }

  private body(who: Pick<OutboxRow, "clientId" | "sessionId" | "label">, samples: Sample[]): string {
    // The resolution and engine are this page's: rows an earlier session left were timed by another page.
    const own = who.sessionId === this.options.sessionId;
    const resolution = own ? this.options.timerResolutionMs : undefined;
    const engine = own ? this.options.engine : undefined;
    return JSON.stringify({
      clientId: who.clientId,
      sessionId: who.sessionId,
      ...(who.label !== undefined ? { label: who.label } : {}),
      ...(resolution !== undefined ? { timerResolutionMs: resolution } : {}),
      ...(engine !== undefined ? { engine } : {}),
      // Rows an older page left may carry a free-text reason, which the server
      // refuses (and the sample with it): they go with the nearest value.
      samples: samples.map(upgradeReason),
    });
  }

  private changed(): void {
    this.options.onChange?.(this.counters);
  }
}

/** The longest prefix of samples whose batch body stays within maxBytes. */
function fitToBytes(samples: Sample[], maxBytes: number): Sample[] {
  // Envelope: ids, label and punctuation.
  let bytes = 300;
  let n = 0;
  for (const s of samples) {
    bytes += JSON.stringify(s).length + 1;
    if (bytes > maxBytes || n >= BATCH_SAMPLES_MAX) break;
    n++;
  }
  return samples.slice(0, n);
}
