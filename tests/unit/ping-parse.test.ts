// ping output parsing and the one-result-per-request rule, on real captures
// from iputils 20221126 (tests/fixtures/baseline, see the README there).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { classifyPingFailure, parsePingLine, type PingLine } from "../../server/baseline/ping-parse.js";
import { PingSequence, type PingResult } from "../../server/baseline/ping-sequence.js";

const FIXTURES = path.resolve("tests/fixtures/baseline");

function lines(name: string): PingLine[] {
  return fs
    .readFileSync(path.join(FIXTURES, name), "utf8")
    .split("\n")
    .map((l) => {
      const r = parsePingLine(l);
      if (!r.ok) throw new Error(`${name}: ${r.error}`);
      return r.value;
    });
}

/** Replays a capture through a sequence, then lets every pending request time out. */
function replay(name: string, intervalMs = 1000, timeoutMs = 5000): { results: PingResult[]; seq: PingSequence } {
  const seq = new PingSequence(intervalMs, timeoutMs);
  const results: PingResult[] = [];
  let last = 0;
  for (const l of lines(name)) {
    const at = "atEpochMs" in l && l.atEpochMs !== undefined ? l.atEpochMs : last;
    last = at;
    results.push(...seq.onLine(l, at));
  }
  results.push(...seq.expire(last + 60_000));
  return { results, seq };
}

describe("parsePingLine", () => {
  it("reads replies from IPv4 loopback with the -D wall clock", () => {
    const replies = lines("ping-ipv4-loopback.txt").filter((l) => l.kind === "reply");
    expect(replies).toHaveLength(5);
    expect(replies[0]).toEqual({
      kind: "reply",
      atEpochMs: 1795440035807,
      from: "127.0.0.1",
      seq: 1,
      rttMs: 0.097,
      dup: false,
    });
    expect(replies.map((r) => (r.kind === "reply" ? r.seq : -1))).toEqual([1, 2, 3, 4, 5]);
  });

  it("reads replies from IPv6 loopback, whose address is full of colons", () => {
    const replies = lines("ping-ipv6-loopback.txt").filter((l) => l.kind === "reply");
    expect(replies).toHaveLength(5);
    expect(replies[1]).toMatchObject({ from: "::1", seq: 2, rttMs: 0.029 });
  });

  it("reads -O's 'no answer yet' lines", () => {
    const none = lines("ping-no-answer.txt").filter((l) => l.kind === "no-answer");
    expect(none.map((l) => (l.kind === "no-answer" ? l.seq : -1))).toEqual([1, 2, 3, 4, 5]);
    expect(none[0]).toEqual({ kind: "no-answer", atEpochMs: 1795440063081, seq: 1 });
  });

  it("reads ICMP errors about single requests", () => {
    const errors = lines("ping-host-unreachable.txt").filter((l) => l.kind === "icmp-error");
    expect(errors).toHaveLength(6);
    expect(errors[0]).toMatchObject({ from: "10.97.0.1", seq: 1, message: "Destination Host Unreachable" });
  });

  it("flags ping's own (DUP!) mark", () => {
    const replies = lines("ping-dup.txt").filter((l) => l.kind === "reply");
    expect(replies.map((r) => (r.kind === "reply" ? r.dup : null))).toEqual([
      false,
      true,
      false,
      true,
      false,
      true,
      false,
      true,
    ]);
  });

  it("reads ping's complaints about itself as diagnostics", () => {
    expect(lines("ping-network-unreachable.txt")[0]).toEqual({
      kind: "diagnostic",
      message: "connect: Network is unreachable",
    });
    expect(lines("ping-not-permitted.txt").filter((l) => l.kind === "diagnostic")).toHaveLength(3);
  });

  it("rejects lines it does not know rather than guessing", () => {
    expect(parsePingLine("64 bytes from 127.0.0.1: icmp_seq=x time=1 ms").ok).toBe(false);
    expect(parsePingLine("Request timeout for icmp_seq 3").ok).toBe(false); // BSD ping, not iputils
    expect(parsePingLine("[1795440035.8] 64 bytes from 1.2.3.4: icmp_seq=99999999 ttl=1 time=1 ms").ok).toBe(false);
  });
});

describe("classifyPingFailure", () => {
  const diags = (name: string) => lines(name).flatMap((l) => (l.kind === "diagnostic" ? [l.message] : []));

  it("a missing capability concerns the whole host and says how to fix it", () => {
    for (const f of ["ping-not-permitted.txt", "ping-ipv6-not-permitted.txt"]) {
      const c = classifyPingFailure(diags(f));
      expect(c.scope).toBe("host");
      expect(c.code).toBe("not-permitted");
      expect(c.reason).toContain("ping_group_range");
    }
  });

  it("a missing binary concerns the whole host", () => {
    expect(classifyPingFailure(["/opt/ping not found: apt-get install iputils-ping"])).toEqual({
      scope: "host",
      code: "not-installed",
      reason: "/opt/ping not found: apt-get install iputils-ping",
    });
  });

  it("no route concerns one address", () => {
    expect(classifyPingFailure(diags("ping-network-unreachable.txt"))).toEqual({
      scope: "address",
      reason: "Network is unreachable",
    });
    expect(classifyPingFailure(diags("ping-ipv6-network-unreachable.txt")).scope).toBe("address");
    expect(classifyPingFailure(diags("ping-blackhole.txt"))).toEqual({ scope: "address", reason: "Invalid argument" });
  });
});

