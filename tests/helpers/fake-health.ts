// A health feed the test drives (INTERFACES.md's HealthFeed): incidents are
// opened and closed by hand, states set by hand.
import type { HealthFeed, HealthState, IncidentView } from "../../server/alerts/feeds.js";

export function fakeHealthFeed() {
  const listeners = new Set<(e: { type: "opened" | "updated" | "closed"; incident: IncidentView }) => void>();
  const states: { target: string; state: HealthState; sinceMs: number }[] = [];
  const feed: HealthFeed = {
    states: () => states,
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
  const emit = (type: "opened" | "updated" | "closed", incident: IncidentView) => {
    for (const l of listeners) l({ type, incident });
  };
  return { feed, emit, states, listeners };
}

export function downIncident(over: Partial<IncidentView> = {}): IncidentView {
  return {
    id: "inc-1",
    target: "B",
    kind: "down",
    start: Date.now(),
    end: null,
    verdict: "server",
    summary: "B down: failing from 3 of 3 clients and from A's own probe since 05:14:07",
    methods: ["xhr", "jsonp", "ws"],
    clients: ["pub1", "pub2", "pub3"],
    evidence: ["3 of 3 clients fail", "A's own probe fails"],
    peak: { affected: 4, reporting: 4, failureShare: 1, latencyMs: null, typicalMs: 1.2 },
    observer: "A",
    ...over,
  };
}
