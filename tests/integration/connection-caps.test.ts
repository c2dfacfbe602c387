// --connections-per-address and --max-connections, each on its own: the
// connection past a cap is closed before a byte is answered, other addresses
// (and, under the per-address cap, the same address once one of its
// connections closes) are served. Clients come from different loopback
// addresses (127.0.0.1, 127.0.0.2, …), which the server counts apart.
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startInProcess } from "../helpers/in-process.js";

type Server = Awaited<ReturnType<typeof startInProcess>>;

const open: net.Socket[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.destroy();
});

/**
 * Connects from `from` and sends one keep-alive GET /echo: resolves "served"
 * with the connection left open, or "closed" if the server ended it unanswered.
 */
function connect(server: Server, from: string): Promise<{ outcome: "served" | "closed"; socket: net.Socket }> {
  return new Promise((resolve) => {
    const socket = net.connect({ port: server.port, host: "127.0.0.1", localAddress: from });
    open.push(socket);
    let answer = "";
    socket.on("connect", () =>
      socket.write(`GET /echo HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: keep-alive\r\n\r\n`),
    );
    socket.on("data", (d: Buffer) => {
      answer += d.toString();
      if (/\r\n\r\n[\s\S]*"ok"/.test(answer))
        resolve({ outcome: answer.startsWith("HTTP/1.1 200") ? "served" : "closed", socket });
    });
    socket.on("error", () => undefined);
    socket.on("close", () => resolve({ outcome: "closed", socket }));
  });
}

const closed = (socket: net.Socket) =>
  new Promise<void>((resolve) => {
    socket.once("close", () => resolve());
    socket.destroy();
  });

describe("--connections-per-address", () => {
  let server: Server;
  beforeAll(async () => {
    server = await startInProcess(["--connections-per-address", "3", "--no-rate-limit"]);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("serves 3 connections from one address, closes the 4th, serves another address, and the 4th once one closes", async () => {
    const first = [];
    for (let i = 0; i < 3; i++) first.push(await connect(server, "127.0.0.1"));
    expect(first.map((c) => c.outcome)).toEqual(["served", "served", "served"]);
    expect((await connect(server, "127.0.0.1")).outcome).toBe("closed");
    expect((await connect(server, "127.0.0.2")).outcome).toBe("served");
    await closed(first[0]!.socket);
    // The server counts the close on its own side: wait for it, bounded.
    let again = await connect(server, "127.0.0.1");
    for (let i = 0; again.outcome === "closed" && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await connect(server, "127.0.0.1");
    }
    expect(again.outcome).toBe("served");
  });
});

describe("--max-connections", () => {
  let server: Server;
  beforeAll(async () => {
    server = await startInProcess(["--max-connections", "4", "--no-rate-limit"]);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("serves 4 connections in all, from 4 addresses, closes a 5th from a fifth address, and serves it once one closes", async () => {
    const held = [];
    for (let i = 1; i <= 4; i++) held.push(await connect(server, `127.0.0.${i}`));
    expect(held.map((c) => c.outcome)).toEqual(["served", "served", "served", "served"]);
    expect((await connect(server, "127.0.0.5")).outcome).toBe("closed");
    await closed(held[0]!.socket);
    let again = await connect(server, "127.0.0.5");
    for (let i = 0; again.outcome === "closed" && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await connect(server, "127.0.0.5");
    }
    expect(again.outcome).toBe("served");
  });
});
