// The composition the server runs on: a store (server/store/, either engine)
// with the query layer built over its read port. The store never imports the
// queries; whoever opens one for a server, a test or a benchmark adds them here.
import type { Store } from "../store/store.js";
import { type AnswerFrom, openQueries, type Queries } from "./queries.js";

/** A store and the queries over it, one object: what the routes take. */
export type StoreWithQueries<S extends Store = Store> = S & Queries;

export interface WithQueriesOptions {
  /** Force one query path (tests, benchmarks); default "auto". */
  answerFrom?: AnswerFrom;
}

export function withQueries<S extends Store>(store: S, opts: WithQueriesOptions = {}): StoreWithQueries<S> {
  return { ...store, ...openQueries(store, opts.answerFrom) };
}
