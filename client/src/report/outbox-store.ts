// Where unacknowledged samples live: IndexedDB, so they survive a reload, a
// crashed tab or a closed browser; memory only when IndexedDB cannot be opened
// (some private modes, disabled storage), and then the page says so.
import type { Sample } from "../../../shared/contract/samples.js";

/** One sample waiting for its home server, with the session that measured it. */
export interface OutboxRow {
  sessionId: string;
  clientId: string;
  label?: string | undefined;
  sample: Sample;
}

export interface StoredRow {
  /** Insertion order: older rows have smaller keys. */
  key: number;
  row: OutboxRow;
}

export interface OutboxStore {
  readonly kind: "indexeddb" | "memory";
  /** Why IndexedDB is not used, when kind is memory. */
  readonly fallbackReason?: string;
  /** Stores rows in one transaction; resolves once it has committed. */
  put(rows: OutboxRow[]): Promise<void>;
  /** Distinct sessions that have rows waiting. */
  sessions(): Promise<string[]>;
  /**
   * One session's rows with seq above afterSeq, in seq order. Callers pass the
   * last seq they delivered: IndexedDB (LevelDB underneath) keeps deleted rows
   * as tombstones for a while, and a read that starts at the front of a queue
   * drained for hours wades through all of them.
   */
  take(sessionId: string, afterSeq: number, limit: number): Promise<StoredRow[]>;
  remove(keys: number[]): Promise<void>;
  /** Rows in the store, or of one session. */
  count(sessionId?: string): Promise<number>;
  /** Deletes the n oldest rows of any session; returns how many went. */
  dropOldest(n: number): Promise<number>;
}

const DB_NAME = "tailprobe-outbox";
/** An open that neither succeeds nor fails within this long (ms) counts as unavailable. */
const OPEN_TIMEOUT_MS = 5000;
const DB_VERSION = 1;
const STORE = "rows";
/** Index on [sessionId, seq]: a session's rows in the order they were measured. */
const BY_SESSION = "session_seq";
const sessionRange = (sessionId: string, afterSeq = Number.NEGATIVE_INFINITY) =>
  IDBKeyRange.bound([sessionId, afterSeq], [sessionId, Number.POSITIVE_INFINITY], true, true);

function promised<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error("IndexedDB request failed"));
  });
}

function committed(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = tx.onerror = () => reject(tx.error ?? new Error("IndexedDB transaction aborted"));
  });
}

class IdbStore implements OutboxStore {
  readonly kind = "indexeddb";

  constructor(private readonly db: IDBDatabase) {}

  async put(rows: OutboxRow[]): Promise<void> {
    const tx = this.db.transaction(STORE, "readwrite");
    const store = tx.objectStore(STORE);
    for (const r of rows) store.add(r);
    await committed(tx);
  }

  async sessions(): Promise<string[]> {
    const tx = this.db.transaction(STORE, "readonly");
    const index = tx.objectStore(STORE).index(BY_SESSION);
    const out: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = index.openKeyCursor();
      req.onerror = () => reject(req.error ?? new Error("IndexedDB cursor failed"));
      req.onsuccess = () => {
        const c = req.result;
        if (c === null) return resolve();
        const session = String((c.key as IDBValidKey[])[0]);
        out.push(session);
        // Seek past this session's rows: one step per session, not per row.
        c.continue([session, Number.POSITIVE_INFINITY]);
      };
    });
    return out;
  }

  async take(sessionId: string, afterSeq: number, limit: number): Promise<StoredRow[]> {
    const tx = this.db.transaction(STORE, "readonly");
    const index = tx.objectStore(STORE).index(BY_SESSION);
    const range = sessionRange(sessionId, afterSeq);
    const [keys, rows] = await Promise.all([
      promised(index.getAllKeys(range, limit)),
      promised(index.getAll(range, limit) as IDBRequest<OutboxRow[]>),
    ]);
    return rows.map((row, i) => ({ key: Number(keys[i]), row }));
  }

  async remove(keys: number[]): Promise<void> {
    if (keys.length === 0) return;
    const tx = this.db.transaction(STORE, "readwrite");
    const store = tx.objectStore(STORE);
    for (const k of keys) store.delete(k);
    await committed(tx);
  }

  count(sessionId?: string): Promise<number> {
    const store = this.db.transaction(STORE, "readonly").objectStore(STORE);
    return promised(sessionId === undefined ? store.count() : store.index(BY_SESSION).count(sessionRange(sessionId)));
  }

  async dropOldest(n: number): Promise<number> {
    if (n <= 0) return 0;
    const tx = this.db.transaction(STORE, "readwrite");
    const store = tx.objectStore(STORE);
    const keys = await promised(store.getAllKeys(null, n));
    const last = keys[keys.length - 1];
    if (last !== undefined) store.delete(IDBKeyRange.upperBound(last));
    await committed(tx);
    return keys.length;
  }
}

/** Same contract in memory: lost with the page, but probing goes on. */
export class MemoryStore implements OutboxStore {
  readonly kind = "memory";
  private readonly rows = new Map<number, OutboxRow>();
  private nextKey = 1;

  constructor(readonly fallbackReason?: string) {}

  put(rows: OutboxRow[]): Promise<void> {
    for (const r of rows) this.rows.set(this.nextKey++, r);
    return Promise.resolve();
  }

  sessions(): Promise<string[]> {
    return Promise.resolve([...new Set(Array.from(this.rows.values(), (r) => r.sessionId))]);
  }

  take(sessionId: string, afterSeq: number, limit: number): Promise<StoredRow[]> {
    const out: StoredRow[] = [];
    for (const [key, row] of this.rows) {
      if (out.length >= limit) break;
      if (row.sessionId === sessionId && row.sample.seq > afterSeq) out.push({ key, row });
    }
    return Promise.resolve(out);
  }

  remove(keys: number[]): Promise<void> {
    for (const k of keys) this.rows.delete(k);
    return Promise.resolve();
  }

  count(sessionId?: string): Promise<number> {
    if (sessionId === undefined) return Promise.resolve(this.rows.size);
    let n = 0;
    for (const r of this.rows.values()) if (r.sessionId === sessionId) n++;
    return Promise.resolve(n);
  }

  dropOldest(n: number): Promise<number> {
    let dropped = 0;
    for (const k of this.rows.keys()) {
      if (dropped >= n) break;
      this.rows.delete(k);
      dropped++;
    }
    return Promise.resolve(dropped);
  }
}

/** Opens the IndexedDB outbox, or falls back to memory and says why. */
export async function openOutboxStore(): Promise<OutboxStore> {
  try {
    if (typeof indexedDB === "undefined") return new MemoryStore("this browser has no IndexedDB");
    const req = indexedDB.open(DB_NAME, DB_VERSION);
    req.onupgradeneeded = () => {
      const store = req.result.createObjectStore(STORE, { autoIncrement: true });
      store.createIndex(BY_SESSION, ["sessionId", "sample.seq"]);
    };
    const db = await Promise.race([
      promised(req),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("opening took too long")), OPEN_TIMEOUT_MS)),
    ]);
    // Another tab opening a newer version must not be blocked by this one.
    db.onversionchange = () => db.close();
    return new IdbStore(db);
  } catch (err) {
    return new MemoryStore(`IndexedDB unavailable: ${(err as Error)?.message ?? String(err)}`);
  }
}
