// The ingest's reader of one sample: the same contract as sampleSchema,
// checked by hand. Every sample of every batch passes through it on the
// server's event loop, where zod (jitless, as the CSP requires) took most of
// an ingest's time; tests/unit/sample-reader.test.ts holds the two to the same
// verdict on generated and mutated samples, so the schema stays the contract.
import { BEST2_LEGS, METHODS, OUTCOMES } from "../methods.js";
import { CLIENT_TOKEN_PATTERN, TARGET_PATTERN } from "../names.js";
import { STRESS_PHASES } from "../stress/phases.js";
import { fail, ok, type Result } from "../result.js";
import { EPOCH_MS_MAX, EPOCH_MS_MIN, HIDDEN_MS_MAX, LATENCY_MS_MAX } from "./fields.js";
import { REASON_UNKNOWN_ERROR, SAMPLE_REASONS } from "./reasons.js";
import { samplePairProblem } from "./sample-pairs.js";
import type { Sample } from "./samples.js";

type Check = (v: unknown) => string | undefined;

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

const range =
  (min: number, max: number, integer: boolean): Check =>
  (v) =>
    (integer ? Number.isSafeInteger(v) : isNumber(v)) && (v as number) >= min && (v as number) <= max
      ? undefined
      : `expected ${integer ? "an integer" : "a number"} from ${min} to ${max}`;

const oneOf = (values: readonly string[], error = `expected one of ${values.join(", ")}`): Check => {
  const known = new Set<unknown>(values);
  return (v) => (known.has(v) ? undefined : error);
};

const bool: Check = (v) => (typeof v === "boolean" ? undefined : "expected a boolean");
const epoch = range(EPOCH_MS_MIN, EPOCH_MS_MAX, true);
const latency = range(0, LATENCY_MS_MAX, false);
const nullableLatency: Check = (v) => (v === null ? undefined : latency(v));

/** Every field the contract knows, whether it must be there, and its check. */
const FIELDS = new Map<string, { required: boolean; check: Check }>([
  ["seq", { required: true, check: range(0, Number.MAX_SAFE_INTEGER, true) }],
  ["t", { required: true, check: epoch }],
  ["method", { required: true, check: oneOf(METHODS) }],
  [
    "target",
    {
      required: true,
      check: (v) => (typeof v === "string" && TARGET_PATTERN.test(v) ? undefined : "expected a server name"),
    },
  ],
  ["ms", { required: true, check: nullableLatency }],
  ["outcome", { required: true, check: oneOf(OUTCOMES) }],
  ["scheduledT", { required: false, check: epoch }],
  ["reason", { required: false, check: oneOf(SAMPLE_REASONS, REASON_UNKNOWN_ERROR) }],
  ["winner", { required: false, check: oneOf(BEST2_LEGS) }],
  ["otherMs", { required: false, check: nullableLatency }],
  ["otherOutcome", { required: false, check: oneOf(OUTCOMES) }],
  ["minrtt", { required: false, check: latency }],
  ["lateMs", { required: false, check: latency }],
  ["visibleAtSend", { required: false, check: bool }],
  ["visibleAtReply", { required: false, check: bool }],
  ["hiddenMs", { required: false, check: range(0, HIDDEN_MS_MAX, false) }],
  ["froze", { required: false, check: bool }],
  ["fresh", { required: false, check: bool }],
  ["serverLagMs", { required: false, check: latency }],
  ["serverMs", { required: false, check: latency }],
  ["reportInFlight", { required: false, check: bool }],
  [
    "stressRun",
    {
      required: false,
      check: (v) => (typeof v === "string" && CLIENT_TOKEN_PATTERN.test(v) ? undefined : "expected a run token"),
    },
  ],
  ["load", { required: false, check: oneOf(STRESS_PHASES) }],
]);
const REQUIRED = [...FIELDS].filter(([, f]) => f.required).map(([name]) => name);

/**
 * One sample as parsed JSON, read against the contract: the sample itself
 * (no copy: it has no key the contract does not know) or what is wrong with
 * it, as "field: problem".
 */
export function readSample(input: unknown): Result<Sample> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return fail("expected an object");
  const record = input as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const field = FIELDS.get(key);
    if (field === undefined) return fail(`unrecognized key: "${key}"`);
    const value = record[key];
    if (value === undefined && !field.required) continue;
    const problem = field.check(value);
    if (problem !== undefined) return fail(`${key}: ${problem}`);
  }
  for (const key of REQUIRED) if (!Object.hasOwn(record, key)) return fail(`${key}: required`);
  const sample = input as Sample;
  const problem = samplePairProblem(sample);
  return problem === undefined ? ok(sample) : fail(problem);
}
