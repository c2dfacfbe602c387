// A Node client's side of tailprobe's WebSocket echo, as a page speaks it:
// open /ws, send {type: "echo", id}, wait for those exact bytes back (the
// server's `served` notes and baselines in between are not the answer).
import WebSocket from "ws";

export async function openEchoSocket(baseUrl: string): Promise<WebSocket> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/ws`, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  return ws;
}

/** One echo round trip on an open socket; resolves when the message came back. */
export function echoOnce(ws: WebSocket, id: number): Promise<void> {
  const msg = JSON.stringify({ type: "echo", id });
  return new Promise<void>((resolve) => {
    const onMessage = (d: WebSocket.RawData) => {
      if (d.toString() !== msg) return;
      ws.off("message", onMessage);
      resolve();
    };
    ws.on("message", onMessage);
    ws.send(msg);
  });
}
