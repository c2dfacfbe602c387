// POST /api/samples: the batch limit and the 400 INVALID_SAMPLES refusal, apart
// from the sample schemas (samples.ts re-exports them) so that the probe page,
// which parses only the refusal, does not carry schemas it never parses.
import { z } from "../zod.js";

/** Largest batch one POST /api/samples may carry. */
export const BATCH_SAMPLES_MAX = 1000;
/** Characters of the error given per refused sample. */
export const REJECTED_ERROR_CHARS_MAX = 300;

/** One sample of a refused batch that can never be stored, by its place in the batch. */
export const rejectedSampleSchema = z.object({
  index: z.int().check(z.minimum(0), z.maximum(BATCH_SAMPLES_MAX - 1)),
  /** The sample's seq when it had a readable one. */
  seq: z.nullable(z.int().check(z.minimum(0))),
  error: z.string().check(z.maxLength(REJECTED_ERROR_CHARS_MAX)),
});
export type RejectedSample = z.infer<typeof rejectedSampleSchema>;

/** 400 INVALID_SAMPLES: nothing of the batch was stored; without the samples named here it would be. */
export const sampleRefusalSchema = z.object({
  error: z.string(),
  code: z.literal("INVALID_SAMPLES"),
  rejected: z.array(rejectedSampleSchema).check(z.minLength(1), z.maxLength(BATCH_SAMPLES_MAX)),
});
export type SampleRefusal = z.infer<typeof sampleRefusalSchema>;
