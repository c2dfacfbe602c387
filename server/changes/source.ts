// The changes as the alerts see them (INTERFACES.md: owner `changes`,
// consumer `alerts`): the items of GET /api/changes, clients by public id,
// for TailRegression to fire once per change.
import type { Change } from "../../shared/contract/index.js";
import type { ClientDirectory } from "../privacy/public-ids.js";
import type { StoreWithQueries } from "../query/with-queries.js";
import type { FoundChange } from "./find-changes.js";

export interface ChangeSource {
  /** Changes with t in [fromMs, toMs] (epoch ms), ordered by time. */
  changes(fromMs: number, toMs: number): Promise<Change[]>;
}

/** A change's id: its series, client and time, which stay while the change stands. */
export const changeId = (c: { method: string; target: string; client: string | null; t: number }): string =>
  `${c.method}@${c.target}/${c.client ?? "all"}/${c.t}`;

/** A found change as it leaves the server: the clientId (a browser's secret) replaced by its public id. */
export function publicChange(c: FoundChange, clients: ClientDirectory): Change {
  const { clientId, ...rest } = c;
  const client = clientId === null ? null : clients.publicId(clientId);
  return { id: changeId({ ...rest, client }), ...rest, client };
}

export function createChangeSource(store: StoreWithQueries, clients: ClientDirectory): ChangeSource {
  return {
    async changes(fromMs, toMs) {
      const found = await store.changes({ fromMs, toMs, nameOf: (id) => clients.publicId(id) });
      return found.map((c) => publicChange(c, clients));
    },
  };
}
