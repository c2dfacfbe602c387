// The stress test's flags (docs/stress.md): whether this server offers its
// load paths at all, where they listen, and what one address may spend on
// them. Parsed into the options object like every other flag (options.ts
// includes them).
import { fail, ok, type Result } from "../../shared/result.js";
import * as L from "../limits/limits-config.js";

export const STRESS_FLAGS = {
  "no-stress": {
    type: "boolean",
    help: "offer no stress test: the load paths do not listen and pages show no stress-test control",
  },
  "stress-port": {
    type: "string",
    help: "first of the two TCP ports the stress test's load paths listen on, downloads then uploads (default 0: any two free ports)",
  },
  "stress-bytes-per-hour": {
    type: "string",
    help: `bytes one address may move through the load paths per rolling hour (default ${L.STRESS_BYTES_PER_HOUR_DEFAULT}, 8 GiB)`,
  },
  "stress-streams-per-address": {
    type: "string",
    help: `load streams one address may hold at once (default ${L.STRESS_STREAMS_PER_ADDRESS_DEFAULT})`,
  },
  "stress-streams-max": {
    type: "string",
    help: `load streams the server holds at once, all addresses together (default ${L.STRESS_STREAMS_MAX_DEFAULT})`,
  },
  "stress-mbps-per-address": {
    type: "string",
    help: `Mbit/s one address's load may move per direction (default ${L.STRESS_MBPS_PER_ADDRESS_DEFAULT}; 0: as fast as it goes)`,
  },
} as const;

export const STRESS_FLAG_ARGS = {
  "stress-port": "PORT",
  "stress-bytes-per-hour": "BYTES",
  "stress-streams-per-address": "N",
  "stress-streams-max": "N",
  "stress-mbps-per-address": "MBPS",
} as const;

export interface StressOptions {
  /** false with --no-stress. */
  enabled: boolean;
  /** First of two ports (downloads, uploads); 0: any two free ports. */
  port: number;
  bytesPerHour: number;
  streamsPerAddress: number;
  streamsMax: number;
  /** Mbit/s per address and direction; 0: unpaced. */
  mbpsPerAddress: number;
}

type IntFlag = (flag: string, raw: string | undefined, dflt: number, min: number, max: number) => Result<number>;

export function parseStressFlags(values: Record<string, unknown>, intFlag: IntFlag): Result<StressOptions> {
  const int = (flag: keyof typeof STRESS_FLAG_ARGS, dflt: number, min: number, max: number) =>
    intFlag(flag, values[flag] as string | undefined, dflt, min, max);
  const port = int("stress-port", 0, 0, 65534);
  if (!port.ok) return port;
  const bytes = int(
    "stress-bytes-per-hour",
    L.STRESS_BYTES_PER_HOUR_DEFAULT,
    L.STRESS_BYTES_PER_HOUR_MIN,
    L.STRESS_BYTES_PER_HOUR_MAX,
  );
  if (!bytes.ok) return bytes;
  const perAddress = int(
    "stress-streams-per-address",
    L.STRESS_STREAMS_PER_ADDRESS_DEFAULT,
    L.STRESS_STREAMS_PER_ADDRESS_MIN,
    L.STRESS_STREAMS_PER_ADDRESS_MAX,
  );
  if (!perAddress.ok) return perAddress;
  const max = int(
    "stress-streams-max",
    L.STRESS_STREAMS_MAX_DEFAULT,
    L.STRESS_STREAMS_MAX_MIN,
    L.STRESS_STREAMS_MAX_MAX,
  );
  if (!max.ok) return max;
  const mbps = int(
    "stress-mbps-per-address",
    L.STRESS_MBPS_PER_ADDRESS_DEFAULT,
    L.STRESS_MBPS_PER_ADDRESS_MIN,
    L.STRESS_MBPS_PER_ADDRESS_MAX,
  );
  if (!mbps.ok) return mbps;
  const enabled = values["no-stress"] !== true;
  const given = Object.keys(STRESS_FLAG_ARGS).filter((f) => values[f] !== undefined);
  if (!enabled && given.length > 0)
    return fail(`--no-stress turns the load paths off; --${given[0]} has nothing to set`);
  return ok({
    enabled,
    port: port.value,
    bytesPerHour: bytes.value,
    streamsPerAddress: perAddress.value,
    streamsMax: max.value,
    mbpsPerAddress: mbps.value,
  });
}
