// Tells the reader which baselines a server cannot measure and why, e.g.
// "B: ping unavailable: not permitted to send ICMP: …", so an empty Ping row
// is never mistaken for a perfect network.
import { configSchema, parseWith, type BaselineStatus } from "../../../shared/contract/index.js";

/** How often the servers' baseline status is read again (ms). */
const NOTICES_REFRESH_MS = 60_000;

const BASELINE_NAMES: Record<string, string> = { ping: "ping", wsping: "WebSocket ping", tcprtt: "kernel TCP RTT" };

interface Notice {
  server: string;
  baseline: string;
  text: string;
}

async function readConfig(baseUrl: string) {
  const res = await fetch(`${baseUrl}/api/config`, { cache: "no-store" });
  if (!res.ok) throw new Error(`GET ${baseUrl || ""}/api/config answered ${res.status}`);
  const parsed = parseWith(configSchema, await res.json());
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

function noticesOf(server: string, baselines: Record<string, BaselineStatus>): Notice[] {
  return Object.entries(baselines).flatMap(([baseline, s]) => {
    if (s.available && s.reason === undefined) return [];
    const name = BASELINE_NAMES[baseline] ?? baseline;
    // available with a reason: works, but not towards every client (e.g. one address unreachable).
    const what = s.available ? `${name} unavailable for some clients` : `${name} unavailable`;
    return [{ server, baseline, text: `${server}: ${what}: ${s.reason ?? "no reason given"}` }];
  });
}

async function collect(): Promise<Notice[]> {
  const home = await readConfig("");
  const out = noticesOf(home.name, home.baselines);
  // Peers are asked directly: only they know whether they can ping.
  const peers = await Promise.allSettled(home.servers.slice(1).map((s) => readConfig(s.url)));
  peers.forEach((r, i) => {
    const server = home.servers[i + 1]!.name;
    if (r.status === "fulfilled") out.push(...noticesOf(r.value.name, r.value.baselines));
    else
      out.push({
        server,
        baseline: "all",
        text: `${server}: baseline status unknown (${(r.reason as Error).message})`,
      });
  });
  return out;
}

function render(el: HTMLElement, notices: Notice[]): void {
  el.replaceChildren(
    ...notices.map((n) => {
      const p = document.createElement("p");
      p.dataset.server = n.server;
      p.dataset.baseline = n.baseline;
      p.textContent = n.text;
      p.style.margin = "0.15rem 0";
      return p;
    }),
  );
  el.hidden = notices.length === 0;
}

/** Fills `el` with the servers' baseline notices and keeps them current. */
export function mountNotices(el: HTMLElement): void {
  const update = () =>
    collect().then(
      (n) => render(el, n),
      (err: unknown) =>
        render(el, [{ server: "", baseline: "all", text: `baseline status unknown: ${(err as Error).message}` }]),
    );
  void update();
  setInterval(() => {
    if (document.visibilityState === "visible") void update();
  }, NOTICES_REFRESH_MS);
}
