// POST /api/samples read from its bytes: the batch, or the answer that
// refuses it. Pure and synchronous, so the store runs it where the write runs:
// the SQLite server store in its writer thread (the event loop that answers
// /echo and /ws never parses or checks a batch), other stores just before
// their write. A batch with bad samples is refused whole, naming each bad one,
// so the page can drop exactly those and send the rest again.
import {
  parseWith,
  REJECTED_ERROR_CHARS_MAX,
  sampleBatchEnvelopeSchema,
  type IngestResult,
  type RejectedSample,
  type Sample,
  type SampleBatch,
  type SampleRefusal,
} from "../../shared/contract/index.js";
import { readSample } from "../../shared/contract/sample-reader.js";

/**
 * What this deployment accepts beyond the contract, as data (it crosses to
 * the writer thread): sample times within the raw retention and at most a
 * day ahead, targets among its servers.
 */
export interface SampleRules {
  /** Oldest `t` or `scheduledT` kept (epoch ms): older would be pruned at once, or is forged. */
  oldestMs: number;
  /** Newest `t` or `scheduledT` accepted (epoch ms). */
  newestMs: number;
  /** --raw-days, for the message. */
  rawDays: number;
  /** Every target a page of this deployment measures. */
  targets: readonly string[];
}

/** A refused body: 400 with `{error, code}`, or with the refused samples by index. */
export type BatchRefusal = { code: "BAD_JSON" | "INVALID_BATCH"; error: string } | SampleRefusal;

export type BatchReading = { ok: true; batch: SampleBatch } | { ok: false; refusal: BatchRefusal };

/**
 * A stored sample as the health monitor judges it (server/health/): the
 * probes and pings only, small, since it crosses back from the writer thread.
 */
export interface IngestedSample {
  seq: number;
  t: number;
  method: string;
  target: string;
  outcome: Sample["outcome"];
  ms: number | null;
  lateMs: number | null;
  /** Hidden at send or reply, or had been hidden: the tab's timers may have been throttled. */
  hidden: boolean;
  froze: boolean;
  serverMs: number | null;
  reason: string | null;
}

/** What a stored batch tells the health monitor. */
export interface IngestDigest {
  clientId: string;
  sessionId: string;
  samples: IngestedSample[];
}

/** A stored batch (its clientId, for the directory of public ids; its digest, for health) or its refusal. */
export type BodyIngest =
  | { ok: true; clientId: string; result: IngestResult; digest: IngestDigest }
  | { ok: false; refusal: BatchRefusal };

/** Methods health is judged from: the page's own probes of each server, and ping towards the page. */
const JUDGED_METHODS = new Set(["xhr", "jsonp", "ws", "ping"]);

/** The answer for a stored batch, with its digest for the health monitor. */
export function ingested(batch: SampleBatch, result: IngestResult): BodyIngest {
  const samples: IngestedSample[] = [];
  for (const s of batch.samples) {
    if (!JUDGED_METHODS.has(s.method) || s.outcome === "skipped") continue;
    samples.push({
      seq: s.seq,
      t: s.t,
      method: s.method,
      target: s.target,
      outcome: s.outcome,
      ms: s.ms,
      lateMs: s.lateMs ?? null,
      hidden: s.visibleAtSend === false || s.visibleAtReply === false || (s.hiddenMs ?? 0) > 0,
      froze: s.froze === true,
      serverMs: s.serverMs ?? null,
      reason: s.reason ?? null,
    });
  }
  return {
    ok: true,
    clientId: batch.clientId,
    result,
    digest: { clientId: batch.clientId, sessionId: batch.sessionId, samples },
  };
}

/** Names what is wrong with a well-formed sample under the rules, or undefined if it may be stored. */
export function sampleCheck(rules: SampleRules): (s: Sample) => string | undefined {
  const targets = new Set(rules.targets);
  const window = (field: string, t: number) =>
    t < rules.oldestMs
      ? `${field}: older than the raw retention (${rules.rawDays} days)`
      : t > rules.newestMs
        ? `${field}: more than a day ahead of the server's clock`
        : undefined;
  return (s) =>
    window("t", s.t) ??
    (s.scheduledT === undefined ? undefined : window("scheduledT", s.scheduledT)) ??
    (targets.has(s.target) ? undefined : `target: '${s.target}' is not a server of this deployment`);
}

/** Reads each sample on its own; the bad ones by index, or the whole batch. */
export function parseSamples(
  raw: unknown[],
  check: (s: Sample) => string | undefined,
): { samples: Sample[]; rejected: RejectedSample[] } {
  const samples: Sample[] = [];
  const rejected: RejectedSample[] = [];
  const seen = new Set<number>();
  raw.forEach((item, index) => {
    const seqOf = (item as { seq?: unknown } | null)?.seq;
    const seq =
      typeof item === "object" && item !== null && Number.isSafeInteger(seqOf) && (seqOf as number) >= 0
        ? (seqOf as number)
        : null;
    const parsed = readSample(item);
    const error = !parsed.ok
      ? parsed.error
      : (check(parsed.value) ??
        (seen.has(parsed.value.seq) ? `seq ${parsed.value.seq} appears twice in one batch` : undefined));
    if (error !== undefined || !parsed.ok) {
      rejected.push({ index, seq, error: (error ?? "invalid").slice(0, REJECTED_ERROR_CHARS_MAX) });
      return;
    }
    seen.add(parsed.value.seq);
    samples.push(parsed.value);
  });
  return { samples, rejected };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The body's bytes (UTF-8 JSON) to a batch every sample of which may be stored, or its refusal. */
export function readBatch(body: Uint8Array, rules: SampleRules): BatchReading {
  let json: unknown;
  try {
    json = JSON.parse(utf8.decode(body));
  } catch {
    return { ok: false, refusal: { code: "BAD_JSON", error: "body is not valid JSON" } };
  }
  const envelope = parseWith(sampleBatchEnvelopeSchema, json);
  // Capped as a refused sample's error is: an unknown key's name is echoed in the message, and may be most of the body.
  if (!envelope.ok)
    return { ok: false, refusal: { code: "INVALID_BATCH", error: envelope.error.slice(0, REJECTED_ERROR_CHARS_MAX) } };
  const { samples, rejected } = parseSamples(envelope.value.samples, sampleCheck(rules));
  if (rejected.length > 0) {
    const first = rejected[0]!;
    return {
      ok: false,
      refusal: {
        error: `${rejected.length} of ${envelope.value.samples.length} samples refused (samples.${first.index}.${first.error}); nothing stored`,
        code: "INVALID_SAMPLES",
        rejected,
      },
    };
  }
  return { ok: true, batch: { ...envelope.value, samples } };
}

/** readBatch, then the store's write, on the calling thread (PostgreSQL, in-process SQLite). */
export async function ingestHere<M>(
  body: Uint8Array,
  rules: SampleRules,
  meta: M,
  insertBatch: (batch: SampleBatch, meta: M) => Promise<IngestResult>,
): Promise<BodyIngest> {
  const reading = readBatch(body, rules);
  if (!reading.ok) return reading;
  return ingested(reading.batch, await insertBatch(reading.batch, meta));
}
