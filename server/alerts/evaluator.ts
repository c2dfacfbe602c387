// Evaluates rules on the 5-minute rollups: for each rule, each series it
// selects (method × target, and client when asked) gets its window's cells
// merged, judged (judge.ts) and stepped (rule-state.ts); firing and resolved
// transitions go to the alert book.
import { bucketStartMs } from "../store/rollup-class.js";
import {
  emptyWindowCell,
  SAMPLE_MODES,
  type BucketRow,
  type BucketRows,
  type WindowCell,
} from "../query/alert-window.js";
import { mergeInto } from "../../shared/rollup.js";
import { Pace } from "../store/pace.js";
import { fingerprint, type Alert, type Labels } from "./alert.js";
import type { FireRequest } from "./book.js";
import { judge, type RuleJudgement } from "./judge.js";
import { initialState, step, type InstanceState } from "./rule-state.js";
import { WINDOW_STEP_MS, type AlertRule } from "./rule.js";
import { ruleAnnotations } from "./rule-text.js";

/**
 * Alert work runs in slices this long (ms) between turns of the event loop:
 * shorter than a query's 4 ms, since it runs on its own every cycle and an
 * echo that arrives during a slice waits for its end.
 */
export const ALERT_SLICE_MS = 1;

/** The methods a rule judges when it names none: what a browser probes a server with. */
export const DEFAULT_METHODS = ["xhr", "jsonp", "ws"] as const;

/** What the evaluator needs of the alert book. */
export interface AlertSink {
  fire(req: FireRequest): Promise<void>;
  resolve(labels: Labels, endsAtMs?: number): Promise<void>;
  isFiring(fingerprint: string): boolean;
}

export interface EvaluatorOptions {
  rules: readonly AlertRule[];
  /** The rollup rows of the buckets overlapping [fromMs, toMs] (bucket-cache.ts). */
  read: (fromMs: number, toMs: number) => Promise<BucketRows>;
  /** A stored clientId's public id (privacy/public-ids.ts): alerts never carry the secret. */
  publicId: (clientKey: string) => string;
  sink: AlertSink;
  nowMs: () => number;
  /** The histogram page at the alert's series and window, or "". */
  link: (labels: Labels, fromMs: number, toMs: number) => string;
}

interface Instance {
  labels: Labels;
  state: InstanceState;
}

/** One series of a rule in one window, its cell merged over the window's buckets. */
interface Found {
  method: string;
  target: string;
  client: string | null;
  cell: WindowCell;
}

export class RuleEvaluator {
  /** Per rule, its series' states by fingerprint. */
  private readonly instances = new Map<AlertRule, Map<string, Instance>>();
  /** Per rule, its series' fingerprints by merge key (hashed once, not every cycle). */
  private readonly fingerprints = new Map<AlertRule, Map<string, string>>();
  /** Merged windows by (first bucket, buckets, population, client split), with the bucket arrays they came from. */
  private readonly windows = new Map<string, { parts: (BucketRow[] | undefined)[]; merged: Map<string, Found> }>();
  /** Window keys merged or reused this cycle: the others are dropped at its end. */
  private readonly used = new Set<string>();
  /** Each bucket array's rows merged over clients. */
  private readonly aggregates = new WeakMap<BucketRow[], BucketRow[]>();

  constructor(private readonly o: EvaluatorOptions) {}

  /** Alerts a previous life left firing: their rule takes them up as firing, so a good evaluation resolves them. */
  adopt(firing: readonly { fingerprint: string; alert: Alert }[]): void {
    for (const { fingerprint: fp, alert } of firing) {
      const rule = this.o.rules.find((r) => r.name === alert.labels.alertname);
      if (rule === undefined) continue;
      const state: InstanceState = { ...initialState(), phase: "firing", bad: true, firingSinceMs: alert.startsAtMs };
      this.statesOf(rule).set(fp, { labels: alert.labels, state });
    }
  }

  /** Evaluates the given rules once, at nowMs. */
  async evaluate(rules: readonly AlertRule[]): Promise<void> {
    const nowMs = this.o.nowMs();
    // Work in short slices: a cycle over many clients must not hold up an echo.
    const pace = new Pace(ALERT_SLICE_MS);
    // Each distinct range is read once per cycle, however many rules share it: the
    // current one covers the longest window, each baseline offset has its own.
    const longest = Math.max(...rules.map((r) => r.windowMs));
    const ranges = new Map<number, Promise<BucketRows>>();
    const rowsAt = (offsetMs: number) => {
      let p = ranges.get(offsetMs);
      if (p === undefined) ranges.set(offsetMs, (p = this.o.read(nowMs - offsetMs - longest, nowMs - offsetMs)));
      return p;
    };
    // Rules sharing a window, population and client split share one merge.
    const merges = new Map<string, Map<string, Found>>();
    const window = async (rule: AlertRule, offsetMs: number) => {
      const mode = SAMPLE_MODES.indexOf(rule.samples);
      const perClient = rule.series.client !== "all";
      const key = `${offsetMs} ${rule.windowMs} ${mode} ${perClient}`;
      let m = merges.get(key);
      if (m === undefined) {
        const toMs = nowMs - offsetMs;
        merges.set(
          key,
          (m = await this.merged(await rowsAt(offsetMs), toMs - rule.windowMs, toMs, mode, perClient, pace)),
        );
      }
      return this.series(rule, m);
    };
    for (const rule of rules) {
      const fromMs = nowMs - rule.windowMs;
      const current = await window(rule, 0);
      const earlier = rule.threshold.relative
        ? await window(rule, rule.threshold.baselineMs)
        : new Map<string, Found>();
      const states = this.statesOf(rule);
      const keys = new Map<string, Labels>();
      for (const [fp, f] of current) keys.set(fp, this.labelsOf(rule, f));
      for (const [fp, inst] of states) if (!keys.has(fp)) keys.set(fp, inst.labels);
      for (const [fp, labels] of keys) {
        await pace.maybeYield();
        const inst = states.get(fp) ?? { labels, state: initialState() };
        const j = judge(rule, current.get(fp)?.cell, earlier.get(fp)?.cell);
        const { state, transition } = step(rule, inst.state, j, nowMs);
        if (state.phase === "inactive" && state.history.every((b) => !b)) states.delete(fp);
        else states.set(fp, { labels, state });
        const link = this.o.link(labels, bucketStartMs(0, fromMs), nowMs);
        if (transition === "firing" || (state.phase === "firing" && !this.o.sink.isFiring(fp)))
          await this.o.sink.fire({
            labels,
            annotations: ruleAnnotations(rule, labels, j, state),
            startsAtMs: state.firingSinceMs ?? nowMs,
            generatorUrl: link,
          });
        else if (transition === "resolved") await this.o.sink.resolve(labels, nowMs);
      }
    }
    for (const key of this.windows.keys()) if (!this.used.has(key)) this.windows.delete(key);
    this.used.clear();
  }

