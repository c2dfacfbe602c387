#!/usr/bin/env node
// Entry point of the tailprobe command; the code lives in dist/ (npm run build).
import { existsSync } from "node:fs";

const entry = new URL("../dist/server/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("tailprobe: not built yet; run `npm run build` in the tailprobe folder first\n");
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv.slice(2));
