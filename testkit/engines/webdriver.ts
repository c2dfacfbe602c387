// A W3C WebDriver client over fetch, just the commands the tests use
// (https://www.w3.org/TR/webdriver2/): a session, navigation, script, window
// handles and rect, minimise, screenshot. Smaller than any client library,
// and each call carries a deadline (an AbortSignal), so a driver that stops
// answering fails the call that waited on it.

export interface WebDriverErrorBody {
  error: string;
  message: string;
}

export class WebDriverError extends Error {
  constructor(
    readonly command: string,
    /** The driver's error code ("javascript error", "no such window", …) or "transport" when none answered. */
    readonly code: string,
    message: string,
  ) {
    super(`${command}: ${code}: ${message}`);
  }
}

export interface WebDriverSession {
  readonly id: string;
  readonly capabilities: Record<string, unknown>;
  /** One command on this session: `path` is relative to /session/{id} ("" for the session itself). */
  command<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown, timeoutMs?: number): Promise<T>;
}

async function call<T>(baseUrl: string, method: string, path: string, body: unknown, timeoutMs: number): Promise<T> {
  const what = `${method} ${path}`;
  let res: Response;
  try {
    res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json; charset=utf-8" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const e = err as Error;
    const code = e.name === "TimeoutError" ? "timeout" : "transport";
    throw new WebDriverError(what, code, code === "timeout" ? `no answer within ${timeoutMs} ms` : e.message);
  }
  const text = await res.text();
  let parsed: { value?: unknown };
  try {
    parsed = JSON.parse(text) as { value?: unknown };
  } catch {
    throw new WebDriverError(what, "invalid answer", `HTTP ${res.status}: ${text.slice(0, 200)}`);
  }
  if (!res.ok) {
    const v = (parsed.value ?? {}) as Partial<WebDriverErrorBody>;
    throw new WebDriverError(what, v.error ?? `HTTP ${res.status}`, v.message ?? text.slice(0, 200));
  }
  return parsed.value as T;
}

/** New Session with `capabilities` as alwaysMatch; the answer's session id and capabilities. */
export async function newSession(
  baseUrl: string,
  capabilities: Record<string, unknown>,
  timeoutMs: number,
): Promise<WebDriverSession> {
  const v = await call<{ sessionId: string; capabilities: Record<string, unknown> }>(
    baseUrl,
    "POST",
    "/session",
    { capabilities: { alwaysMatch: capabilities } },
    timeoutMs,
  );
  const prefix = `/session/${encodeURIComponent(v.sessionId)}`;
  return {
    id: v.sessionId,
    capabilities: v.capabilities,
    command: (method, path, body, t = timeoutMs) => call(baseUrl, method, `${prefix}${path}`, body, t),
  };
}

/** Driver status: ready once it answers with value.ready. */
export async function driverReady(baseUrl: string, timeoutMs: number): Promise<boolean> {
  try {
    const v = await call<{ ready?: boolean }>(baseUrl, "GET", "/status", undefined, timeoutMs);
    return v.ready === true;
  } catch {
    return false;
  }
}
