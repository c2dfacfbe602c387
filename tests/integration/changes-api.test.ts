// GET /api/changes on both stores over six days of synthetic 1 Hz latencies
// with planted shifts (testkit/synthetic-month.ts), written straight into the
// rollups (testkit/rollup-month.ts: weeks at 1 Hz are too many samples to
// post; the finder reads rollups only): the planted shifts found in time and
// told their part, the same answer as the finder over the same cells in
// memory, the filters, bad input, and the same changes when the days arrive
// a part at a time or a backlog lands in hours already read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/app.js";
import { FineCache } from "../../server/changes/fine-cache.js";
import { HourCache } from "../../server/changes/hour-cache.js";
import { RollupCells } from "../../server/changes/rollup-cells.js";
import { Pace } from "../../server/store/pace.js";
import { openPostgresStore } from "../../server/store/postgres/store.js";
import { openStore } from "../../server/store/sqlite/store.js";
import type { Change, ChangesResponse } from "../../shared/contract/index.js";
import { runDetection } from "../../testkit/detection-run.js";
import { expectedChanges, plantShifts, scoreChanges } from "../../testkit/planted-shifts.js";
import { publicIdOf } from "../../testkit/public-id.js";
import { writeRollupMonth } from "../../testkit/rollup-month.js";
import type { MonthPlan } from "../../testkit/synthetic-month.js";
import { startInProcess } from "../helpers/in-process.js";
import { freshDb, STORE_KINDS, type StoreKind } from "../helpers/store-kinds.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const DAYS = 6;
const END_MS = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOUR_MS;
const START_MS = END_MS - DAYS * DAY_MS;
const targets = [{ name: "B", pathMs: 18, serverMs: 0.15 }];
const CLIENT_KEYS = ["synthetic-client-aa", "synthetic-client-bb"];
const plan: MonthPlan = {
  startMs: START_MS,
  days: DAYS,
  seed: 40,
  clients: 2,
  targets,
  methods: ["xhr", "ws", "ping"],
  shifts: plantShifts({ seed: 40, startMs: START_MS, days: DAYS, targets, clients: 2, perWeek: 10 }),
};
type Server = Awaited<ReturnType<typeof startInProcess>>;

/** A database of the kind with the plan's clients known (one posted sample each, now) and the plan's rollups in `window`. */
async function seeded(kind: StoreKind, name: string, window?: { fromMs: number; toMs: number }): Promise<string> {
  const db = await freshDb(kind, name);
  if (kind === "sqlite") {
    const store = openStore(db, { rawDays: 36_500, rollupDays: 36_500 });
    try {
      await writeRollupMonth({ kind, store }, plan, CLIENT_KEYS, window);
    } finally {
      await store.close();
    }
  } else {
    await (await openPostgresStore(db, { rawDays: 36_500, rollupDays: 36_500 })).close();
    await writeRollupMonth({ kind, url: db }, plan, CLIENT_KEYS, window);
  }
  return db;
}

async function serve(db: string): Promise<Server> {
  const server = await startInProcess([
    "--db",
    db,
    "--raw-days",
    "36500",
    "--rollup-days",
    "36500",
    "--no-rate-limit",
    "--peer",
    "B=http://127.0.0.1:9",
  ]);
  // Sessions name the clients (public ids are given for clients that have reported).
  for (const [i, clientId] of CLIENT_KEYS.entries()) {
    const res = await fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        clientId,
        sessionId: `${clientId}-s`,
        label: `client-${i}`,
        samples: [{ seq: 0, t: Date.now() - 1000, method: "ping", target: "B", outcome: "ok", ms: 18 }],
      }),
    });
    expect(res.status, await res.text()).toBe(200);
  }
  return server;
}

async function changes(server: RunningServer, query: string, status = 200): Promise<ChangesResponse> {
  const res = await fetch(`${server.url}/api/changes?${query}`);
  const body = (await res.json()) as ChangesResponse;
  expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(status);
  return body;
}

