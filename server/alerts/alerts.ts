// Wires alerting together: the sources (rules on the rollups, TargetDown from
// the health feed, the NoReports dead-man, TailRegression from the change
// source) raise alerts into the book, which records each transition in the
// store and hands what this server won to the dispatcher and its receivers.
import type { Labels } from "./alert.js";
import { AlertBook, RESOLVED_KEEP_MS } from "./book.js";
import { BucketCache } from "./bucket-cache.js";
import type { BuiltinSettings } from "./builtins.js";
import { ALERT_SLICE_MS, RuleEvaluator } from "./evaluator.js";
import type { ChangeSource, HealthFeed } from "./feeds.js";
import { PEER_PROBER_ID_PREFIX } from "../health/peer-samples.js";
import { checkNoReports } from "./no-reports.js";
import { RESEND_MS_DEFAULT, startResend } from "./notify/alertmanager.js";
import { Dispatcher } from "./notify/dispatcher.js";
import type { ReceiverSpec } from "./notify/receiver-url.js";
import { makeReceiver, SEND_TIMEOUT_MS_DEFAULT } from "./notify/receivers.js";
import { TAIL_LATENCY_HIGH, type AlertRule } from "./rule.js";
import type { AlertStateStore, StoredAlert } from "../store/alert-state.js";
import { TailRegression } from "./tail-regression.js";
import { TargetDown } from "./target-down.js";
import type { BucketRows } from "../query/alert-window.js";

/** How often the scheduler looks for due work (ms); rule groups' intervals are multiples of it at best. */
export const TICK_MS = 5_000;
/** TargetDown's re-assertion and NoReports run this often (ms). */
export const BUILTIN_INTERVAL_MS = 30_000;
/** The change source is asked this often (ms): its answers move on the 5-minute rollups. */
export const CHANGES_INTERVAL_MS = 60_000;
/** Another server on the database may have resolved what this one holds: checked this often (ms). */
export const RECONCILE_INTERVAL_MS = 60_000;
/** Resolved alerts are kept in the store this long (ms), then pruned. */
export const RESOLVED_RETENTION_MS = 7 * 86_400_000;
const PRUNE_INTERVAL_MS = 3_600_000;

export interface AlertOptions {
  /** Rules from --alerts FILE (none without it). */
  rules: readonly AlertRule[];
  builtins: BuiltinSettings;
  /** --notify receivers. */
  notify: readonly ReceiverSpec[];
  /** --alertmanager, if given. */
  alertmanager: ReceiverSpec | undefined;
}

export interface AlertDeps {
  serverName: string;
  queries: {
    alertBuckets(fromMs: number, toMs: number, options?: { sliceMs?: number }): Promise<BucketRows>;
    newestSampleMs(excludePrefix?: string): Promise<number | null>;
  };
  state: AlertStateStore;
  /** A stored clientId's public id. */
  publicId: (clientKey: string) => string;
  /** This server's base URL, once it listens (links in the messages). */
  externalUrl: () => string;
  health?: HealthFeed | undefined;
  changes?: ChangeSource | undefined;
  nowMs?: () => number;
  log?: (line: string) => void;
  /** Tests shorten these. */
  tuning?: {
    tickMs?: number;
    sendTimeoutMs?: number;
    resendMs?: number;
    backoffFirstMs?: number;
    backoffMaxMs?: number;
  };
}

export interface AlertService {
  readonly book: AlertBook;
  readonly dispatcher: Dispatcher;
  /** Every source once, now (tests; the scheduler does this on its own). */
  evaluateNow(): Promise<void>;
  stop(): Promise<void>;
}

export function histogramLink(base: string, labels: Labels, fromMs: number, toMs: number): string {
  if (base === "") return "";
  const q = new URLSearchParams({ range: "custom", from: String(Math.round(fromMs)), to: String(Math.round(toMs)) });
  if (labels.method !== undefined) q.set("method", labels.method);
  if (labels.target !== undefined) q.set("target", labels.target);
  if (labels.client !== undefined) q.set("client", labels.client);
  return `${base}/histogram?${q.toString()}`;
}

/** What a restart owes each receiver, from the stored rows this server owns. */
function owed(rows: readonly StoredAlert[], owner: string, keys: readonly string[], nowMs: number) {
  const out: { row: StoredAlert; type: "firing" | "resolved"; keys: Set<string> }[] = [];
  for (const row of rows) {
    if (row.owner !== owner) continue;
    const type = row.endsAtMs === null ? "firing" : "resolved";
    const due = new Set<string>();
    for (const k of keys) {
      const had = row.sent[k];
      if (had === type) continue;
      // A receiver never told of a long-resolved alert is not told now.
      if (type === "resolved" && had === undefined && nowMs - row.endsAtMs! >= RESOLVED_KEEP_MS) continue;
      due.add(k);
    }
    if (due.size > 0) out.push({ row, type, keys: due });
  }
  return out;
}

