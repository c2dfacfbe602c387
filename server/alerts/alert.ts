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

/** Separates names and values in the hashed bytes (never valid in UTF-8), as Prometheus' label signatures do. */
const SEPARATOR = 0xff;
const encoder = new TextEncoder();

/**
 * The label set's identity: 64-bit FNV-1a over the labels sorted by name,
 * each name and value followed by 0xff, as 16 hex digits (the form of
 * Alertmanager's `fingerprint`). Order-independent; any change of a name or
 * value changes it. The 64-bit state is kept in four 16-bit limbs: exact in
 * doubles, and many times faster than BigInt.
 */
export function fingerprint(labels: Labels): string {
  // Offset basis 0xcbf29ce484222325, low limb first.
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  const step = (b: number) => {
    h0 ^= b;
    // × the FNV prime 2^40 + 0x1b3, modulo 2^64.
    const t0 = h0 * 0x1b3;
    let t1 = h1 * 0x1b3;
    let t2 = h2 * 0x1b3 + (h0 << 8);
    const t3 = h3 * 0x1b3 + (h1 << 8);
    t1 += t0 >>> 16;
    h0 = t0 & 0xffff;
    t2 += t1 >>> 16;
    h1 = t1 & 0xffff;
    h3 = (t3 + (t2 >>> 16)) & 0xffff;
    h2 = t2 & 0xffff;
  };
  for (const name of Object.keys(labels).sort()) {
    for (const b of encoder.encode(name)) step(b);
    step(SEPARATOR);
    for (const b of encoder.encode(labels[name]!)) step(b);
    step(SEPARATOR);
  }
  const hex = (x: number) => x.toString(16).padStart(4, "0");
  return hex(h3) + hex(h2) + hex(h1) + hex(h0);
}

/** Epoch ms as RFC 3339 (what Alertmanager reads and writes). */
export const rfc3339 = (ms: number): string => new Date(ms).toISOString();

/** Go's zero time: Alertmanager's webhook sends it as endsAt of a firing alert. */
export const ZERO_TIME = "0001-01-01T00:00:00Z";
