// Messages between the server and its spawner helper (spawner.ts, spawner-process.ts),
// sent over the helper's IPC channel with advanced serialization (Buffers as bytes).

export type HelperRequest =
  | { op: "spawn"; id: number; command: string; args: string[] }
  | { op: "kill"; id: number; signal: NodeJS.Signals };

export type HelperEvent =
  | { id: number; event: "spawn"; pid: number }
  | { id: number; event: "stdout" | "stderr"; data: Uint8Array }
  | { id: number; event: "error"; code: string | null; message: string }
  | { id: number; event: "close"; code: number | null; signal: NodeJS.Signals | null };
