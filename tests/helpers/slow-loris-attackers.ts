// The slow-loris test's attackers, in their own process so the test's honest
// prober shares no event loop with them. Each attacker connects, misbehaves
// until the server drops it, records after how long, and comes back until the
// attack ends; then the drops are printed as one JSON line.
//   node --import tsx tests/helpers/slow-loris-attackers.ts PORT ATTACK_MS '{"slowHeaders":40,…}' TRICKLE_MS
import net from "node:net";

type Kind = "slowHeaders" | "slowBody" | "silent";
interface Drop {
  kind: Kind;
  /** Which attacker of its kind (0 … count − 1). */
  attacker: number;
  afterMs: number;
}

const [portArg, attackMsArg, countsArg, trickleArg] = process.argv.slice(2);
const port = Number(portArg);
const counts = JSON.parse(countsArg ?? "{}") as Record<Kind, number>;
const TRICKLE_MS = Number(trickleArg ?? 200);
const until = performance.now() + Number(attackMsArg);

/** One attacker: connects, misbehaves until the server drops it, records when, and comes back until the attack ends. */
function attacker(kind: Kind, index: number, port: number, until: number, drops: Drop[]): Promise<void> {
  return new Promise((resolve) => {
    const round = () => {
      if (performance.now() >= until) return resolve();
      const startMs = performance.now();
      const socket = net.connect(port, "127.0.0.1");
      let timer: NodeJS.Timeout | undefined;
      // The attack's end closes the last sockets itself. Its timer may fire up to
      // a millisecond before performance.now() reaches `until` (Node's timers count
      // whole milliseconds), so the clock alone cannot tell that close from a drop.
      let closedByUs = false;
      socket.on("error", () => {});
      socket.on("data", () => {}); // the 408 the server may send before closing
      socket.once("connect", () => {
        if (kind === "slowHeaders") {
          socket.write("GET /echo HTTP/1.1\r\nHost: x\r\nX-Slow: ");
          timer = setInterval(() => socket.write("a"), TRICKLE_MS);
        } else if (kind === "slowBody") {
          socket.write(
            "POST /api/samples HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
          );
          timer = setInterval(() => socket.write(" "), TRICKLE_MS);
        }
      });
      socket.once("close", () => {
        clearInterval(timer);
        const afterMs = performance.now() - startMs;
        // Only drops by the server count.
        if (!closedByUs && performance.now() < until) drops.push({ kind, attacker: index, afterMs });
        round();
      });
      setTimeout(
        () => {
          closedByUs = true;
          socket.destroy();
        },
        Math.max(0, until - performance.now()),
      ).unref();
    };
    round();
  });
}

const drops: Drop[] = [];
const all = (Object.keys(counts) as Kind[]).flatMap((kind) =>
  Array.from({ length: counts[kind] }, (_, i) => attacker(kind, i, port, until, drops)),
);
process.stdout.write("STARTED\n");
await Promise.all(all);
process.stdout.write(`DROPS ${JSON.stringify(drops)}\n`);
