// Small-integer codes for series, reasons and clients on PostgreSQL, shared
// by every server on the database: a missing code is added (ON CONFLICT DO
// NOTHING, another server may add it at the same moment) and read back, in
// its own committed statement, and cached; codes are never renumbered.
import type postgres from "postgres";
import { TCP_MIN_RTT_SERIES } from "../../../shared/contract/index.js";

/** Run codes kept at most: each batch asks for the few runs its samples name, so a cleared cache costs a query. */
const RUNS_CACHED_MAX = 1000;

export class PgCodes {
  private readonly series = new Map<string, number>();
  private readonly reasons = new Map<string, number>();
  private readonly clients = new Map<string, number>();
  /** Runs seen by this server; bounded: a run's samples come within minutes. */
  private readonly runs = new Map<string, number>();

  constructor(private readonly sql: postgres.Sql) {}

  /** Synchronous lookups for codes already prepared (../logical-row.ts rawValues); a missing one is a bug. */
  readonly sync = {
    seriesOf: (method: string, target: string): number => this.known(this.series, `${method} ${target}`),
    reasonOf: (text: string): number => this.known(this.reasons, text),
    clientOf: (key: string): number => this.known(this.clients, key),
    runOf: (key: string): number => this.known(this.runs, key),
  };

  private known(map: Map<string, number>, key: string): number {
    const id = map.get(key);
    if (id === undefined) throw new Error(`code for '${key}' was not prepared`);
    return id;
  }

  /** Makes the codes a sample needs known (a tcprtt sample also its min-RTT series, a stress test's its run). */
  async prepare(method: string, target: string, reason: string | undefined, run?: string): Promise<void> {
    await this.seriesOf(method, target);
    if (method === "tcprtt") await this.seriesOf(TCP_MIN_RTT_SERIES, target);
    if (reason !== undefined) await this.reasonOf(reason);
    if (run !== undefined) await this.runOf(run);
  }

  async runOf(key: string): Promise<number> {
    const cached = this.runs.get(key);
    if (cached !== undefined) return cached;
    await this.sql`INSERT INTO stress_runs (run_key) VALUES (${key}) ON CONFLICT DO NOTHING`;
    const [row] = await this.sql`SELECT id FROM stress_runs WHERE run_key = ${key}`;
    if (this.runs.size >= RUNS_CACHED_MAX) this.runs.clear();
    this.runs.set(key, Number(row!.id));
    return Number(row!.id);
  }

  async seriesOf(method: string, target: string): Promise<number> {
    const key = `${method} ${target}`;
    const cached = this.series.get(key);
    if (cached !== undefined) return cached;
    await this.sql`INSERT INTO series (method, target) VALUES (${method}, ${target}) ON CONFLICT DO NOTHING`;
    const [row] = await this.sql`SELECT id FROM series WHERE method = ${method} AND target = ${target}`;
    this.series.set(key, row!.id as number);
    return row!.id as number;
  }

  async reasonOf(text: string): Promise<number> {
    const cached = this.reasons.get(text);
    if (cached !== undefined) return cached;
    await this.sql`INSERT INTO reasons (text) VALUES (${text}) ON CONFLICT DO NOTHING`;
    const [row] = await this.sql`SELECT id FROM reasons WHERE text = ${text}`;
    this.reasons.set(text, row!.id as number);
    return row!.id as number;
  }

  async clientOf(key: string): Promise<number> {
    const cached = this.clients.get(key);
    if (cached !== undefined) return cached;
    await this.sql`INSERT INTO clients (client_key) VALUES (${key}) ON CONFLICT DO NOTHING`;
    const [row] = await this.sql`SELECT id FROM clients WHERE client_key = ${key}`;
    this.clients.set(key, row!.id as number);
    return row!.id as number;
  }

  /** After the admin API deleted a client, its cached codes are stale. */
  forgetClients(): void {
    this.clients.clear();
  }
}
