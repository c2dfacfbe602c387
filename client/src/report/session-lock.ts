// Which sessions still have an open page. Each page holds a Web Lock named
// after its session for its whole lifetime; rows of a session whose lock is
// held belong to that tab, and only rows of closed sessions are delivered by
// another one (report/outbox.ts).

const LOCK_PREFIX = "tailprobe-session:";

/** Held for the page's lifetime, so other tabs leave this session's outbox rows to it. */
export function holdSessionLock(sessionId: string): void {
  void navigator.locks?.request(`${LOCK_PREFIX}${sessionId}`, () => new Promise<never>(() => undefined));
}

/** Sessions whose page is open now (in any tab of this browser profile). */
export async function liveSessions(): Promise<Set<string>> {
  const held = (await navigator.locks?.query())?.held ?? [];
  return new Set(held.flatMap((l) => (l.name?.startsWith(LOCK_PREFIX) ? [l.name.slice(LOCK_PREFIX.length)] : [])));
}
