// The page's entry module says it ran to its end: client/public/page-guard.js
// shows an error instead of "loading…" on a page whose entry never says so.
// The last statement of every entry module (client/src/*/main.ts).

export function markStarted(): void {
  document.documentElement.setAttribute("data-started", "");
}
