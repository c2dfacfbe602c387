// Every call into a browser driver is given a deadline: a driver that stops
// answering (a hung WebKitWebDriver, a Firefox that lost its BiDi socket) must
// fail the test that waits on it with the call's name, not hang it until the
// test runner's own timeout says nothing useful.

/** How long one driver call may take by default (ms): page loads included. */
export const DRIVER_CALL_TIMEOUT_MS_DEFAULT = 30_000;

export class DriverTimeoutError extends Error {
  readonly code = "DRIVER_TIMEOUT";
}

/** `work`, or a DriverTimeoutError naming `what` once `timeoutMs` has passed. */
export function withDeadline<T>(what: string, timeoutMs: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DriverTimeoutError(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** How long starting a browser may take (ms): Firefox with a fresh profile takes ~7 s on a busy machine. */
export const ENGINE_LAUNCH_TIMEOUT_MS = 60_000;
