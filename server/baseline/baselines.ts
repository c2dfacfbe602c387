// Server-side baselines towards each connected page. (Filled in by the baselines work.)
import type { BaselineStatus } from "../../shared/protocol.js";
import type { WsClient, WsEchoHooks } from "../echo/ws-echo.js";

export interface BaselineOptions {
  serverName: string;
  ping: boolean;
  nowMs: () => number;
  log: (line: string) => void;
}

export interface Baselines extends WsEchoHooks {
  status(): Record<string, BaselineStatus>;
  setLocalPort(port: number): void;
  stop(): void;
}

export function createBaselines(_options: BaselineOptions): Baselines {
  const clients = new Set<WsClient>();
  return {
    onClient: (c) => void clients.add(c),
    onClientGone: (c) => void clients.delete(c),
    status: () => ({}),
    setLocalPort: () => undefined,
    stop: () => clients.clear(),
  };
}
