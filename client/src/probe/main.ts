// The probe page: learns its servers, starts the clock worker, and wires
// ticks → probes → samples → outbox → home server. Ticks go through the
// scheduler (scheduler.ts): a probe slot sends its probe and nothing else;
// the housekeeping slot does the page's own work.
import "../common/page.css";
import { browserClock } from "../common/clock.js";
import { markStarted } from "../common/started.js";
import { HealthNotes } from "../report/health-notes.js";
import { browserTransport, Outbox } from "../report/outbox.js";
import { openOutboxStore } from "../report/outbox-store.js";
import { showOutboxLine, showStorageWarning } from "../report/outbox-status.js";
import { watchPageExit } from "../report/page-exit.js";
import { holdSessionLock, liveSessions } from "../report/session-lock.js";
import { localStorageSpill } from "../report/spill.js";
import { configSchema, type Config } from "../../../shared/contract/config.js";
import { parseWith } from "../../../shared/contract/parse.js";
import type { Sample } from "../../../shared/contract/samples.js";
import type { ClockStart, ClockTick } from "./clock-protocol.js";
import { loadClientId, loadLabel, randomToken } from "./identity.js";
import { LiveView } from "./live-view.js";
import { PageContext } from "./page-context.js";
import { clearResourceTimings } from "./resource-timing.js";
import { buildPlan, resolveServers } from "./plan.js";
import { Prober } from "./prober.js";
import { ATTENTION_EVENTS, RenderCadence } from "./render-cadence.js";
import { clockSlots, Scheduler } from "./scheduler.js";
import { detectEngine } from "./engine.js";
import { StressControl } from "./stress/control.js";
import { readStressRequest } from "./stress/plan.js";
import { measureTimerResolutionMs } from "./timer-resolution.js";
import { WsChannel } from "./ws-channel.js";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** Retry backoff while the home server cannot give the page its configuration (ms). */
const CONFIG_RETRY_MS_FIRST = 1000;
const CONFIG_RETRY_MS_MAX = 30_000;

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
  const clientId = loadClientId();
  const sessionId = randomToken();
  const label = loadLabel();
  holdSessionLock(sessionId);
  // Once per session, before anything else runs: every latency is a multiple of it.
  const timerResolutionMs = measureTimerResolutionMs(browserClock.monoMs) ?? undefined;
  const engine = detectEngine();
  let outboxShown = false;
  // The outbox starts before anything else: what an earlier session left goes
  // home even while this one waits for its configuration.
  const outbox = new Outbox(await openOutboxStore(), {
    endpoint: "/api/samples",
    clientId,
    sessionId,
    label,
    clock: browserClock,
    transport: browserTransport(),
    liveSessions,
    timerResolutionMs,
    engine,
    onChange: (c) => {
      outboxShown = false;
      showStorageWarning(c, $("storage-warning"));
    },
  });
  // What an earlier page spilled at pagehide joins the outbox before the first delivery.
  await outbox
    .restore(localStorageSpill.takeAll())
    .catch((err: unknown) => console.warn(`tailprobe: spilled samples not restored: ${(err as Error).message}`));
  await outbox.start();
  const exit = watchPageExit(outbox, sessionId, localStorageSpill);
  // Failures go home over the home server's socket at the next housekeeping
  // slot, not with the next report; the socket exists once the servers are known.
  let sendNote: (text: string) => boolean = () => false;
  const notes = new HealthNotes((text) => sendNote(text), browserClock);
  let sent = 0;
  let ticks = 0;
  let stressRunning = () => false;
  // Exposed for tests and for the curious: read-only facts about this session.
  (window as unknown as { tailprobe: object }).tailprobe = {
    clientId,
    sessionId,
    timerResolutionMs,
    engine,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    get sent() {
      return sent;
    },
    get ticks() {
      return ticks;
    },
    get outbox() {
      return { ...outbox.counters };
    },
    get pending() {
      return outbox.counters.pending;
    },
    get healthNotes() {
      return { ...notes.counters };
    },
    get stressActive() {
      return stressRunning();
    },
  };

  // Until the clock runs (it pumps the outbox in every housekeeping slot), a page timer does; no probe runs yet.
  const showReported = () => {
    if (outboxShown) return;
    outboxShown = true;
    showOutboxLine(outbox.counters, $("reported"));
  };
  const prePump = setInterval(() => {
    outbox.pump();
    showReported();
  }, 1000);
  let config: Config | undefined;
  for (let attempt = 0; config === undefined; attempt++) {
    try {
      config = await loadConfig();
    } catch (err) {
      const waitMs = Math.min(CONFIG_RETRY_MS_MAX, CONFIG_RETRY_MS_FIRST * 2 ** attempt);
      showStatus(
        `waiting for the home server (${(err as Error).message}); retrying in ${Math.round(waitMs / 1000)} s`,
        true,
      );
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
  clearInterval(prePump);
  const servers = resolveServers(config.servers, location.href);
  const slots = buildPlan(servers);
  const context = new PageContext();
  const live = new LiveView($<HTMLTableSectionElement>("live-rows"), $("count"));
  const cadence = new RenderCadence(browserClock.monoMs);
  for (const type of ATTENTION_EVENTS) addEventListener(type, () => cadence.attend(), { passive: true, capture: true });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") cadence.attend();
  });
  const home = servers[0]?.name;

  const blocked = servers.filter((s) => s.blockedReason !== null);
  if (blocked.length > 0) {
    const warn = $("warnings");
    warn.hidden = false;
    warn.textContent = blocked.map((s) => `${s.name}: ${s.blockedReason}`).join("\n");
  }

  const channels = new Map<string, WsChannel>();
  sendNote = (text) => (home === undefined ? false : (channels.get(home)?.note(text) ?? false));
  // The stress test (docs/stress.md): its load runs in a worker; a sample taken during a run
  // carries the run and phase it was taken in (a probe's send time, a baseline's arrival).
  // The control loads the runner and its worker when a test first begins.
  const stress = new StressControl({
    root: $("stress"),
    runner: { clientId, sessionId, endpoint: "/api/stress" },
    servers,
    homeStress: config.servers[0]?.stress,
    request: readStressRequest(location.search),
    clock: browserClock,
  });
  stressRunning = () => stress.active;
  const emit = (s: Sample, taggedAtMs = s.t) => {
    sent++;
    const tag = stress.tagAt(taggedAtMs);
    if (tag !== null) Object.assign(s, tag);
    outbox.add(s);
    live.record(s);
    notes.record(s);
  };

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
          for (const b of samples) emit(prober.baselineSample({ ...b, target: s.name }), browserClock.nowMs());
        },
      }),
    );
  }
  prober = new Prober({
    slots,
    timeoutMs: config.timeoutMs,
    channels,
    context,
    clock: browserClock,
    emit: (sample) => emit(sample),
    // Reports go to the home server only.
    reportInFlight: (server) => server === home && outbox.requestInFlight,
    onSettled: () => scheduler.onProbeSettled(),
  });
  const scheduler = new Scheduler({
    probeSlots: slots.length,
    clock: browserClock,
    probe: (tick) => prober.onTick(tick),
    reportServerProbesInFlight: () => (home === undefined ? 0 : prober.inFlightTo(home)),
    local: () => {
      notes.flush();
      outbox.commit();
      if (cadence.take()) {
        live.render(!cadence.attended());
        showReported();
      }
      for (const ch of channels.values()) ch.maintain();
      clearResourceTimings();
      stress.housekeeping();
    },
    report: (deadlineMs, nextProbeMs) => outbox.pump(deadlineMs, nextProbeMs),
  });

  exit.setAbandon(() => {
    prober.abandonInFlight();
    stress.onPageHide();
  });

  const worker = new Worker(new URL("./clock.worker.ts", import.meta.url), { type: "module" });
  worker.onmessage = (ev: MessageEvent<ClockTick>) => {
    if (ev.data.slot === 0) ticks++;
    scheduler.onTick(ev.data);
  };
  const startMsg: ClockStart = { type: "start", intervalMs: config.intervalMs, slots: clockSlots(slots.length) };
  worker.postMessage(startMsg);

  $("servers").textContent = servers.map((s) => `${s.name} ${s.baseUrl}`).join(" · ");
  showStatus(`probing ${servers.length} server${servers.length > 1 ? "s" : ""} every ${config.intervalMs} ms`);
}

start().catch((err: unknown) => showStatus(`cannot start: ${(err as Error).message}`, true));
markStarted();
