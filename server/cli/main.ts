// The tailprobe command: parses flags, starts servers, prints where things are.
import path from "node:path";
import { startServer, type RunningServer } from "../app.js";
import { DB_PATH_DEFAULT, parseServeArgs, serveHelp, type ServeOptions } from "./options.js";
import { demoHelp, parseDemoArgs } from "./demo-options.js";
import { isPostgresUrl } from "../store/postgres/dialect.js";

const USAGE = `Usage: tailprobe <command> [flags]

Commands:
  serve    run one echo server that also serves the probe and histogram pages
  demo     run server A and a local server B as its peer (what npm start runs)

Run 'tailprobe <command> --help' for the flags of a command.`;

function die(message: string): never {
  process.stderr.write(`tailprobe: ${message}\n`);
  process.exit(2);
}

function announce(server: RunningServer, options: ServeOptions, home: boolean): void {
  // The store's own name for it: a file's absolute path, or the URL with its password replaced.
  const db =
    server.store.location === options.dbPath && !isPostgresUrl(options.dbPath)
      ? path.resolve(options.dbPath)
      : server.store.location;
  // The printed URL uses 127.0.0.1 for a wildcard bind; say that others can reach it too.
  const everywhere = options.host === "0.0.0.0" || options.host === "::";
  if (home) {
    console.log(`tailprobe ${options.name} listening on ${server.url}`);
    console.log(`  probe page:     ${server.url}/`);
    console.log(`  histogram page: ${server.url}/histogram`);
    console.log(`  database:       ${db}`);
    if (everywhere)
      console.log(
        `  bound to every interface (--host ${options.host}): use this machine's name instead of 127.0.0.1 elsewhere`,
      );
  } else {
    console.log(`tailprobe ${options.name} (peer) listening on ${server.url}, database ${db}`);
  }
}

function closeOnSignal(servers: RunningServer[]): void {
  let closing = false;
  const stop = () => {
    if (closing) process.exit(1);
    closing = true;
    Promise.all(servers.map((s) => s.close())).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

async function serve(argv: string[]): Promise<void> {
  const parsed = parseServeArgs(argv);
  if (!parsed.ok) die(`${parsed.error}\n\n${serveHelp()}`);
  if (parsed.value === "help") {
    console.log(serveHelp());
    return;
  }
  const options = parsed.value;
  const server = await startServer(options, { testHooks: testHooksEnabled() });
  announce(server, options, true);
  closeOnSignal([server]);
}

/** Test-only hooks (a planted echo stall) exist only when the tests ask for them; never set in production. */
function testHooksEnabled(): boolean {
  return process.env.TAILPROBE_TEST_HOOKS === "1";
}

async function demo(argv: string[]): Promise<void> {
  const parsed = parseDemoArgs(argv);
  if (!parsed.ok) die(`${parsed.error}\n\n${demoHelp()}`);
  if (parsed.value === "help") {
    console.log(demoHelp());
    return;
  }
  const { a, b } = parsed.value;
  const serverB = await startServer(b);
  const serverA = await startServer({ ...a, peers: [{ name: b.name, url: serverB.url }] });
  announce(serverB, b, false);
  announce(serverA, a, true);
  closeOnSignal([serverA, serverB]);
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "serve":
        return await serve(rest);
      case "demo":
        return await demo(rest);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        console.log(USAGE);
        return;
      default:
        die(`unknown command '${command}'\n\n${USAGE}`);
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "EADDRINUSE") die(`port already in use (${e.message}); choose another with --port`);
    if (e.code === "EACCES") die(`not permitted: ${e.message}`);
    die(e.message ?? String(err));
  }
}

export { DB_PATH_DEFAULT };
