// The stress test's vocabulary: its phases, in the order a run goes through
// them (LibreQoS's baseline, download, upload, bidirectional, cooldown), and
// what each loads. A sample taken during a run carries its phase by name on
// the wire and in exports, and as a small code in the stores.

export const STRESS_PHASES = ["idle", "download", "upload", "bidirectional", "cooldown"] as const;
export type StressPhase = (typeof STRESS_PHASES)[number];

/** The phases that load the link; idle and cooldown are what they are compared with. */
export const LOADED_PHASES = ["download", "upload", "bidirectional"] as const;
export type LoadedPhase = (typeof LOADED_PHASES)[number];

/** What a phase loads: bytes from the server (down), to it (up), or both. */
export const PHASE_LOAD: Record<StressPhase, { down: boolean; up: boolean }> = {
  idle: { down: false, up: false },
  download: { down: true, up: false },
  upload: { down: false, up: true },
  bidirectional: { down: true, up: true },
  cooldown: { down: false, up: false },
};

/**
 * The `load` filter's values: a phase, or `none` for samples taken outside any
 * stress test (the exports' empty `load` cell).
 */
export const LOAD_NONE = "none";
export const LOAD_VALUES = [LOAD_NONE, ...STRESS_PHASES] as const;
export type LoadValue = (typeof LOAD_VALUES)[number];

/** A phase as the stores keep it: 1..5 (0 is "no stress test"), 3 bits. */
export const phaseCode = (phase: StressPhase): number => STRESS_PHASES.indexOf(phase) + 1;
/** The phase of a stored code, or null for 0 (outside a test) and codes no phase has. */
export const phaseOfCode = (code: number): StressPhase | null => STRESS_PHASES[code - 1] ?? null;
/** The stored code of a `load` filter value: 0 for `none`. */
export const loadCode = (v: LoadValue): number => (v === LOAD_NONE ? 0 : phaseCode(v));
