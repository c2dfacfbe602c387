// A control prober for the injected-delay measurement (testkit/injected-delay.ts): Node clients (no browser)
// sending the same three requests a page sends to B (GET /echo, GET /jsonp,
// a WebSocket echo) through the same proxy, every PACE_MS, recording each
// round trip with its send time. Their shift between phases is what the proxy
// really added: its own timer wake-ups run late on a busy machine, and that
// lateness is the proxy's, not the page's.
import http from "node:http";
import { echoOnce, openEchoSocket } from "./ws-echo.js";

const PACE_MS = 250;

export interface ControlSample {
  method: "xhr" | "jsonp" | "ws";
  t: number;
  ms: number;
}

export interface ProxyControl {
  stop(): Promise<ControlSample[]>;
}

export async function startProxyControl(baseUrl: string): Promise<ProxyControl> {
  const out: ControlSample[] = [];
  let running = true;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  const ws = await openEchoSocket(baseUrl);
  const get = (path: string) =>
    new Promise<void>((resolve, reject) => {
      http
        .get(`${baseUrl}${path}`, { agent }, (res) => {
          res.resume();
          res.on("end", () => resolve());
        })
        .on("error", reject);
    });
  let wsId = 0;
  const wsEcho = () => echoOnce(ws, wsId++);
  const loop = async (method: ControlSample["method"], once: () => Promise<void>) => {
    while (running) {
      const t = Date.now();
      const s = performance.now();
      await once();
      out.push({ method, t, ms: performance.now() - s });
      await new Promise((r) => setTimeout(r, PACE_MS));
    }
  };
  const loops = Promise.all([
    loop("xhr", () => get("/echo")),
    loop("jsonp", () => get(`/jsonp?callback=control_${wsId}`)),
    loop("ws", wsEcho),
  ]);
  return {
    async stop() {
      running = false;
      await loops;
      ws.close();
      agent.destroy();
      return out;
    },
  };
}
