// Fetches one endpoint and checks its answer; a refresh passes one
// AbortSignal to all its requests so a newer view cancels the stale ones.
import type { z } from "../../../shared/zod.js";
import { parseWith } from "../../../shared/contract/index.js";

export class ApiError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

function errorText(body: unknown, status: number): string {
  if (typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string") {
    return `${status} ${(body as { error: string }).error}`;
  }
  return `answered ${status}`;
}

export async function getChecked<T>(
  path: string,
  query: URLSearchParams | null,
  schema: z.core.$ZodType<T>,
  signal: AbortSignal,
): Promise<T> {
  const url = query === null ? path : `${path}?${query.toString()}`;
  const res = await fetch(url, { signal, cache: "no-store" });
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new ApiError(path, `answered ${res.status} with a body that is not JSON`);
  }
  if (!res.ok) throw new ApiError(path, errorText(body, res.status));
  const parsed = parseWith(schema, body);
  if (!parsed.ok) throw new ApiError(path, `unexpected answer (${parsed.error})`);
  // An answer that arrived just as a newer view aborted it must not be drawn.
  signal.throwIfAborted();
  return parsed.value;
}

export function isAbort(err: unknown): boolean {
  return err instanceof DOMException && err.name === "AbortError";
}
