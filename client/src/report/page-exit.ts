// What the outbox does when the page may be going away. Samples are written
// to IndexedDB once a tick (in the housekeeping slot), so every exit first
// writes those taken since. Hidden: the page may never run again, so what fits
// in a keepalive request goes now. Frozen: written, nothing sent. pagehide:
// first the probes that will never answer are recorded, then what is not yet
// written is spilled to localStorage (synchronous, so a closing document
// cannot lose it) and a beacon carries the session's newest samples.
import type { Outbox } from "./outbox.js";
import type { Spill } from "./spill.js";

export interface PageExit {
  /** Set once probing runs: records probes in flight as page-closed. */
  setAbandon(abandon: () => void): void;
}

export function watchPageExit(outbox: Outbox, sessionId: string, spill: Spill): PageExit {
  let abandon: () => void = () => undefined;
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") outbox.flushOnHide();
  });
  document.addEventListener("freeze", () => outbox.commit());
  window.addEventListener("pagehide", () => {
    abandon();
    spill.save(sessionId, outbox.takeUnsaved());
    outbox.beaconOnPageHide();
  });
  return { setAbandon: (f) => (abandon = f) };
}
