// Small-integer codes for series, reasons, clients and stress-test runs on
// SQLite, cached: a row is added on first use, on the writer's connection
// (one writer: no race).
import type Database from "better-sqlite3";
import type { CodeLookup } from "../logical-row.js";

/** Small-integer codes for series, reasons and clients, cached; a row is added on first use. */
export class Codes implements CodeLookup {
  private series = new Map<string, number>();
  private reasons = new Map<string, number>();
  private clients = new Map<string, number>();
  /** Runs seen since the last reload; the table is not read whole (a year of hourly tests from many clients). */
  private runs = new Map<string, number>();
  private readonly addSeries: Database.Statement;
  private readonly addReason: Database.Statement;
  private readonly addClient: Database.Statement;
  /** Prepared at the first run: an upgrade from an old version uses Codes before stress_runs exists. */
  private runStatements: { add: Database.Statement; find: Database.Statement<[string], { id: number }> } | null = null;

  constructor(private readonly db: Database.Database) {
    this.addSeries = db.prepare("INSERT INTO series (method, target) VALUES (?, ?)");
    this.addReason = db.prepare("INSERT INTO reasons (text) VALUES (?)");
    this.addClient = db.prepare("INSERT INTO clients (client_key) VALUES (?)");
    this.reload();
  }

  /** After a rolled-back transaction, codes it added are gone again. */
  reload(): void {
    const rows = <T>(sql: string) => this.db.prepare(sql).all() as T[];
    this.series = new Map(
      rows<{ id: number; method: string; target: string }>("SELECT id, method, target FROM series").map((r) => [
        `${r.method} ${r.target}`,
        r.id,
      ]),
    );
    this.reasons = new Map(
      rows<{ id: number; text: string }>("SELECT id, text FROM reasons").map((r) => [r.text, r.id]),
    );
    this.clients = new Map(
      rows<{ id: number; client_key: string }>("SELECT id, client_key FROM clients").map((r) => [r.client_key, r.id]),
    );
    this.runs = new Map();
  }

  seriesOf(method: string, target: string): number {
    const key = `${method} ${target}`;
    let id = this.series.get(key);
    if (id === undefined) this.series.set(key, (id = Number(this.addSeries.run(method, target).lastInsertRowid)));
    return id;
  }

  reasonOf(text: string): number {
    let id = this.reasons.get(text);
    if (id === undefined) this.reasons.set(text, (id = Number(this.addReason.run(text).lastInsertRowid)));
    return id;
  }

  runOf(key: string): number {
    let id = this.runs.get(key);
    if (id === undefined) {
      const st = (this.runStatements ??= {
        add: this.db.prepare("INSERT INTO stress_runs (run_key) VALUES (?)"),
        find: this.db.prepare<[string], { id: number }>("SELECT id FROM stress_runs WHERE run_key = ?"),
      });
      id = st.find.get(key)?.id ?? Number(st.add.run(key).lastInsertRowid);
      this.runs.set(key, id);
    }
    return id;
  }

  clientOf(key: string): number {
    let id = this.clients.get(key);
    if (id === undefined) this.clients.set(key, (id = Number(this.addClient.run(key).lastInsertRowid)));
    return id;
  }
}
