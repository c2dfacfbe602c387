// The one sentence an incident carries: "B down: failing from 3 of 3 clients
// and from A's own probe since 05:14:07 UTC". Times in UTC, so a sentence
// means the same wherever it is read (a notification, a log, the status page).
import type { IncidentKind } from "../../shared/contract/incidents.js";
import type { Judgement } from "./judge.js";

/** "05:14:07 UTC" (and the date when it is not today's, as of `nowMs`). */
export function utcClock(ms: number, nowMs = ms): string {
  const iso = new Date(ms).toISOString();
  const sameDay = iso.slice(0, 10) === new Date(nowMs).toISOString().slice(0, 10);
  return `${sameDay ? "" : `${iso.slice(0, 10)} `}${iso.slice(11, 19)} UTC`;
}

export function incidentSummary(j: Judgement, kind: IncidentKind, startMs: number): string {
  return `${j.target} ${kind}: ${j.reason} since ${utcClock(startMs)}`;
}