describe("PingSequence: exactly one result per request", () => {
  it("loopback: one ok per reply, sent at reply time minus rtt", () => {
    const { results } = replay("ping-ipv4-loopback.txt");
    expect(results).toHaveLength(5);
    expect(results.every((r) => r.outcome === "ok")).toBe(true);
    expect(results[0]).toEqual({ t: 1795440035807, ms: 0.097, outcome: "ok" });
  });

  it("no answer: each request becomes one timeout carrying the timeout", () => {
    const { results, seq } = replay("ping-no-answer.txt", 1000, 5000);
    expect(results.map((r) => r.outcome)).toEqual(["timeout", "timeout", "timeout", "timeout", "timeout"]);
    expect(results.every((r) => r.ms === 5000)).toBe(true);
    // Request 1 left one interval before ping said it had no answer.
    expect(results[0]!.t).toBe(1795440063081 - 1000);
    expect(seq.pending).toBe(0);
  });

  it("host unreachable: the ICMP error settles the request, and nothing else counts it again", () => {
    const { results } = replay("ping-host-unreachable.txt", 1000, 5000);
    // Seven requests seen: six got an ICMP error before their timeout, the last timed out.
    expect(results.filter((r) => r.outcome === "error")).toHaveLength(6);
    expect(results.filter((r) => r.outcome === "timeout")).toHaveLength(1);
    expect(results).toHaveLength(7);
    expect(results[0]).toMatchObject({ outcome: "error", ms: null, reason: "icmp-unreachable" });
  });

  it("an ICMP error arriving after the request's timeout leaves it a timeout", () => {
    // Errors come in threes, ~3 s after request 1: with a 1.5 s timeout only the
    // newest request of each three (3 and 6) is still waiting when its error arrives.
    const { results, seq } = replay("ping-host-unreachable.txt", 1000, 1500);
    expect(results.filter((r) => r.outcome === "error")).toHaveLength(2);
    expect(results.filter((r) => r.outcome === "timeout")).toHaveLength(5);
    expect(results).toHaveLength(7);
    expect(seq.counts.late).toBe(4);
  });

  it("DUP! replies are not counted twice", () => {
    const { results, seq } = replay("ping-dup.txt");
    expect(results).toHaveLength(4);
    expect(results.map((r) => r.ms)).toEqual([0.149, 0.061, 0.07, 0.063]);
    expect(seq.counts.duplicates).toBe(4);
  });

  it("duplicates without the DUP! mark (a broadcast answered twice) are not counted twice either", () => {
    const { results, seq } = replay("ping-broadcast-dup.txt");
    expect(results).toHaveLength(4);
    expect(seq.counts.duplicates).toBe(4);
  });

  it("a reply after the request timed out is late, not a second result", () => {
    const seq = new PingSequence(1000, 2000);
    const t0 = 1_800_000_000_000;
    expect(seq.onLine({ kind: "no-answer", seq: 7, atEpochMs: t0 + 1000 }, t0 + 1000)).toEqual([]);
    expect(seq.expire(t0 + 2500)).toEqual([{ t: t0, ms: 2000, outcome: "timeout" }]);
    expect(
      seq.onLine({ kind: "reply", seq: 7, atEpochMs: t0 + 3000, rttMs: 3000, from: "x", dup: false }, t0 + 3000),
    ).toEqual([]);
    expect(seq.counts.late).toBe(1);
  });

  it("a reply after 'no answer yet' but within the timeout is ok", () => {
    const seq = new PingSequence(1000, 5000);
    const t0 = 1_800_000_000_000;
    seq.onLine({ kind: "no-answer", seq: 1, atEpochMs: t0 + 1000 }, t0 + 1000);
    expect(
      seq.onLine({ kind: "reply", seq: 1, atEpochMs: t0 + 1800, rttMs: 1800, from: "x", dup: false }, t0 + 1800),
    ).toEqual([{ t: t0, ms: 1800, outcome: "ok" }]);
    expect(seq.expire(t0 + 60_000)).toEqual([]);
  });

  it("forgets settled requests by age, so icmp_seq wrapping at 65536 starts afresh", () => {
    const seq = new PingSequence(1000, 5000);
    const t0 = 1_800_000_000_000;
    expect(seq.onLine({ kind: "reply", seq: 0, atEpochMs: t0, rttMs: 1, from: "x", dup: false }, t0)).toHaveLength(1);
    seq.expire(t0 + 65_536_000);
    const later = t0 + 65_536_000;
    expect(
      seq.onLine({ kind: "reply", seq: 0, atEpochMs: later, rttMs: 1, from: "x", dup: false }, later),
    ).toHaveLength(1);
  });
});
