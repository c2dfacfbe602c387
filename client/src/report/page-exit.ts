// What the outbox does when the page may be going away. Hidden: it may never
// run again, so what fits in a keepalive request goes now. pagehide: first the
// probes that will never answer are recorded, then a beacon carries the
// session's newest samples.
import type { Outbox } from "./outbox.js";

export interface PageExit {
  /** Set once probing runs: records probes in flight as page-closed. */
  setAbandon(abandon: () => void): void;
}

export function watchPageExit(outbox: Outbox): PageExit {
  let abandon: () => void = () => undefined;
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") outbox.flushOnHide();
  });
  window.addEventListener("pagehide", () => {
    abandon();
    outbox.beaconOnPageHide();
  });
  return { setAbandon: (f) => (abandon = f) };
}
