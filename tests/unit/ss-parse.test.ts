// `ss -Htin` parsing on real captures (tests/fixtures/baseline/README.md).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { endpointKey, parseEndpoint, parseSs } from "../../server/baseline/ss-parse.js";
import { connectionsByPeer } from "../../server/baseline/tcp-info.js";

const fixture = (name: string) => fs.readFileSync(path.resolve("tests/fixtures/baseline", name), "utf8");

describe("parseSs", () => {
  it("reads IPv4 connections: smoothed rtt, its variance and the kernel's min rtt", () => {
    const conns = parseSs(fixture("ss-ipv4.txt"));
    expect(conns).toHaveLength(2);
    expect(conns[0]).toEqual({
      localAddress: "127.0.0.1",
      localPort: 42945,
      peerAddress: "127.0.0.1",
      peerPort: 37582,
      rttMs: 2.689,
      rttVarMs: 5.346,
      minRttMs: 0.013,
    });
    expect(conns[1]).toMatchObject({ peerPort: 37578, rttMs: 2.713, minRttMs: 0.019 });
  });

  it("does not mistake bbr's mrtt or any other *rtt field for rtt or minrtt", () => {
    for (const c of parseSs(fixture("ss-ipv4.txt"))) {
      // Each capture line also holds bbr:(…,mrtt:…) with the same digits in another place.
      expect(c.rttMs).toBeGreaterThan(1);
      expect(c.minRttMs).toBeLessThan(1);
    }
  });

  it("reads bracketed IPv6 endpoints", () => {
    const conns = parseSs(fixture("ss-ipv6.txt"));
    expect(conns.map((c) => [c.localAddress, c.localPort, c.peerAddress, c.peerPort])).toEqual([
      ["::1", 44319, "::1", 39986],
      ["::1", 44319, "::1", 39998],
    ]);
    expect(conns[1]).toMatchObject({ rttMs: 2.773, rttVarMs: 5.515, minRttMs: 0.014 });
  });

  it("strips the IPv4-mapped prefix of a dual-stack socket, as the client address does", () => {
    const [c] = parseSs(fixture("ss-dual-stack.txt"));
    expect(c).toMatchObject({
      localAddress: "127.0.0.1",
      peerAddress: "127.0.0.1",
      peerPort: 34300,
      rttMs: 3.557,
      minRttMs: 0.015,
    });
    expect(endpointKey("::ffff:127.0.0.1", 34300)).toBe(endpointKey(c!.peerAddress, c!.peerPort));
  });

  it("also reads output with a header and a State column, and ignores what it cannot place", () => {
    const text = [
      "State Recv-Q Send-Q Local Address:Port Peer Address:Port Process",
      "ESTAB 0      0      127.0.0.1:8080 127.0.0.1:50000",
      "\t cubic rtt:0.5/0.25 minrtt:0.02 ato:40",
      "\t orphan info line after garbage",
      "garbage",
      "\t rtt:9/9 minrtt:9",
    ].join("\n");
    expect(parseSs(text)).toEqual([
      {
        localAddress: "127.0.0.1",
        localPort: 8080,
        peerAddress: "127.0.0.1",
        peerPort: 50000,
        rttMs: 0.5,
        rttVarMs: 0.25,
        minRttMs: 0.02,
      },
    ]);
  });

  it("leaves rtt undefined when the kernel reported none", () => {
    const [c] = parseSs("0 0 10.0.0.1:80 10.0.0.2:5000\n\t cubic wscale:7,7 rto:1000\n");
    expect(c).toMatchObject({ rttMs: undefined, minRttMs: undefined });
  });
});

describe("parseEndpoint", () => {
  it("splits address and port, drops an IPv6 zone, refuses what is not an endpoint", () => {
    expect(parseEndpoint("[fe80::1%eth0]:443")).toEqual({ address: "fe80::1", port: 443 });
    expect(parseEndpoint("10.1.2.3:65535")).toEqual({ address: "10.1.2.3", port: 65535 });
    expect(parseEndpoint("10.1.2.3:65536")).toBeUndefined();
    expect(parseEndpoint("0")).toBeUndefined();
    expect(parseEndpoint(":80")).toBeUndefined();
  });
});

describe("connectionsByPeer", () => {
  it("reads a large ss output in slices, letting other work run between, and keeps only the server's port", async () => {
    // Two connections a tab (its WebSocket and its HTTP keep-alive) for 10,000 tabs, and one to another port.
    const info = fixture("ss-ipv4.txt").split("\n")[1]!;
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++)
      lines.push(`0      0      127.0.0.1:8080 127.0.${1 + (i >> 8)}.${i & 255}:${30000 + (i % 30000)}`, info);
    lines.push("0      0      127.0.0.1:9999 127.0.0.1:1", info);
    let turns = 0;
    let spinning = true;
    const spin = () => {
      if (!spinning) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    const turnsBefore = turns;
    const byPeer = await connectionsByPeer(lines.join("\n"), 8080);
    spinning = false;
    expect(byPeer.size).toBe(20_000);
    expect(byPeer.get(endpointKey("127.0.1.5", 30005))).toMatchObject({ rttMs: 2.689, minRttMs: 0.013 });
    // Parsed at once, no other callback would have run before it resolved.
    expect(turns - turnsBefore, "event-loop turns taken by others during the parse").toBeGreaterThan(1);
  });
});
