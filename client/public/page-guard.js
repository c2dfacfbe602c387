// Every page's first script: a classic script in <head>, so it runs before
// the page's modules (those are deferred) and whatever they fail to do.
// Served as a file of its own from 'self': the Content-Security-Policy
// (server/page-security.ts) allows no inline script.
//
// 1. A language every Intl constructor accepts. WebKitGTK in a C.UTF-8
//    locale (Debian's default in containers) reports navigator.language "C",
//    which is no BCP 47 tag, and `new Intl.NumberFormat("C")` throws a
//    RangeError; uPlot does exactly that as its module is evaluated, so the
//    histogram page never ran. When the browser's language is refused, the
//    page sees the first of its languages that Intl accepts, else "en-US".
//
// 2. An error on the page, never an endless "loading…". The page's entry
//    module marks <html data-started> as its last statement
//    (client/src/common/started.ts). Module scripts have all run, or failed,
//    by DOMContentLoaded: if the mark is missing then, the page shows the
//    errors seen so far (a module that threw as it was evaluated, a module or
//    chunk that failed to load, a rejected promise) in place of its
//    [data-loading] texts.
//
// Uncaught errors of the page's whole life are kept in window.tailprobeErrors
// (the first ERRORS_MAX), for tests and the curious.

(() => {
  const FALLBACK_LANGUAGE = "en-US";
  const ERRORS_MAX = 50;

  const acceptedByIntl = (tag) => {
    if (typeof tag !== "string" || tag === "") return false;
    try {
      new Intl.NumberFormat(tag);
      new Intl.DateTimeFormat(tag);
      return true;
    } catch {
      return false;
    }
  };
  const nav = window.navigator;
  if (!acceptedByIntl(nav.language)) {
    const usable = Array.from(nav.languages || []).filter(acceptedByIntl);
    const language = usable[0] || FALLBACK_LANGUAGE;
    const languages = Object.freeze(usable.length > 0 ? usable : [language]);
    Object.defineProperty(nav, "language", { configurable: true, get: () => language });
    Object.defineProperty(nav, "languages", { configurable: true, get: () => languages });
  }

  const errors = [];
  Object.defineProperty(window, "tailprobeErrors", { value: errors });
  const keep = (text) => {
    if (errors.length < ERRORS_MAX) errors.push(String(text));
  };
  const describe = (err, fallback) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err ?? fallback));
  const started = () => document.documentElement.hasAttribute("data-started");
  // Capture phase: a script or stylesheet that failed to load fires a
  // non-bubbling error at its element. Only until the page has started: after
  // that a script that fails to load is a JSONP probe's outcome, not the page's error.
  window.addEventListener(
    "error",
    (e) => {
      if (e instanceof ErrorEvent) keep(describe(e.error, e.message));
      else if (!started() && (e.target instanceof HTMLScriptElement || e.target instanceof HTMLLinkElement))
        keep(`could not load ${e.target.src || e.target.href}`);
    },
    true,
  );
  window.addEventListener("unhandledrejection", (e) => keep(describe(e.reason, "a promise was rejected")));

  document.addEventListener("DOMContentLoaded", () => {
    if (started()) return;
    const shown = errors.length > 0 ? errors.slice(0, 3).join("; ") : "its script did not run";
    const note = document.createElement("p");
    note.id = "page-error";
    note.className = "warning";
    note.setAttribute("role", "alert");
    note.textContent = `This page could not start: ${shown}. Reload it; if that does not help, the browser's console has the details.`;
    const main = document.querySelector("main");
    (main || document.body).prepend(note);
    main?.removeAttribute("aria-busy");
    for (const el of document.querySelectorAll("[data-loading]")) el.textContent = "not loaded";
  });
})();
