// How a test's expression or function becomes one JavaScript expression every
// driver can evaluate. A function is sent as its source text and called with
// its argument as JSON, so it must not close over the test's variables.
// esbuild (tsx, vitest) may wrap named functions in a `__name(fn, "name")`
// helper that exists only in the test's module: the page gets a stand-in.

export function expressionOf(fnOrExpression: string | ((arg: never) => unknown), arg?: unknown): string {
  if (typeof fnOrExpression === "string") return fnOrExpression;
  const argText = arg === undefined ? "undefined" : JSON.stringify(arg);
  return `(() => { const __name = (f) => f; return (${fnOrExpression.toString()})(${argText}); })()`;
}

/**
 * For drivers with no console endpoint (WebKitWebDriver): installed in the
 * page after each load, it records console.error calls, Content-Security-Policy
 * violations and, on pages that do not record their own (tailprobe's pages
 * keep window.tailprobeErrors from their first script on), uncaught errors
 * and unhandled rejections. Bounded: a page left running cannot grow it.
 */
export const ERROR_HOOK_EXPRESSION = `(() => {
  if (window.__engineErrors) return;
  const list = (window.__engineErrors = []);
  const push = (s) => { if (list.length < 200) list.push(String(s)); };
  if (!("tailprobeErrors" in window)) {
    const text = (err, fallback) => (err && err.stack ? String(err) + "\\n" + err.stack : String(fallback));
    addEventListener("error", (e) => push(text(e.error, e.message)));
    addEventListener("unhandledrejection", (e) => push(text(e.reason, e.reason)));
  }
  const original = console.error;
  console.error = (...args) => { push(args.map(String).join(" ")); original.apply(console, args); };
  document.addEventListener("securitypolicyviolation", (e) => push("Content-Security-Policy: " + e.violatedDirective + " " + e.blockedURI));
})()`;

/** What ERROR_HOOK_EXPRESSION and the page's own record hold. */
export const READ_ERRORS_EXPRESSION = `[...(window.tailprobeErrors || []), ...(window.__engineErrors || [])]`;
