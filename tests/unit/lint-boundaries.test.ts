// The import boundaries in biome.json hold: each rule is shown failing on a
// violation planted in a temporary file where the rule applies, and the same
// import shown passing where it does not (bench/, scripts/, tests/ and
// testkit/ may import anything). The planted files live in the tree for the
// length of one `biome lint` run, since biome matches its overrides by path.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const BIOME = path.resolve("node_modules/.bin/biome");
const RESTRICTED = "lint/style/noRestrictedImports";
const NODE_PROTOCOL = "lint/style/useNodejsImportProtocol";

interface Plant {
  /** Folder the file is planted in, from the repository's root. */
  dir: string;
  /** The import statement planted (the rest of the file uses what it imports). */
  imports: string;
  /** The rule expected to fire, or null where the import is allowed. */
  rule: string | null;
  /** A fragment of the rule's message, naming the boundary. */
  message?: string;
}

const PLANTS: Plant[] = [
  {
    dir: "client/src/probe",
    imports: 'import { x } from "../../../server/app.js";',
    rule: RESTRICTED,
    message: "client/ never imports server/",
  },
  {
    dir: "client/src/histogram",
    imports: 'export { x } from "../../../server/store/open.js";',
    rule: RESTRICTED,
    message: "client/ never imports server/",
  },
  {
    dir: "shared/contract",
    imports: 'import { x } from "../../client/src/probe/plan.js";',
    rule: RESTRICTED,
    message: "imports neither client/ nor server/",
  },
  {
    dir: "shared",
    imports: 'import { x } from "../server/query/stats.js";',
    rule: RESTRICTED,
    message: "imports neither client/ nor server/",
  },
  { dir: "shared", imports: 'import x from "node:fs";', rule: RESTRICTED, message: "no Node APIs" },
  { dir: "shared", imports: 'import x from "fs";', rule: NODE_PROTOCOL },
  {
    dir: "server/store/sqlite",
    imports: 'import { x } from "../postgres/store.js";',
    rule: RESTRICTED,
    message: "never imports the PostgreSQL engine",
  },
  {
    dir: "server/store/postgres",
    imports: 'import { x } from "../sqlite/store.js";',
    rule: RESTRICTED,
    message: "never imports the SQLite engine",
  },
  {
    dir: "server/store",
    imports: 'import { x } from "../query/queries.js";',
    rule: RESTRICTED,
    message: "never imports server/query/",
  },
  {
    dir: "server/store/sqlite",
    imports: 'import { x } from "../../query/queries.js";',
    rule: RESTRICTED,
    message: "never imports server/query/",
  },
  {
    dir: "server/store",
    imports: 'import { x } from "./sqlite/store.js";',
    rule: RESTRICTED,
    message: "engine-neutral",
  },
  // Allowed: the same kinds of import where no boundary applies.
  { dir: "server/store/sqlite", imports: 'import { x } from "../read-pool.js";', rule: null },
  { dir: "client/src/probe", imports: 'import { x } from "../../../shared/stats.js";', rule: null },
  { dir: "bench", imports: 'import { x } from "../server/app.js";', rule: null },
  { dir: "scripts", imports: 'import { x } from "../client/src/probe/plan.js";', rule: null },
  { dir: "tests/unit", imports: 'import { x } from "../../server/app.js";', rule: null },
  { dir: "testkit", imports: 'import x from "node:fs";', rule: null },
];

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string };
}

const planted = PLANTS.map((p, i) => path.join(p.dir, `planted-${process.pid}-${i}.ts`));

/** Plants every file, lints them in one run, removes them, and returns each file's diagnostics. */
function lintPlants(): Map<string, Diagnostic[]> {
  let stdout: string;
  try {
    PLANTS.forEach((p, i) => fs.writeFileSync(planted[i]!, `${p.imports}\n\nexport const used = x;\n`));
    stdout = spawnSync(BIOME, ["lint", "--reporter=json", ...planted], { encoding: "utf8" }).stdout;
  } finally {
    for (const f of planted) fs.rmSync(f, { force: true });
  }
  const report = JSON.parse(stdout) as { diagnostics: Diagnostic[] };
  const files = planted;
  const byFile = new Map<string, Diagnostic[]>(files.map((f) => [f, []]));
  for (const d of report.diagnostics) byFile.get(d.location.path)?.push(d);
  return byFile;
}

describe("import cycles (biome.json)", () => {
  it("two files that import each other fail with noImportCycles", () => {
    const a = path.join("server/query", `planted-cycle-${process.pid}-a.ts`);
    const b = path.join("server/query", `planted-cycle-${process.pid}-b.ts`);
    let stdout: string;
    try {
      fs.writeFileSync(a, `import { b } from "./${path.basename(b, ".ts")}.js";\n\nexport const a = b;\n`);
      fs.writeFileSync(
        b,
        `import { a } from "./${path.basename(a, ".ts")}.js";\n\nexport const b = 1;\nexport const c = a;\n`,
      );
      stdout = spawnSync(BIOME, ["lint", "--reporter=json", a, b], { encoding: "utf8" }).stdout;
    } finally {
      fs.rmSync(a, { force: true });
      fs.rmSync(b, { force: true });
    }
    const report = JSON.parse(stdout) as { diagnostics: Diagnostic[] };
    const cycles = report.diagnostics.filter((d) => d.category === "lint/suspicious/noImportCycles");
    expect(cycles.map((d) => d.location.path).sort()).toEqual([a, b].sort());
  });
});

describe("import boundaries (biome.json)", () => {
  const byFile = lintPlants();
  PLANTS.forEach((p, i) => {
    const file = planted[i]!;
    it(`${p.dir}: ${p.imports} ${p.rule === null ? "passes" : `fails with ${p.rule}`}`, () => {
      const found = byFile.get(file)!;
      const errors = found.filter((d) => d.category === RESTRICTED || d.category === NODE_PROTOCOL);
      if (p.rule === null) {
        expect(errors).toEqual([]);
        return;
      }
      expect(errors.map((d) => d.category)).toEqual([p.rule]);
      if (p.message !== undefined) expect(errors[0]!.message).toContain(p.message);
    });
  });
});
