// Identifier shapes shared by the CLI, the wire protocol and the store.

/** Server names appear in URLs, tables and the database: keep them short and plain. */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;
/** A best-of-two target names both legs' servers: "A+B". */
export const TARGET_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.+-]{0,64}$/;
/** clientId and sessionId are random tokens minted by the page. */
export const CLIENT_TOKEN_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;
/**
 * JSONP callback names: one plain JavaScript identifier of at most 64
 * characters. No `.`, `[` or `(`: a dotted name would let a hostile page make
 * this server's script call any reachable method (`a.constructor...`), so the
 * body can never become anything but a guarded call of a global function.
 */
export const JSONP_CALLBACK_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/;

const RESERVED_WORDS = new Set([
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "export",
  "extends",
  "finally",
  "for",
  "function",
  "if",
  "import",
  "in",
  "instanceof",
  "new",
  "return",
  "super",
  "switch",
  "this",
  "throw",
  "try",
  "typeof",
  "var",
  "void",
  "while",
  "with",
  "yield",
  "let",
  "static",
  "enum",
  "await",
  "implements",
  "package",
  "protected",
  "interface",
  "private",
  "public",
  "null",
  "true",
  "false",
  "eval",
  "arguments",
]);

export function isValidJsonpCallback(name: unknown): name is string {
  return typeof name === "string" && JSONP_CALLBACK_PATTERN.test(name) && !RESERVED_WORDS.has(name);
}

export function best2Target(wsServer: string, jsonpServer: string): string {
  return `${wsServer}+${jsonpServer}`;
}

export function isServerName(name: string): boolean {
  return SERVER_NAME_PATTERN.test(name);
}

/** "A+B": two server names, the best-of-two race's WebSocket leg's then its JSONP leg's (best2Target). */
export function isBest2Target(target: string): boolean {
  const plus = target.indexOf("+");
  return plus > 0 && isServerName(target.slice(0, plus)) && isServerName(target.slice(plus + 1));
}
