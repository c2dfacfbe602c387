// One upgrade step of the PostgreSQL schema: from one version to the next,
// inside the upgrade's transaction (migrate.ts runs them in order).
import type postgres from "postgres";

export interface PgStep {
  /** The version it upgrades from; it leaves the database at `to`. */
  from: number;
  to: number;
  run(tx: postgres.TransactionSql, log: (line: string) => void): Promise<void>;
}
