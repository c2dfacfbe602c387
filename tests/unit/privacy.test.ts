// Public ids and address redaction: what the public API may say about a client.
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactAddresses } from "../../server/privacy/addresses.js";
import { createClientDirectory, PUBLIC_ID_CHARS } from "../../server/privacy/public-ids.js";
import { CLIENT_TOKEN_PATTERN } from "../../shared/names.js";

describe("public client ids", () => {
  it("are stable per key, differ between keys, and map back only through the directory", () => {
    const key = randomBytes(32);
    const a = createClientDirectory(key, () => ["client_one_1"]);
    const b = createClientDirectory(key, () => []);
    const other = createClientDirectory(randomBytes(32), () => ["client_one_1"]);
    const id = a.publicId("client_one_1");
    expect(id).toHaveLength(PUBLIC_ID_CHARS);
    expect(id).toMatch(CLIENT_TOKEN_PATTERN); // usable as ?client= in a query string
    expect(b.publicId("client_one_1")).toBe(id);
    expect(other.publicId("client_one_1")).not.toBe(id);
    expect(id).not.toContain("client_one_1");
    expect(a.clientIdOf(id)).toBe("client_one_1");
    expect(b.clientIdOf(id)).toBeUndefined(); // not reported here yet
    b.add("client_one_1");
    expect(b.clientIdOf(id)).toBe("client_one_1");
    b.remove("client_one_1");
    expect(b.clientIdOf(id)).toBeUndefined();
  });

  it("do not collide over many clients", () => {
    const d = createClientDirectory(randomBytes(32), () => []);
    const ids = new Set(Array.from({ length: 20_000 }, (_, i) => d.publicId(`client_${i}_xxxx`)));
    expect(ids.size).toBe(20_000);
  });
});

describe("redactAddresses", () => {
  it.each([
    ["127.0.0.1: Network is unreachable", "<address>: Network is unreachable"],
    ["From 10.1.2.3 icmp_seq=1 Destination Host Unreachable", "From <address> icmp_seq=1 Destination Host Unreachable"],
    ["ping: connect to ::1 failed", "ping: connect to <address> failed"],
    ["2001:db8::5%eth0 unreachable", "<address> unreachable"],
    ['sysctl -w net.ipv4.ping_group_range="0 2147483647"', 'sysctl -w net.ipv4.ping_group_range="0 2147483647"'],
  ])("%j → %j", (input, output) => {
    expect(redactAddresses(input)).toBe(output);
  });

  it("leaves no address of any form in any text", () => {
    const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join("."));
    const v6 = fc.ipV6();
    fc.assert(
      fc.property(fc.string(), fc.oneof(v4, v6), fc.string(), (before, address, after) => {
        const out = redactAddresses(`${before} ${address} ${after}`);
        expect(out).not.toContain(` ${address} `);
      }),
      { numRuns: 5000 },
    );
  });
});
