// Starts a server as a child process for a benchmark and resolves once it
// prints the address it listens on (tailprobe and the bare baselines alike
// print "listening on http://HOST:PORT").
import { spawn, type ChildProcess } from "node:child_process";

export function startChild(cmd: string[], label: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, cmd, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.once("exit", (code) => reject(new Error(`${label} exited with ${code}`)));
  });
}
