// Runs a tests/python/*.py script with a Python that has Debian's
// python3-scipy, python3-pandas and python3-prometheus-client (which .ci/run
// installs) and parses the JSON it prints: statistics checked against SciPy,
// exports read by pandas, /metrics read by the Prometheus client's own parser.
import { execFileSync } from "node:child_process";
import path from "node:path";

/** /usr/bin/python3 first: a pyenv or venv python3 earlier on PATH may lack Debian's packages. */
const INTERPRETERS = ["/usr/bin/python3", "python3"];
const MODULES = ["scipy", "pandas", "prometheus_client"];

let found: string | undefined;

export function testPython(): string {
  if (found !== undefined) return found;
  for (const python of INTERPRETERS) {
    try {
      execFileSync(python, ["-c", MODULES.map((m) => `import ${m}`).join("; ")], { stdio: "ignore" });
      found = python;
      return python;
    } catch {
      // this interpreter lacks a module: try the next
    }
  }
  throw new Error(
    `no python3 with ${MODULES.join(", ")}: install python3-scipy python3-pandas python3-prometheus-client (.ci/run does)`,
  );
}

/** Runs tests/python/NAME with `args`, `input` on its stdin, and parses its stdout as JSON. */
export function runPythonScript(name: string, args: string[] = [], input?: string): unknown {
  const out = execFileSync(testPython(), [path.resolve("tests/python", name), ...args], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
    ...(input === undefined ? {} : { input }),
  });
  return JSON.parse(out) as unknown;
}
