// A TCP port on loopback that nothing listens on, for a helper process (a
// database, a proxy, Prometheus) that must be told its port up front. Another
// process could take it before the helper binds; on a test machine that race
// is rare enough, and the helper then fails to start, loudly.
import net from "node:net";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}
