// One keep-alive HTTP/1.1 connection on a bare socket, requests queued on it
// one at a time as a browser does on one connection (no pipelining): the
// capacity benchmark's simulated tabs. node:http's client costs ~3× the CPU a
// request (its agent, its parser and the objects of each request, and the
// garbage they make), and the tabs share the machine's two cores with the
// server they load, so the cheaper client leaves the server what a real
// deployment's remote tabs would. The server's side of the wire is the same.
// It reads only what the tailprobe server sends: a status line, headers with
// Content-Length, a body; anything else fails the request, named.
import net from "node:net";

export interface BareResponse {
  status: number;
  body: string;
}

interface Pending {
  head: string;
  body: string | undefined;
  timeoutMs: number;
  deadline: number;
  resolve: (r: BareResponse) => void;
  reject: (e: Error) => void;
}

const HEAD_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const CONNECTION_CLOSE = /\r\nconnection:[ \t]*close/i;

/** A request that failed with a code a benchmark counts by (TIMEOUT, ECONNRESET, ...). */
export class BareHttpError extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

export class BareHttpConn {
  private socket: net.Socket | null = null;
  private readonly queue: Pending[] = [];
  private current: Pending | null = null;
  private buf: Buffer | null = null;
  /** Header length and Content-Length of the response being read, once its head is in. */
  private headLen = -1;
  private bodyLen = -1;
  private closeAfter = false;
  private closed = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly localAddress: string,
  ) {}

  /** Sends when the connection is free; rejects with a BareHttpError on a timeout (from sending) or a broken connection. */
  request(method: "GET" | "POST", path: string, timeoutMs: number, json?: string): Promise<BareResponse> {
    const head =
      json === undefined
        ? `${method} ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\n\r\n`
        : `${method} ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n`;
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new BareHttpError("CLOSED"));
      this.queue.push({ head, body: json, timeoutMs, deadline: 0, resolve, reject });
      if (this.current === null) this.sendNext();
    });
  }

  /** Fails the request in flight if it is past its deadline (called by the owner's sweep, cheaper than a timer a request). */
  sweep(now: number): void {
    if (this.current !== null && now >= this.current.deadline) this.fail(new BareHttpError("TIMEOUT"));
  }

  /** Closes the connection; queued requests fail with CLOSED. */
  close(): void {
    this.closed = true;
    this.socket?.destroy();
    this.socket = null;
    const left = this.current === null ? this.queue.splice(0) : [this.current, ...this.queue.splice(0)];
    this.current = null;
    for (const p of left) p.reject(new BareHttpError("CLOSED"));
  }

  private sendNext(): void {
    const next = this.queue.shift();
    if (next === undefined) return;
    this.current = next;
    next.deadline = performance.now() + next.timeoutMs;
    const socket = this.socket ?? this.connect();
    if (next.body === undefined) socket.write(next.head);
    else socket.write(next.head + next.body);
  }

  private connect(): net.Socket {
    const socket = net.connect({ host: this.host, port: this.port, localAddress: this.localAddress, noDelay: true });
    this.socket = socket;
    this.buf = null;
    this.headLen = -1;
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (err: NodeJS.ErrnoException) => this.onBroken(socket, err.code ?? err.message));
    socket.on("close", () => this.onBroken(socket, "ECONNRESET"));
    return socket;
  }

  private onBroken(socket: net.Socket, code: string): void {
    if (this.socket !== socket) return;
    this.socket = null;
    if (this.current !== null) this.fail(new BareHttpError(code), false);
  }

  private onData(chunk: Buffer): void {
    this.buf = this.buf === null ? chunk : Buffer.concat([this.buf, chunk]);
    for (;;) {
      const buf: Buffer | null = this.buf;
      if (buf === null) return;
      if (this.headLen < 0) {
        const end = buf.indexOf(HEAD_END);
        if (end < 0) return;
        const head = buf.toString("latin1", 0, end);
        const length = CONTENT_LENGTH.exec(head);
        if (length === null) return this.fail(new BareHttpError("NO_CONTENT_LENGTH"));
        this.headLen = end + HEAD_END.length;
        this.bodyLen = Number(length[1]);
        this.closeAfter = CONNECTION_CLOSE.test(head);
      }
      const total = this.headLen + this.bodyLen;
      if (buf.length < total) return;
      const status = Number(buf.toString("latin1", 9, 12));
      const body = buf.toString("utf8", this.headLen, total);
      this.buf = buf.length === total ? null : buf.subarray(total);
      this.headLen = -1;
      const done = this.current;
      this.current = null;
      if (this.closeAfter) {
        this.socket?.destroy();
        this.socket = null;
      }
      if (done === null) return; // an answer nobody asked for: dropped
      done.resolve({ status, body });
      this.sendNext();
    }
  }

  /** Fails the request in flight and drops its connection (its answer may still come); the queue goes on, on a new one. */
  private fail(err: BareHttpError, destroy = true): void {
    const p = this.current;
    this.current = null;
    if (destroy) {
      this.socket?.destroy();
      this.socket = null;
    }
    this.buf = null;
    this.headLen = -1;
    p?.reject(err);
    if (!this.closed) this.sendNext();
  }
}
