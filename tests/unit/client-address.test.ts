// Whose address gets pinged: the socket's peer, and X-Forwarded-For only when
// the connection comes from a proxy the operator said to trust.
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientAddress, isLoopback, normalizeAddress, trustedProxies } from "../../server/client-address.js";

function req(remoteAddress: string, xff?: string | string[]): IncomingMessage {
  return {
    socket: { remoteAddress },
    headers: xff === undefined ? {} : { "x-forwarded-for": xff },
  } as unknown as IncomingMessage;
}

describe("clientAddress", () => {
  it("is the socket's peer without --trust-proxy, whatever the headers say", () => {
    expect(clientAddress(req("203.0.113.7", "198.51.100.1"), null)).toBe("203.0.113.7");
    expect(clientAddress(req("::ffff:203.0.113.7"), null)).toBe("203.0.113.7");
  });

  it("with --trust-proxy takes the last X-Forwarded-For hop from a loopback peer (the proxy on this host)", () => {
    const trusted = trustedProxies(true, []);
    expect(clientAddress(req("127.0.0.1", "10.1.1.1, 198.51.100.1"), trusted)).toBe("198.51.100.1");
    expect(clientAddress(req("::1", ["10.1.1.1", "198.51.100.2"]), trusted)).toBe("198.51.100.2");
    expect(clientAddress(req("::ffff:127.0.0.1", "::ffff:198.51.100.3"), trusted)).toBe("198.51.100.3");
  });

  it("with --trust-proxy ignores the header from any other peer: a client reaching the server directly cannot choose what is pinged", () => {
    expect(clientAddress(req("203.0.113.7", "127.0.0.1"), trustedProxies(true, []))).toBe("203.0.113.7");
  });

  it("believes a proxy named with --proxy-address, and only it", () => {
    const trusted = trustedProxies(true, ["10.0.0.5"]);
    expect(clientAddress(req("10.0.0.5", "198.51.100.4"), trusted)).toBe("198.51.100.4");
    expect(clientAddress(req("::ffff:10.0.0.5", "198.51.100.4"), trusted)).toBe("198.51.100.4");
    expect(clientAddress(req("10.0.0.6", "198.51.100.4"), trusted)).toBe("10.0.0.6");
  });

  it("falls back to the peer when the header holds no address", () => {
    const trusted = trustedProxies(true, []);
    expect(clientAddress(req("127.0.0.1", "unknown"), trusted)).toBe("127.0.0.1");
    expect(clientAddress(req("127.0.0.1", ""), trusted)).toBe("127.0.0.1");
  });
});

describe("address helpers", () => {
  it("recognise loopback and unwrap IPv4-mapped IPv6", () => {
    expect(["127.0.0.1", "127.8.9.10", "::1"].map(isLoopback)).toEqual([true, true, true]);
    expect(["10.0.0.1", "::2", "128.0.0.1"].map(isLoopback)).toEqual([false, false, false]);
    expect(normalizeAddress("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(normalizeAddress("2001:db8::1")).toBe("2001:db8::1");
  });
});
