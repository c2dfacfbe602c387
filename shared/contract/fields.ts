// Field shapes every direction of the contract uses: times, latencies,
// counts, ids and the (method, target) key of a series.
import { CLIENT_TOKEN_PATTERN } from "../names.js";
import { z } from "../zod.js";

/** Any latency above this (ms) is a bug, not a measurement: one day. */
export const LATENCY_MS_MAX = 86_400_000;
/**
 * Both stores keep every duration as whole µs; SQLite's raw blocks take
 * integers within ±2^52 (server/store/raw-block.ts), so a duration the
 * contract accepts stays below 2^52 µs (142 years).
 */
export const STORED_US_MAX = 2 ** 52;
/** How long a page may have been hidden when it sent a probe (ms): as much as the stores keep. */
export const HIDDEN_MS_MAX = Math.floor(STORED_US_MAX / 1000);
/** Epoch-ms bounds: 2001-09-09 .. 2286-11-20, catches seconds-vs-ms mix-ups. */
export const EPOCH_MS_MIN = 1_000_000_000_000;
export const EPOCH_MS_MAX = 9_999_999_999_999;

/**
 * A UTF-16 surrogate without its other half: JSON can carry one ("\ud800"),
 * UTF-8 cannot (SQLite would keep invalid bytes, PostgreSQL replaces or
 * refuses them). With the u flag a well-formed pair is one code point, so
 * only a lone half matches.
 */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** Text both stores keep as sent: no lone surrogate. */
export const isWellFormed = (text: string): boolean => !LONE_SURROGATE.test(text);

/** A time (epoch ms, integer) as the page or a server sends it. */
export const epochMs = z.int().check(z.minimum(EPOCH_MS_MIN), z.maximum(EPOCH_MS_MAX));
/** A latency (ms) as measured. */
export const latencyMs = z.number().check(z.minimum(0), z.maximum(LATENCY_MS_MAX));
/** clientId and sessionId: random tokens minted by the page. */
export const token = z.string().check(z.regex(CLIENT_TOKEN_PATTERN));

// In answers: what the server computed, checked for type only.
export const ms = z.number();
export const nullableMs = z.nullable(ms);
export const count = z.int().check(z.minimum(0));
export const positiveInt = z.int().check(z.minimum(1));

/** One (method, target) pair: the unit every chart draws. */
export const seriesKeyShape = { method: z.string().check(z.maxLength(32)), target: z.string().check(z.maxLength(80)) };
const seriesKeySchema = z.object(seriesKeyShape);
export type SeriesKey = z.infer<typeof seriesKeySchema>;
