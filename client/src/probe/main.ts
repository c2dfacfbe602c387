// The probe page: learns its servers, starts the clock worker, and wires
// ticks → probes → samples → outbox → home server.
import "../common/page.css";
import { configSchema, parseWith, type Config, type Sample } from "../../../shared/protocol.js";
import type { ClockStart, ClockTick } from "./clock-protocol.js";
import { loadClientId, loadLabel, randomToken } from "./identity.js";
import { LiveView } from "./live-view.js";
import { Outbox } from "./outbox.js";
import { PageContext } from "./page-context.js";
import { buildPlan, resolveServers } from "./plan.js";
import { Prober } from "./prober.js";
import { WsChannel } from "./ws-channel.js";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

async function loadConfig(): Promise<Config> {
  const res = await fetch("/api/config", { cache: "no-store" });
  if (!res.ok) throw new Error(`GET /api/config answered ${res.status}`);
  const parsed = parseWith(configSchema, await res.json());
  if (!parsed.ok) throw new Error(`GET /api/config: ${parsed.error}`);
  return parsed.value;
}

function showStatus(text: string, bad = false): void {
  const el = $("status");
  el.textContent = text;
  el.classList.toggle("bad", bad);
}

async function start(): Promise<void> {
  const config = await loadConfig();
  const clientId = loadClientId();
  const sessionId = randomToken();
  const label = loadLabel();
  const servers = resolveServers(config.servers, location.href);
  const slots = buildPlan(servers);
  const context = new PageContext();
  const live = new LiveView($<HTMLTableSectionElement>("live-rows"));
  let sent = 0;
  let delivered = 0;

  const blocked = servers.filter((s) => s.blockedReason !== null);
  if (blocked.length > 0) {
    const warn = $("warnings");
    warn.hidden = false;
    warn.textContent = blocked.map((s) => `${s.name}: ${s.blockedReason}`).join("\n");
  }

  const outbox = new Outbox({
    endpoint: "/api/samples",
    clientId,
    sessionId,
    label,
    onDelivered: (r, pending) => {
      delivered += r.accepted + r.duplicates;
      $("reported").textContent = `${delivered} reported, ${pending} waiting`;
    },
    onFailed: (reason, pending) => {
      $("reported").textContent = `${delivered} reported, ${pending} waiting (home server: ${reason})`;
    },
  });
  const emit = (s: Sample) => {
    sent++;
    outbox.add(s);
    live.record(s);
  };

  const channels = new Map<string, WsChannel>();
  // eslint-disable-next-line prefer-const
  let prober: Prober;
  for (const s of servers) {
    if (s.blockedReason !== null) continue;
    channels.set(
      s.name,
      new WsChannel({
        url: s.wsUrl,
        hello: { clientId, sessionId },
        // A baseline is attributed to the server whose socket delivered it.
        onBaseline: (_announced, samples) => {
          for (const b of samples) emit(prober.baselineSample({ ...b, target: s.name }));
        },
      }),
    );
  }
  prober = new Prober({
    slots,
    timeoutMs: config.timeoutMs,
    channels,
    context,
    emit,
    onTick: () => {
      outbox.pump();
      $("count").textContent = `${sent} samples`;
    },
  });

  const worker = new Worker(new URL("./clock.worker.ts", import.meta.url), { type: "module" });
  worker.onmessage = (ev: MessageEvent<ClockTick>) => prober.onTick(ev.data);
  const startMsg: ClockStart = { type: "start", intervalMs: config.intervalMs, slots: slots.length };
  worker.postMessage(startMsg);

  $("servers").textContent = servers.map((s) => `${s.name} ${s.baseUrl}`).join(" · ");
  showStatus(`probing ${servers.length} server${servers.length > 1 ? "s" : ""} every ${config.intervalMs} ms`);
  // Exposed for tests and for the curious: read-only facts about this session.
  (window as unknown as { tailprobe: object }).tailprobe = {
    clientId,
    sessionId,
    get sent() {
      return sent;
    },
    get pending() {
      return outbox.pending;
    },
  };
}

start().catch((err: unknown) => showStatus(`cannot start: ${(err as Error).message}`, true));
