// Messages between the main thread (load-servers.ts) and the load thread (load-thread.ts).

export interface LoadThreadInit {
  host: string;
  /** First of the two ports (downloads, then uploads on the next); 0: any two free ones. */
  port: number;
  tlsCertPath: string | undefined;
  tlsKeyPath: string | undefined;
  trustProxy: boolean;
  proxyAddresses: string[];
  perAddress: boolean;
  bytesPerHour: number;
  streamsPerAddress: number;
  streamsMax: number;
  /** Mbit/s per address and direction; 0: unpaced. */
  mbpsPerAddress: number;
  connectionsMax: number;
  connectionsPerAddress: number;
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

export type LoadThreadRequest = { type: "close" } | { type: "stats"; id: number };

export type LoadThreadReply =
  | { type: "ready"; ports: { down: number; up: number } }
  | { type: "failed"; code: string | null; message: string }
  | { type: "stats"; id: number; openStreams: number };
