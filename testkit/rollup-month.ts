// A month of synthetic latencies (synthetic-month.ts) written straight into a
// store's rollups, on either engine: weeks at 1 Hz are tens of millions of
// samples, too many to post through the ingest in a test, while the change
// finder reads nothing but rollups. The rollups are built by the ingest's own
// code (RollupBatch: every level, each client's class and the aggregate) and
// merged into the table by each engine's own rollup writer; clients and
// series get their codes the way ingest gives them. Raw samples are not
// written (the finder never reads them).
import postgres from "postgres";
import { packFlags } from "../server/store/flags.js";
import { PgCodes } from "../server/store/postgres/codes.js";
import { mergeRollups } from "../server/store/postgres/rollup-writer.js";
import { RollupBatch } from "../server/store/rollup-batch.js";
import { classOf } from "../server/store/rollup-class.js";
import { Codes } from "../server/store/sqlite/codes.js";
import { rollupWriter } from "../server/store/sqlite/rollup-writer.js";
import type { SqliteStore } from "../server/store/sqlite/store.js";
import { TCP_MIN_RTT_SERIES } from "../shared/contract/index.js";
import { monthInHours, type MonthPlan } from "./synthetic-month.js";

/** Rollups are written a quarter day at a time: closed buckets leave memory as the month is generated. */
const FLUSH_MS = 6 * 3_600_000;

/** Where to write: a SQLite store opened on the calling thread (openStore), or a PostgreSQL URL. */
export type RollupTarget = { kind: "sqlite"; store: SqliteStore } | { kind: "postgres"; url: string };

interface Codebook {
  series(method: string, target: string): Promise<number>;
  client(key: string): Promise<number>;
  write(batch: RollupBatch): Promise<void>;
  close(): Promise<void>;
}

function sqliteCodebook(store: SqliteStore): Codebook {
  const codes = new Codes(store.db);
  const write = rollupWriter(store.db);
  return {
    series: async (m, t) => codes.seriesOf(m, t),
    client: async (k) => codes.clientOf(k),
    write: async (batch) => store.db.transaction(() => write(batch))(),
    close: async () => {},
  };
}

function postgresCodebook(url: string): Codebook {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const codes = new PgCodes(sql);
  return {
    series: (m, t) => codes.seriesOf(m, t),
    client: (k) => codes.clientOf(k),
    write: async (batch) => {
      await sql.begin((tx) => mergeRollups(tx, batch));
    },
    close: () => sql.end(),
  };
}

/** The rollup class of the plan's samples: probes sent and answered visible, on time, no report in flight; baselines have none. */
const PROBE_CLASS = classOf(packFlags({ visibleAtSend: true, visibleAtReply: true, reportInFlight: false }), 1000);
const BASELINE_CLASS = classOf(0, null);
const PROBES = new Set(["xhr", "jsonp", "ws", "best2"]);

/**
 * Writes the plan's rollups; `clientKeys[i]` is the clientId of the plan's
 * client i. With `window`, only its samples ([fromMs, toMs)): the same month
 * written a part at a time, as it would arrive.
 */
export async function writeRollupMonth(
  target: RollupTarget,
  plan: MonthPlan,
  clientKeys: readonly string[],
  window: { fromMs: number; toMs: number } = { fromMs: -Infinity, toMs: Infinity },
): Promise<number> {
  const book = target.kind === "sqlite" ? sqliteCodebook(target.store) : postgresCodebook(target.url);
  try {
    const clients = await Promise.all(clientKeys.map((k) => book.client(k)));
    const series = new Map<string, number>();
    for (const t of plan.targets)
      for (const m of [...plan.methods, ...(plan.methods.includes("tcprtt") ? [TCP_MIN_RTT_SERIES] : [])])
        series.set(`${m}|${t.name}`, await book.series(m, t.name));
    const batch = new RollupBatch();
    let flushAt = plan.startMs + FLUSH_MS;
    let n = 0;
    for (const reached of monthInHours(plan, (client, method, targetName, t, us, serverUs, minrttUs) => {
      if (t < window.fromMs || t >= window.toMs) return;
      batch.add({
        t,
        series: series.get(`${method}|${targetName}`)!,
        client: clients[client]!,
        cls: PROBES.has(method) ? PROBE_CLASS : BASELINE_CLASS,
        outcome: 0,
        us,
        winner: null,
        otherUs: null,
        minrttSeries: minrttUs === null ? null : series.get(`${TCP_MIN_RTT_SERIES}|${targetName}`)!,
        minrttUs,
        serverUs,
      });
      n++;
    }))
      if (reached >= flushAt) {
        await book.write(batch.takeClosed(reached));
        flushAt += FLUSH_MS;
      }
    await book.write(batch);
    return n;
  } finally {
    await book.close();
  }
}