export async function startAlerts(o: AlertOptions, d: AlertDeps): Promise<AlertService> {
  const nowMs = d.nowMs ?? Date.now;
  const log = d.log ?? ((line: string) => console.log(line));
  const t = d.tuning ?? {};
  const resendMs = t.resendMs ?? RESEND_MS_DEFAULT;
  const timeoutMs = t.sendTimeoutMs ?? SEND_TIMEOUT_MS_DEFAULT;
  const specs = [...o.notify, ...(o.alertmanager !== undefined ? [o.alertmanager] : [])];
  const stopping = new AbortController();
  const receivers = specs.map((spec) =>
    makeReceiver(spec, { externalUrl: d.externalUrl, nowMs, timeoutMs, resendMs, stopSignal: stopping.signal }),
  );
  const dispatcher = new Dispatcher({
    receivers,
    markSent: (fp, startsAtMs, key, what) => d.state.markSent(fp, startsAtMs, key, what),
    log,
    backoffFirstMs: t.backoffFirstMs,
    backoffMaxMs: t.backoffMaxMs,
  });
  const book = new AlertBook({
    owner: d.serverName,
    store: d.state,
    nowMs,
    log,
    announce: (a) => dispatcher.enqueue(a),
  });
  const rows = await book.restore();
  for (const { row, type, keys } of owed(
    rows,
    d.serverName,
    specs.map((s) => s.key),
    nowMs(),
  ))
    dispatcher.enqueue({ type, fingerprint: row.fingerprint, alert: { ...row } }, keys);

  const link = (labels: Labels, fromMs: number, toMs: number) => histogramLink(d.externalUrl(), labels, fromMs, toMs);
  const rules = [...(o.builtins.tailLatencyHigh ? [TAIL_LATENCY_HIGH] : []), ...o.rules];
  const cache = new BucketCache(
    (fromMs, toMs) => d.queries.alertBuckets(fromMs, toMs, { sliceMs: ALERT_SLICE_MS }),
    nowMs,
  );
  const evaluator = new RuleEvaluator({
    rules,
    read: (fromMs, toMs) => cache.read(fromMs, toMs),
    publicId: d.publicId,
    sink: book,
    nowMs,
    link,
  });
  const firing = book.active().filter((a) => a.alert.endsAtMs === null);
  evaluator.adopt(firing);
  const targetDown =
    o.builtins.targetDown && d.health !== undefined
      ? new TargetDown({ feed: d.health, sink: book, nowMs, link })
      : null;
  targetDown?.adopt(firing);
  const regression =
    o.builtins.tailRegressionWithinMs !== null && d.changes !== undefined
      ? new TailRegression({ source: d.changes, withinMs: o.builtins.tailRegressionWithinMs, sink: book, nowMs, link })
      : null;
  regression?.adopt(firing);
  const stopResend =
    o.alertmanager !== undefined
      ? startResend(o.alertmanager, () => book.active().map((a) => a.alert), {
          nowMs,
          resendMs,
          timeoutMs,
          log,
          signal: stopping.signal,
        })
      : () => {};
  const lookbackMs = Math.max(0, ...rules.map((r) => r.windowMs + (r.threshold.relative ? r.threshold.baselineMs : 0)));

  // When each kind of work last ran (epoch ms); -Infinity: due at the first tick.
  const last = new Map<unknown, number>();
  const due = (what: unknown, everyMs: number, now: number) => {
    if (now - (last.get(what) ?? -Infinity) < everyMs) return false;
    last.set(what, now);
    return true;
  };
  const guarded = async (what: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (err) {
      log(`alerts: ${what} failed: ${(err as Error).message}`);
    }
  };
  const cycle = async (force: boolean) => {
    const now = nowMs();
    const rulesDue = rules.filter((r) => force || due(r, r.intervalMs, now));
    if (rulesDue.length > 0) await guarded("rule evaluation", () => evaluator.evaluate(rulesDue));
    cache.evictBefore(now - lookbackMs - 2 * TICK_MS);
    if (force || due("builtins", BUILTIN_INTERVAL_MS, now)) {
      if (targetDown !== null) await guarded("TargetDown", () => targetDown.check());
      const afterMs = o.builtins.noReportsAfterMs;
      if (afterMs !== null)
        await guarded("NoReports", () =>
          checkNoReports({
            afterMs,
            serverName: d.serverName,
            // A server's own probes of its peers are stored as a client too: they are no page.
            newestSampleMs: () => d.queries.newestSampleMs(PEER_PROBER_ID_PREFIX),
            sink: book,
            nowMs,
            link,
          }),
        );
    }
    if (regression !== null && (force || due(regression, CHANGES_INTERVAL_MS, now)))
      await guarded("TailRegression", () => regression.check());
    await guarded("resolve retry", () => book.retryResolves());
    if (due("reconcile", RECONCILE_INTERVAL_MS, now)) await guarded("reconcile", () => book.reconcile());
    if (due("prune", PRUNE_INTERVAL_MS, now))
      await guarded("prune", async () => void (await d.state.prune(now - RESOLVED_RETENTION_MS)));
  };

  let running: Promise<void> | null = null;
  const tick = () => {
    if (running !== null) return;
    running = cycle(false).finally(() => (running = null));
  };
  const timer = setInterval(tick, t.tickMs ?? TICK_MS);
  timer.unref();
  tick();

  return {
    book,
    dispatcher,
    evaluateNow: async () => {
      while (running !== null) await running;
      await cycle(true);
    },
    async stop() {
      clearInterval(timer);
      stopResend();
      targetDown?.stop();
      while (running !== null) await running;
      dispatcher.stop();
      stopping.abort();
    },
  };
}