  private statesOf(rule: AlertRule): Map<string, Instance> {
    let states = this.instances.get(rule);
    if (states === undefined) this.instances.set(rule, (states = new Map()));
    return states;
  }

  /**
   * Every series' cells merged over [fromMs, toMs] in one population, by
   * "method\0target\0client" (client "" when merged over all clients). A
   * window made of the very bucket arrays it was last merged from (settled
   * buckets come from the cache as the same arrays) is not merged again: a
   * day-old baseline is merged once per bucket boundary, not every cycle.
   */
  private async merged(
    rows: BucketRows,
    fromMs: number,
    toMs: number,
    mode: number,
    perClient: boolean,
    pace: Pace,
  ): Promise<Map<string, Found>> {
    const first = bucketStartMs(0, fromMs);
    const parts: (BucketRow[] | undefined)[] = [];
    for (let start = first; start <= toMs; start += WINDOW_STEP_MS) {
      const r = rows.get(start);
      parts.push(r === undefined || perClient ? r : this.overClients(r));
    }
    const key = `${first} ${parts.length} ${mode} ${perClient}`;
    this.used.add(key);
    const memo = this.windows.get(key);
    if (memo?.parts.every((p, i) => p === parts[i])) return memo.merged;
    const byKey = new Map<string, Found>();
    for (const part of parts)
      for (const r of part ?? []) {
        await pace.maybeYield();
        const who = perClient ? this.o.publicId(r.clientKey) : null;
        const k = `${r.method}\u0000${r.target}\u0000${who ?? ""}`;
        let found = byKey.get(k);
        if (found === undefined)
          byKey.set(k, (found = { method: r.method, target: r.target, client: who, cell: emptyWindowCell() }));
        const c = r.cells[mode]!;
        found.cell.failures += c.failures;
        found.cell.skipped += c.skipped;
        mergeInto(found.cell.lat, c.lat);
      }
    this.windows.set(key, { parts, merged: byKey });
    return byKey;
  }

  /** A bucket's rows merged over clients (clientKey ""), once per bucket array. */
  private overClients(rows: BucketRow[]): BucketRow[] {
    const memo = this.aggregates.get(rows);
    if (memo !== undefined) return memo;
    const bySeries = new Map<string, BucketRow>();
    for (const r of rows) {
      const k = `${r.method}\u0000${r.target}`;
      let a = bySeries.get(k);
      if (a === undefined)
        bySeries.set(
          k,
          (a = {
            method: r.method,
            target: r.target,
            clientKey: "",
            cells: [emptyWindowCell(), emptyWindowCell(), emptyWindowCell()],
          }),
        );
      for (let m = 0; m < a.cells.length; m++) {
        a.cells[m]!.failures += r.cells[m]!.failures;
        a.cells[m]!.skipped += r.cells[m]!.skipped;
        mergeInto(a.cells[m]!.lat, r.cells[m]!.lat);
      }
    }
    const out = [...bySeries.values()];
    this.aggregates.set(rows, out);
    return out;
  }

  /** The rule's series (by their alert's fingerprint) among the merged ones. */
  private series(rule: AlertRule, merged: Map<string, Found>): Map<string, Found> {
    const methods: readonly string[] = rule.series.methods ?? DEFAULT_METHODS;
    const targets = rule.series.targets;
    const client = rule.series.client;
    let fps = this.fingerprints.get(rule);
    if (fps === undefined) this.fingerprints.set(rule, (fps = new Map()));
    const out = new Map<string, Found>();
    for (const [key, f] of merged) {
      if (!methods.includes(f.method)) continue;
      if (targets !== null && !targets.includes(f.target)) continue;
      if (client !== "all" && client !== "each" && f.client !== client) continue;
      let fp = fps.get(key);
      if (fp === undefined) fps.set(key, (fp = fingerprint(this.labelsOf(rule, f))));
      out.set(fp, f);
    }
    return out;
  }

  private labelsOf(rule: AlertRule, f: { method: string; target: string; client: string | null }): Labels {
    return {
      ...rule.labels,
      alertname: rule.name,
      target: f.target,
      method: f.method,
      ...(f.client !== null ? { client: f.client } : {}),
    };
  }
}

export type { RuleJudgement };
