// What reaches the health monitor, through the real boundaries: a page's
// health note over /ws (only after hello; a malformed one closes the socket
// as any bad message does), and a stored report (the digest the ingest reader
// builds). A note and the report carrying the same samples count once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { HEALTH_NOTE_SAMPLES_MAX } from "../../shared/contract/index.js";
import { WS_CLOSE_BAD_MESSAGE } from "../../server/echo/ws-echo.js";
import { startInProcess } from "../helpers/in-process.js";

const CLIENT = "health_inputs_client";
const SESSION = "health_inputs_session";

describe("health monitor inputs", () => {
  let server: Awaited<ReturnType<typeof startInProcess>>;
  beforeAll(async () => {
    server = await startInProcess(["--name", "A", "--peer", "B=http://127.0.0.1:9"]);
  });
  afterAll(async () => {
    await server?.close();
  });

  const failures = (fromSeq: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      seq: fromSeq + i,
      t: Date.now() - 500 + i,
      method: "xhr" as const,
      target: "B",
      outcome: "error" as const,
      ms: null,
      reason: "network" as const,
    }));

  async function socket(): Promise<{ ws: WebSocket; closed: Promise<number> }> {
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws`, { perMessageDeflate: false });
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    return { ws, closed };
  }

  const noted = () => server.health.failureLags().note.length;
  const reported = () => server.health.failureLags().report.length;
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  };

  it("takes a note only after hello, and closes the socket on a malformed one", async () => {
    const { ws, closed } = await socket();
    ws.send(JSON.stringify({ type: "health", samples: failures(0, 3) }));
    await new Promise((r) => setTimeout(r, 300));
    expect(noted()).toBe(0);
    ws.send(JSON.stringify({ type: "hello", clientId: CLIENT, sessionId: SESSION }));
    ws.send(JSON.stringify({ type: "health", samples: failures(3, 3) }));
    await until(() => noted() === 3);
    expect(noted()).toBe(3);
    // One sample too many: a protocol error like any other.
    ws.send(JSON.stringify({ type: "health", samples: failures(100, HEALTH_NOTE_SAMPLES_MAX + 1) }));
    expect(await closed).toBe(WS_CLOSE_BAD_MESSAGE);
    expect(noted()).toBe(3);
  });

  it("takes a stored report's probes, and the ones a note brought already count once", async () => {
    const body = {
      clientId: CLIENT,
      sessionId: SESSION,
      samples: [...failures(3, 3), ...failures(6, 2)].map((s) => ({ ...s, scheduledT: s.t })),
    };
    const res = await fetch(`${server.url}/api/samples`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    await until(() => reported() === 2);
    expect(reported()).toBe(2);
    expect(noted()).toBe(3);
  });
});
