// Where alert state lives between restarts (what is firing, since when, what
// was sent to whom; server/alerts/), engine-neutral: table alert_state, one
// row per alert label set holding its latest episode (sqlite/alert-state.ts,
// postgres/alert-state.ts). With PostgreSQL several servers share the table:
// a transition is recorded only if the row is still in the state the caller
// saw, so exactly one server wins it and sends its messages.

/** An alert's labels or annotations. */
export type Labels = Readonly<Record<string, string>>;

export type SentState = "firing" | "resolved";

export interface StoredAlert {
  fingerprint: string;
  labels: Labels;
  annotations: Labels;
  startsAtMs: number;
  /** null while firing. */
  endsAtMs: number | null;
  generatorUrl: string;
  /** Per receiver key (receivers.ts), the last message it acknowledged for this episode. */
  sent: Readonly<Record<string, SentState>>;
  /**
   * The server that recorded the last transition: it owes that transition's
   * messages (to its own receivers), and sends what is left of them when it restarts.
   */
  owner: string;
  /** When the owner recorded it (epoch ms). */
  changedMs: number;
}

export interface AlertStateStore {
  /** Every stored alert: firing ones, and resolved ones not yet pruned. */
  load(): Promise<StoredAlert[]>;
  /**
   * Records a firing episode unless the row already fires (another server,
   * or an earlier life of this one, started it). Resolves with the row as
   * stored afterwards and whether this call started it.
   */
  fire(a: Omit<StoredAlert, "sent" | "endsAtMs">): Promise<{ won: boolean; row: StoredAlert }>;
  /** Resolves the episode that started at startsAtMs if it still fires; true when this call resolved it. */
  resolve(fingerprint: string, startsAtMs: number, endsAtMs: number, owner: string, nowMs: number): Promise<boolean>;
  /** Annotations changed while firing (an incident's summary grew): kept for the re-posts to Alertmanager. */
  annotate(fingerprint: string, startsAtMs: number, annotations: Labels): Promise<void>;
  /** A receiver acknowledged the episode's firing or resolved message. */
  markSent(fingerprint: string, startsAtMs: number, receiver: string, what: SentState): Promise<void>;
  /** Drops resolved episodes that ended before beforeMs; resolves with how many. */
  prune(beforeMs: number): Promise<number>;
}
