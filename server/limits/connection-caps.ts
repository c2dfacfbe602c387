// Caps on open TCP connections: in all (Node's maxConnections) and per
// address, so one client holding sockets open (slow-loris) cannot take every
// slot. Trusted proxies carry many clients and are exempt from the per-address cap.
import type { Server } from "node:net";
import type { Socket } from "node:net";
import { normalizeAddress, type TrustedProxies } from "../client-address.js";
import { limiterKey } from "./rate-limiter.js";

export interface ConnectionCapOptions {
  connectionsMax: number;
  connectionsPerAddress: number;
  trusted: TrustedProxies;
}

export interface ConnectionCaps {
  /** Open connections per address key (read-only view for tests). */
  openBy(address: string): number;
}

export function capConnections(server: Server, o: ConnectionCapOptions): ConnectionCaps {
  server.maxConnections = o.connectionsMax;
  const open = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const peer = normalizeAddress(socket.remoteAddress ?? "");
    if (o.trusted?.(peer)) return;
    const key = limiterKey(peer);
    const n = (open.get(key) ?? 0) + 1;
    if (n > o.connectionsPerAddress) {
      // Before any byte is read: nothing to answer, the connection simply ends.
      socket.destroy();
      return;
    }
    open.set(key, n);
    socket.once("close", () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
  return { openBy: (address) => open.get(limiterKey(normalizeAddress(address))) ?? 0 };
}
