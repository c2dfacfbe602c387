// The page's health notes: nothing while every server answers; a failure and
// what follows it for NOTE_ACTIVE_MS go home at the next housekeeping slot,
// in messages the server's schema accepts and its 4 KiB limit allows.
import { describe, expect, it } from "vitest";
import type { Clock } from "../../client/src/common/clock.js";
import { HealthNotes, NOTE_ACTIVE_MS } from "../../client/src/report/health-notes.js";
import { clientWsMessageSchema, HEALTH_NOTE_SAMPLES_MAX, parseWith, type Sample } from "../../shared/contract/index.js";
import { WS_PAYLOAD_BYTES_MAX } from "../../server/echo/ws-echo.js";

function clock(): Clock & { advance(ms: number): void } {
  let mono = 0;
  return {
    nowMs: () => 1_764_547_200_000 + mono,
    monoMs: () => mono,
    random: () => 0.5,
    advance(ms) {
      mono += ms;
    },
  };
}

let seq = 0;
const probe = (target: string, outcome: Sample["outcome"], extra: Partial<Sample> = {}): Sample => ({
  seq: seq++,
  t: 1_764_547_200_000 + seq,
  method: "xhr",
  target,
  ms: outcome === "ok" ? 1.2 : outcome === "timeout" ? 5000 : null,
  outcome,
  ...(outcome === "error" ? { reason: "network" as const } : {}),
  ...extra,
});

function notes() {
  const sent: string[] = [];
  let open = true;
  const c = clock();
  const n = new HealthNotes((text) => {
    if (!open) return false;
    sent.push(text);
    return true;
  }, c);
  const samples = () =>
    sent.flatMap((text) => {
      const m = parseWith(clientWsMessageSchema, JSON.parse(text));
      if (!m.ok || m.value.type !== "health") throw new Error(`not a health note: ${text}`);
      return m.value.samples;
    });
  return { n, sent, samples, c, close: () => (open = false) };
}

describe("health notes", () => {
  it("sends nothing while every probe answers", () => {
    const { n, sent } = notes();
    for (let i = 0; i < 100; i++) n.record(probe("B", "ok"));
    n.flush();
    expect(sent).toEqual([]);
  });

  it("sends a failure at the next flush, then that server's probes for NOTE_ACTIVE_MS, then nothing", () => {
    const { n, samples, c } = notes();
    n.record(probe("A", "ok"));
    const failure = probe("B", "error");
    n.record(failure);
    n.record(probe("A", "ok"));
    n.flush();
    expect(samples().map((s) => [s.seq, s.target, s.outcome, s.reason])).toEqual([
      [failure.seq, "B", "error", "network"],
    ]);
    c.advance(NOTE_ACTIVE_MS - 1);
    const recovered = probe("B", "ok");
    n.record(recovered);
    n.flush();
    expect(samples().at(-1)?.seq).toBe(recovered.seq);
    c.advance(2);
    n.record(probe("B", "ok"));
    n.flush();
    expect(samples()).toHaveLength(2);
  });

  it("marks hidden and frozen probes, and leaves out best-of-two, skipped ticks and baselines", () => {
    const { n, samples } = notes();
    n.record(probe("B", "timeout", { visibleAtSend: false, hiddenMs: 70_000, froze: true, lateMs: 3 }));
    n.record(probe("A+B", "error", { method: "best2" }));
    n.record({ ...probe("B", "skipped"), ms: null, reason: "frozen" });
    n.record(probe("B", "error", { method: "ping" }));
    n.flush();
    expect(samples()).toEqual([expect.objectContaining({ outcome: "timeout", hidden: true, froze: true, lateMs: 3 })]);
  });

  it("splits a burst into messages within the socket's limit, every one accepted by the server's schema", () => {
    const { n, sent, samples } = notes();
    const burst = Array.from({ length: 3 * HEALTH_NOTE_SAMPLES_MAX + 5 }, () =>
      probe("a-server-name-of-32-characters-x", "error", {
        method: "jsonp",
        reason: "ws-connect-timeout",
        lateMs: 123.456,
        serverMs: 12.345,
        visibleAtReply: false,
        froze: true,
        seq: Number.MAX_SAFE_INTEGER - seq++,
      }),
    );
    for (const s of burst) n.record(s);
    n.flush();
    expect(sent.length).toBe(4);
    for (const text of sent) expect(Buffer.byteLength(text)).toBeLessThanOrEqual(WS_PAYLOAD_BYTES_MAX);
    expect(samples().map((s) => s.seq)).toEqual(burst.map((s) => s.seq));
  });

  it("counts what it could not send when the home socket is closed, and goes on", () => {
    const { n, close } = notes();
    close();
    n.record(probe("B", "error"));
    n.record(probe("B", "error"));
    expect(() => n.flush()).not.toThrow();
    expect(n.counters).toEqual({ notes: 0, samples: 0, unsent: 2 });
  });
});
