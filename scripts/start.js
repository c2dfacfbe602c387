// npm start: build if the sources are newer than the build, then run the demo
// (server A on 8080 with a local server B on 8081 as its peer).
import { spawnSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const stamp = path.join(root, "dist", "server", "cli", "main.js");
const clientStamp = path.join(root, "dist", "client", "index.html");

/** @param {string} dir @returns {number} the newest modification time of any file under dir (ms) */
function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** @param {string} file @returns {number} its modification time (ms), 0 when it does not exist */
function builtAt(file) {
  return fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0;
}

const sources = Math.max(...["client", "server", "shared"].map((d) => newestMtime(path.join(root, d))));
if (Math.min(builtAt(stamp), builtAt(clientStamp)) < sources) {
  console.log("tailprobe: building…");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["run", "--silent", "build"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const child = spawn(process.execPath, [path.join(root, "bin", "tailprobe.js"), "demo", ...process.argv.slice(2)], {
  cwd: process.cwd(),
  stdio: "inherit",
});
for (const sig of /** @type {const} */ (["SIGINT", "SIGTERM"])) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