const range = (from = START_MS, to = END_MS) => `from=${from}&to=${to}`;
/** What two answers must agree on (evidence words name clients differently). */
const essence = (c: Pick<Change, "method" | "target" | "client" | "t" | "earliestT" | "statistic" | "verdict">) =>
  `${c.method} ${c.target} ${c.client ?? "all"} ${c.t} ${c.earliestT} ${c.statistic} ${c.verdict}`;

describe.each(STORE_KINDS)("GET /api/changes (%s)", (kind) => {
  let server: Server;
  let all: Change[];
  let clientIndex: (publicId: string | null) => number | null;
  beforeAll(async () => {
    server = await serve(await seeded(kind, "changes_month"));
    const ids = CLIENT_KEYS.map((k) => publicIdOf(server.store, k));
    clientIndex = (id) => (id === null ? null : ids.indexOf(id));
    all = (await changes(server, range())).changes;
  }, 300_000);
  afterAll(async () => {
    await server?.close();
  });

  it("finds the planted shifts within 30 minutes, nothing else, each told the part that moved", () => {
    expect(all.map((c) => c.t)).toEqual([...all.map((c) => c.t)].sort((a, b) => a - b));
    const reported = all.map((c) => ({ ...c, client: clientIndex(c.client) }));
    const expected = expectedChanges(plan);
    const score = scoreChanges(plan, reported, expected);
    expect(expected.length).toBeGreaterThan(20);
    expect(score.missed).toEqual([]);
    expect(score.unexplained).toEqual([]);
    const told = (kind: string, method: string) =>
      all.filter(
        (c) => c.method === method && plan.shifts.some((s) => s.kind === kind && Math.abs(s.atMs - c.t) <= 30 * 60_000),
      );
    for (const [shift, verdict] of [
      ["network", "network"],
      ["server", "server"],
      ["http", "http"],
    ] as const) {
      expect(told(shift, "xhr").length).toBeGreaterThan(0);
      expect(told(shift, "xhr").every((c) => c.verdict === verdict)).toBe(true);
    }
    const network = told("network", "xhr")[0]!;
    expect(network.evidence).toMatch(/^XHR B .* ping B rose by .*: the network path$/);
    expect(network.parts.map((p) => p.method)).toEqual(expect.arrayContaining(["ping", "server", "ws"]));
  });

  it("answers what the finder finds over the same cells in memory", async () => {
    const memory = await runDetection(plan);
    const server = all.map((c) => essence({ ...c, client: String(clientIndex(c.client)) }));
    const inMemory = memory.reported.map((c) =>
      essence({
        ...c,
        client: String(c.client),
        statistic: c.statistic as Change["statistic"],
        verdict: c.verdict as Change["verdict"],
      }),
    );
    // The server orders by time; the run by series.
    expect(server.sort()).toEqual(inMemory.sort());
  }, 120_000);

  it("filters by method, target and client", async () => {
    const xhr = (await changes(server, `${range()}&method=xhr&target=B`)).changes;
    expect(xhr.map(essence)).toEqual(all.filter((c) => c.method === "xhr").map(essence));
    expect((await changes(server, `${range()}&target=A`)).changes).toEqual([]);
    const browser = plan.shifts.find((s) => s.kind === "browser")!;
    const own = publicIdOf(server.store, CLIENT_KEYS[browser.client!]!);
    const mine = (await changes(server, `${range()}&client=${own}`)).changes;
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((c) => c.client === own)).toBe(true);
    expect(mine.some((c) => c.method === "ws" && Math.abs(c.t - browser.atMs) <= 30 * 60_000)).toBe(true);
    expect((await changes(server, `${range()}&client=AAAAAAAAAAAAAAAAAAAA`)).changes).toEqual([]);
    const day = (await changes(server, range(START_MS + 2 * DAY_MS, START_MS + 3 * DAY_MS))).changes;
    expect(day.map(essence)).toEqual(
      all.filter((c) => c.t >= START_MS + 2 * DAY_MS && c.t <= START_MS + 3 * DAY_MS).map(essence),
    );
  });

  it("refuses bad input with 400 and a code", async () => {
    for (const q of [
      "",
      `from=${START_MS}`,
      `to=${END_MS}`,
      `from=${END_MS}&to=${START_MS}`,
      `from=x&to=${END_MS}`,
      `from=0&to=${401 * DAY_MS}`,
      `${range()}&method=carrier-pigeon`,
      `${range()}&target=B;drop`,
      `${range()}&client=not a token`,
      `${range()}&bucketMs=300000`,
    ]) {
      const res = await fetch(`${server.url}/api/changes?${q}`);
      expect(res.status, q).toBe(400);
      expect(await res.json()).toMatchObject({ code: "INVALID_QUERY", error: expect.any(String) });
    }
  });
});

