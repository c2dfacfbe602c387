// What differs between the SQL the query layer writes (SQLite's) and what
// PostgreSQL accepts, kept to the one thing that must differ: `?` placeholders
// become `$1, $2, …`. Everything else the shared queries use is portable
// (`+session` is PostgreSQL's unary plus too: harmless there, a planner hint in SQLite).

/** `?` outside string literals and quoted identifiers → `$n`. */
export function toPostgresPlaceholders(sql: string): string {
  let out = "";
  let n = 0;
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "?") {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  return out;
}

/** Whether --db names a PostgreSQL database rather than an SQLite file. */
export const isPostgresUrl = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db);

/** The URL without its password, for logs and errors (the password is never printed). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== "") u.password = "***";
    return u.toString();
  } catch {
    return "postgres://(unparsable URL)";
  }
}

/** Replaces every occurrence of the URL's password (and the URL itself) in a text; passwords under 4 characters would blank ordinary words, and are left. */
export function scrubber(url: string): (text: string) => string {
  let password = "";
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    password = "";
  }
  const env = process.env.PGPASSWORD ?? "";
  const secrets = [url, password, env].filter((s) => s.length >= 4);
  return (text) => secrets.reduce((t, s) => t.split(s).join(s === url ? redactUrl(url) : "***"), text);
}
