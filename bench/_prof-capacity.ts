import { spawn } from "node:child_process";
import { startNodeServer, BIN, tempDir } from "../testkit/server-process.js";
import { pacedEcho } from "./paced-echo.js";
import { summarize } from "../shared/stats.js";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const extra = process.argv.slice(2);
const server = await startNodeServer(["--cpu-prof", "--cpu-prof-dir=/tmp/prof-cap", BIN, "serve", "--port", "0", "--db", tempDir() + "/p.db", ...extra], { echoStderr: true });
const gen = spawn(process.execPath, ["--import", "tsx", "bench/capacity-tabs.ts", server.url, "500"], { stdio: ["pipe", "ignore", "inherit"] });
for (const n of [500, 1000, 2000]) { gen.stdin!.write(`tabs ${n}\n`); await sleep(6000); }
const e = await pacedEcho(server.url, 30);
console.log("echo", JSON.stringify(summarize(e.ms)));
gen.stdin!.write("stop\n"); await sleep(3000); gen.kill("SIGKILL");
await server.stop();
