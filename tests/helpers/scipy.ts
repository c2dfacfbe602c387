// Runs a tests/scipy/*.py script with a Python that has SciPy (Debian's
// python3-scipy, which .ci/run installs) and parses the JSON it prints.
import { execFileSync } from "node:child_process";
import path from "node:path";

/** /usr/bin/python3 first: a pyenv or venv python3 earlier on PATH may lack Debian's scipy. */
const INTERPRETERS = ["/usr/bin/python3", "python3"];

export function scipyPython(): string {
  for (const python of INTERPRETERS) {
    try {
      execFileSync(python, ["-c", "import scipy"], { stdio: "ignore" });
      return python;
    } catch {
      // not this one: try the next
    }
  }
  throw new Error("no python3 with SciPy found: install python3-scipy (.ci/run does)");
}

export function runScipyScript(name: string): unknown {
  const out = execFileSync(scipyPython(), [path.resolve("tests/scipy", name)], { encoding: "utf8", maxBuffer: 64 << 20 });
  return JSON.parse(out) as unknown;
}
