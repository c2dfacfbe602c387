// What ICMP baselines towards many client addresses cost: one iputils `ping`
// per address (tailprobe's pinger before the bound) against one `fping` in
// loop mode over every address, for the same addresses (127.0.0.x, which all
// answer on Linux) and the same 1 s interval, in the same run. Reports CPU
// time and proportional memory (PSS) of the ping processes, and replies per second
// (one reply per address per second is asked of both).
// Run: npm run bench -- long ping-fanout  (or: npx tsx bench/ping-fanout.ts [smoke|full])
import { spawn, type ChildProcess } from "node:child_process";
import { procUsage } from "./proc-usage.js";
import type { Benchmark, BenchRow, BenchSize } from "./result.js";
import { isMain, runAlone } from "./table.js";

const SIZES = { smoke: { addresses: 20, seconds: 3 }, full: { addresses: 1000, seconds: 5 } } as const;

interface Usage {
  cpuS: number;
  pssMb: number;
  replies: number;
}

async function measure(children: ChildProcess[], seconds: number, isReply: (line: string) => boolean): Promise<Usage> {
  let replies = 0;
  let counting = false;
  for (const c of children) {
    let rest = "";
    c.stdout!.on("data", (d: Buffer) => {
      const lines = (rest + d.toString()).split("\n");
      rest = lines.pop()!;
      if (counting) replies += lines.filter(isReply).length;
    });
  }
  // One second to start up, then the measured window.
  await new Promise((r) => setTimeout(r, 1000));
  const before = procUsage(children.map((c) => c.pid!));
  counting = true;
  await new Promise((r) => setTimeout(r, seconds * 1000));
  counting = false;
  const after = procUsage(children.map((c) => c.pid!));
  for (const c of children) c.kill("SIGTERM");
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once("exit", r)))));
  return { cpuS: after.cpuS - before.cpuS, pssMb: after.pssMb, replies: replies / seconds };
}

const addressList = (n: number) =>
  Array.from({ length: n }, (_, i) => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`);

async function run(size: BenchSize): Promise<BenchRow[]> {
  const { addresses, seconds } = SIZES[size];
  const list = addressList(addresses);
  const perAddress = await measure(
    list.map((a) => spawn("ping", ["-n", "-O", "-D", "-i", "1", a], { stdio: ["ignore", "pipe", "ignore"] })),
    seconds,
    (l) => /bytes from/.test(l),
  );
  // -l loop, -p 1000 ms per target, -i 1 ms between targets (1000 targets fit in a second), -D timestamps.
  const one = await measure(
    [spawn("fping", ["-l", "-p", "1000", "-i", "1", "-D", ...list], { stdio: ["ignore", "pipe", "ignore"] })],
    seconds,
    (l) => /bytes, /.test(l),
  );
  console.log(
    `${addresses} addresses, ${seconds} s: ${addresses} × ping ${perAddress.cpuS.toFixed(2)} CPU s, ${perAddress.pssMb.toFixed(0)} MB, ` +
      `${perAddress.replies.toFixed(0)} replies/s; one fping ${one.cpuS.toFixed(2)} CPU s, ${one.pssMb.toFixed(1)} MB, ${one.replies.toFixed(0)} replies/s`,
  );
  return [
    {
      figure: `CPU over ${seconds} s, one fping (CPU s; baseline: a ping each)`,
      value: one.cpuS,
      baseline: perAddress.cpuS,
      goal: "(reported: what a process an address costs)",
      pass: null,
    },
    {
      figure: `memory (PSS), one fping (MB; baseline: a ping each)`,
      value: one.pssMb,
      baseline: perAddress.pssMb,
      goal: "(reported)",
      pass: null,
    },
    {
      // Not a goal of tailprobe's: the reason it does not use fping. 1 ms between targets is the
      // least fping allows without root, so 1,000 targets take longer than their 1 s period.
      figure: `replies, one fping at 1 ms between targets, the least without root (replies/s; baseline: a ping each)`,
      value: one.replies,
      baseline: perAddress.replies,
      goal: `(reported: under ${addresses}/s, so the server bounds its pings instead)`,
      pass: null,
    },
  ];
}

export const bench: Benchmark = {
  name: "ping-fanout",
  about: "1,000 loopback addresses pinged once a second: one iputils ping each beside one fping for all.",
  run,
  // Figures only reported, the evidence for the bounded pinger (capacity holds its goal):
  // only in `npm run bench -- long` (bench/benchmarks.ts LONG_ONLY).
  long: {
    about: "1,000 loopback addresses pinged once a second: one iputils ping each beside one fping for all.",
    run,
  },
};
if (isMain(import.meta.url)) await runAlone(bench);
