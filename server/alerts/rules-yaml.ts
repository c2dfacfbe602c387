// Reading a rules file's YAML nodes with their positions: each helper
// returns a value or throws a RuleError that points at the node it is about.
import { isMap, isScalar, isSeq, type Node, type Pair, type YAMLMap } from "yaml";
import type { Result } from "../../shared/result.js";
import { formatDuration } from "./rule-text.js";
import { parseDuration } from "./rule-values.js";

/** Alert and label names as Prometheus allows them. */
export const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class RuleError extends Error {
  constructor(
    readonly node: Node | Pair | null | undefined,
    message: string,
  ) {
    super(message);
  }
}

export type Fields = Map<string, Node | null>;

export function asMap(node: Node | null | undefined, what: string): YAMLMap {
  if (!isMap(node)) throw new RuleError(node, `${what} must be a mapping`);
  return node;
}

/** The mapping's fields, refusing any key not in `allowed` (a typo must not pass silently). */
export function fields(map: YAMLMap, allowed: readonly string[], what: string): Fields {
  const out: Fields = new Map();
  for (const pair of map.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : null;
    if (key === null || !allowed.includes(key))
      throw new RuleError(pair.key as Node, `unknown field '${key ?? "?"}' in ${what} (known: ${allowed.join(", ")})`);
    out.set(key, (pair.value as Node | null) ?? null);
  }
  return out;
}

export function text(node: Node | null | undefined, what: string): string {
  if (!isScalar(node) || node.value === null || typeof node.value === "object")
    throw new RuleError(node, `${what} must be a single value`);
  return String(node.value);
}

export function list(node: Node | null | undefined, what: string): string[] {
  if (isSeq(node)) return node.items.map((n) => text(n as Node, what));
  return [text(node, what)];
}

export function parsed<T>(node: Node | null | undefined, what: string, r: Result<T>): T {
  if (!r.ok) throw new RuleError(node, `${what} must be ${r.error} (got '${text(node, what)}')`);
  return r.value;
}

export function duration(node: Node | null | undefined, what: string, minMs: number, maxMs: number): number {
  const ms = parsed(node, what, parseDuration(text(node, what)));
  if (ms < minMs || ms > maxMs)
    throw new RuleError(
      node,
      `${what} must be between ${formatDuration(minMs)} and ${formatDuration(maxMs)} (got '${text(node, what)}')`,
    );
  return ms;
}

export function integer(node: Node | null | undefined, what: string, min: number, max: number): number {
  const s = text(node, what);
  if (!/^\d+$/.test(s) || Number(s) < min || Number(s) > max)
    throw new RuleError(node, `${what} must be a whole number from ${min} to ${max} (got '${s}')`);
  return Number(s);
}

export function stringMap(node: Node | null | undefined, what: string, reserved: Set<string>): Record<string, string> {
  const out: Record<string, string> = {};
  if (node === null || node === undefined) return out;
  for (const pair of asMap(node, what).items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : "";
    if (!NAME.test(key)) throw new RuleError(pair.key as Node, `${what}: '${key}' is not a valid name`);
    if (reserved.has(key))
      throw new RuleError(pair.key as Node, `${what}: '${key}' comes from the series and cannot be set`);
    out[key] = text(pair.value as Node, `${what}.${key}`);
  }
  return out;
}
