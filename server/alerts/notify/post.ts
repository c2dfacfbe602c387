// One POST of a notification, bounded in time: a receiver that hangs costs a
// timeout, never a stuck queue, and never anything on the echo paths.

/** A POST that did not reach a 2xx answer. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly code: "DELIVERY_STATUS" | "DELIVERY_NETWORK" | "DELIVERY_TIMEOUT",
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Answer bytes read for the error message at most: a receiver's error page is not kept. */
const ERROR_BODY_CHARS_MAX = 200;

export async function postJson(
  url: string,
  body: unknown,
  o: { timeoutMs: number; authorization?: string | undefined; signal?: AbortSignal | undefined },
): Promise<void> {
  const headers: Record<string, string> = { "Content-Type": "application/json", "User-Agent": "tailprobe" };
  if (o.authorization !== undefined) headers.Authorization = o.authorization;
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      // The timeout, or the server stopping: a stop does not wait for a receiver that hangs.
      signal:
        o.signal === undefined
          ? AbortSignal.timeout(o.timeoutMs)
          : AbortSignal.any([AbortSignal.timeout(o.timeoutMs), o.signal]),
      redirect: "error",
    });
  } catch (err) {
    const e = err as Error;
    if (e.name === "TimeoutError") throw new DeliveryError(`no answer within ${o.timeoutMs} ms`, "DELIVERY_TIMEOUT");
    if (e.name === "AbortError") throw new DeliveryError("the server is stopping", "DELIVERY_NETWORK");
    const cause = (e.cause as Error | undefined)?.message;
    throw new DeliveryError(cause ?? e.message, "DELIVERY_NETWORK");
  }
  const text = await res.text().catch(() => "");
  if (res.status < 200 || res.status >= 300)
    throw new DeliveryError(
      `HTTP ${res.status} ${text.slice(0, ERROR_BODY_CHARS_MAX).trim()}`.trim(),
      "DELIVERY_STATUS",
      res.status,
    );
}
