// Version 7 → 8: a sample's identity becomes (session, seq), as the API
// promises, instead of (t, session, seq): the blocks get an index by session
// and seq range, so the writer finds a re-sent seq in whatever bucket its
// first copy went (block-writer.ts). Samples a version 7 writer stored twice
// (one seq at two times) stay as they were stored and counted: the rollups
// hold both, and removing one would set raw samples and rollups apart.
import { RAW_BLOCKS_SEQ_INDEX_DDL } from "../schema.js";
import { setVersion, type SqliteStep } from "./step.js";

export const v7ToV8: SqliteStep = {
  from: 7,
  to: 8,
  run(db, u) {
    const { n } = db.prepare("SELECT count(*) AS n FROM raw_blocks").get() as { n: number };
    u.log(`upgrading database schema 7 → 8: indexing ${n} raw blocks by session and seq`);
    db.transaction(() => {
      db.exec(RAW_BLOCKS_SEQ_INDEX_DDL);
      setVersion(db, 8);
    })();
    u.log("upgraded database schema 7 → 8");
  },
};
