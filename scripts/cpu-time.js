// Runs one command of a test lane and, when it ends, prints how much CPU it
// and every process it started (and waited for) used, user + system, as one
// line the lane runner (scripts/test-lanes.js) takes out of the lane's output.
// Linux only (/proc/self/stat's cutime and cstime); elsewhere the figure is null.
// Usage: node scripts/cpu-time.js COMMAND [ARG...]; exits with the command's status.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import { fileURLToPath } from "node:url";

/** Prefix of the line that carries the figure; the runner filters it out. */
export const CPU_LINE_PREFIX = "@@tailprobe-lane-cpu ";

/** Seconds of CPU used by this process's children that have ended and been waited for, or null. */
function childrenCpuSeconds() {
  try {
    // Fields after the command name's ") ": state is field 3, cutime 16, cstime 17 (proc(5)).
    const fields = (fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1] ?? "").split(" ");
    const ticks = Number(fields[16 - 3]) + Number(fields[17 - 3]);
    const hz = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    return Number.isFinite(ticks) ? ticks / hz : null;
  } catch {
    return null;
  }
}

/** Runs the command given on the command line, then prints the CPU line. */
function main() {
  const [command, ...args] = process.argv.slice(2);
  if (command === undefined) {
    process.stderr.write("usage: node scripts/cpu-time.js COMMAND [ARG...]\n");
    process.exit(2);
  }
  const child = spawn(command, args, { stdio: "inherit" });
  for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) process.on(signal, () => child.kill(signal));
  child.on("error", (err) => {
    process.stderr.write(`${command}: ${err.message}\n`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => {
    process.stdout.write(`\n${CPU_LINE_PREFIX}${JSON.stringify({ cpuS: childrenCpuSeconds() })}\n`);
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
