// Every message that crosses a process boundary is parsed from `unknown` with
// one of this module's schemas, through this one function.
import { fail, ok, type Result } from "../result.js";
import { z } from "../zod.js";

const ENGLISH = z.locales.en();

/** Parse an unknown value with a schema into a Result with a readable message. */
export function parseWith<T>(schema: z.core.$ZodType<T>, input: unknown): Result<T> {
  // zod/mini loads no messages of its own; the English ones are passed per parse.
  const r = z.safeParse(schema, input, { error: ENGLISH.localeError });
  if (r.success) return ok(r.data);
  const issue = r.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return fail(`${where}${issue?.message ?? "invalid"}`);
}
