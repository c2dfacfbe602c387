// A process that does nothing but use CPU: FRACTION of a core (0-1), spun in
// slices of every 10 ms. ingest-stall.ts runs it beside the echo server with
// the CPU the ingest took, to tell what any load costs the echo's tail on this
// machine from what the ingest path itself costs it. It stops by itself after
// SECONDS, should whoever started it fail to.
//   node --import tsx bench/busy-loop.ts FRACTION SECONDS
const fraction = Number(process.argv[2]);
const seconds = Number(process.argv[3]);
if (!(fraction > 0 && fraction <= 1) || !(seconds > 0 && seconds <= 600)) {
  process.stderr.write("usage: busy-loop.ts FRACTION SECONDS (0 < FRACTION <= 1, 0 < SECONDS <= 600)\n");
  process.exit(2);
}
const PERIOD_MS = 10;
const stopAt = performance.now() + seconds * 1000;
function slice(): void {
  if (performance.now() >= stopAt) return;
  const end = performance.now() + fraction * PERIOD_MS;
  while (performance.now() < end);
  setTimeout(slice, PERIOD_MS * (1 - fraction));
}
slice();
