// What an alert is once a rule or a feed has raised it: a label set (its
// identity), annotations (what a person reads) and its times, in the shape
// Prometheus and Alertmanager give alerts, so every receiver written for
// Alertmanager understands it.

/** The alertnames tailprobe raises by itself (INTERFACES.md); rules files add their own. */
export const BUILTIN_ALERTS = ["TargetDown", "TailLatencyHigh", "NoReports", "TailRegression"] as const;
export type BuiltinAlert = (typeof BUILTIN_ALERTS)[number];

export type Labels = Readonly<Record<string, string>>;

export interface Alert {
  /** labels.alertname is the rule's name; labels.target the server concerned. */
  labels: Labels;
  /** summary and description at least; verdict and value where the source has them. */
  annotations: Labels;
  /** When the alert started firing (epoch ms). */
  startsAtMs: number;
  /** When it resolved (epoch ms); null while firing. */
  endsAtMs: number | null;
  /** A link to the histogram page at the alert's moment, or "" when the server's URL is not known. */
  generatorUrl: string;
}

export interface AlertTransition {
  type: "firing" | "resolved";
  alert: Alert;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;
/** Separates names and values in the hashed bytes (never valid in UTF-8), as Prometheus' label signatures do. */
const SEPARATOR = 0xff;

/**
 * The label set's identity: 64-bit FNV-1a over the labels sorted by name,
 * each name and value followed by 0xff, as 16 hex digits (the form of
 * Alertmanager's `fingerprint`). Order-independent; any change of a name or
 * value changes it.
 */
export function fingerprint(labels: Labels): string {
  let h = FNV_OFFSET;
  const encoder = new TextEncoder();
  const step = (bytes: Uint8Array) => {
    for (const b of bytes) h = ((h ^ BigInt(b)) * FNV_PRIME) & MASK_64;
  };
  for (const name of Object.keys(labels).sort()) {
    step(encoder.encode(name));
    step(Uint8Array.of(SEPARATOR));
    step(encoder.encode(labels[name]!));
    step(Uint8Array.of(SEPARATOR));
  }
  return h.toString(16).padStart(16, "0");
}

/** Epoch ms as RFC 3339 (what Alertmanager reads and writes). */
export const rfc3339 = (ms: number): string => new Date(ms).toISOString();

/** Go's zero time: Alertmanager's webhook sends it as endsAt of a firing alert. */
export const ZERO_TIME = "0001-01-01T00:00:00Z";