describe.each(STORE_KINDS)("changes as the days arrive (%s)", (kind) => {
  it("keeps every change it reported, at the same time, as more days are written", async () => {
    const cut = START_MS + 3 * DAY_MS;
    const db = await seeded(kind, "changes_parts", { fromMs: START_MS, toMs: cut });
    const server = await serve(db);
    try {
      const first = (await changes(server, range())).changes;
      expect(first.length).toBeGreaterThan(3);
      // The rest of the days arrive (written beside the running server, as its ingest would).
      const rest = { fromMs: cut, toMs: Infinity };
      if (kind === "sqlite") {
        const store = openStore(db, { rawDays: 36_500, rollupDays: 36_500 });
        await writeRollupMonth({ kind, store }, plan, CLIENT_KEYS, rest).finally(() => store.close());
      } else await writeRollupMonth({ kind, url: db }, plan, CLIENT_KEYS, rest);
      const later = (await changes(server, range())).changes;
      // Settled before the cut less a window and its reach: unchanged.
      const settled = (c: Change) => c.t < cut - 6 * HOUR_MS;
      expect(later.filter(settled).map(essence)).toEqual(first.filter(settled).map(essence));
      expect(later.length).toBeGreaterThan(first.length);
      // A fresh server (nothing cached) over the whole month answers the same.
      const cold = await serve(db);
      try {
        expect((await changes(cold, range())).changes.map(essence)).toEqual(later.map(essence));
      } finally {
        await cold.close();
      }
    } finally {
      await server.close();
    }
  }, 300_000);
});

describe.each(STORE_KINDS)("hour cells kept between requests (%s)", (kind) => {
  it("are read again when a backlog lands in hours already read", async () => {
    const db = await seeded(kind, "changes_backlog", { fromMs: START_MS, toMs: START_MS + 2 * DAY_MS });
    const server = await serve(db);
    try {
      const cache = new HourCache();
      const ctx = { pool: server.store.readPool, rawKeptFromMs: () => server.store.rawKeptFromMs() };
      const series = (
        await server.store.readPool.all<{ id: number; method: string }>("SELECT id, method FROM series", [])
      )
        .filter((s) => s.method === "xhr")
        .map((s) => Number(s.id));
      const read = async () => {
        const cells = new RollupCells(ctx, cache, new FineCache(), new Pace());
        await cells.prepare(series, null, START_MS);
        const hours = await cells.hours({ series: series[0]!, client: null }, START_MS, START_MS + 2 * DAY_MS);
        return hours.cells.reduce((n, c) => n + c.count, 0);
      };
      const before = await read();
      expect(before).toBeGreaterThan(2 * 3600 * 30);
      expect(await read()).toBe(before);
      // A third client's day-old backlog: two hours of its samples land in hours already read.
      const late = { ...plan, clients: 1, shifts: [] };
      const window = { fromMs: START_MS + DAY_MS, toMs: START_MS + DAY_MS + 2 * HOUR_MS };
      let added: number;
      if (kind === "sqlite") {
        const store = openStore(db, { rawDays: 36_500, rollupDays: 36_500 });
        added = await writeRollupMonth({ kind, store }, late, ["synthetic-client-cc"], window).finally(() =>
          store.close(),
        );
      } else added = await writeRollupMonth({ kind, url: db }, late, ["synthetic-client-cc"], window);
      const xhrAdded = added / late.methods.length;
      expect(await read()).toBe(before + xhrAdded);
    } finally {
      await server.close();
    }
  }, 300_000);
});
