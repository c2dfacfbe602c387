// The live view's cadence: drawn in every housekeeping slot while someone is
// at the page, at most every UNATTENDED_RENDER_MS when nobody has been for
// ATTENDED_MS, and at once again at the first sign of a person.
import { describe, expect, it } from "vitest";
import { ATTENDED_MS, RenderCadence, UNATTENDED_RENDER_MS } from "../../client/src/probe/render-cadence.js";

/** Housekeeping slots once a second from t = 0 to endMs (exclusive); the times the view was drawn. */
function drawnAt(
  cadence: RenderCadence,
  clock: { now: number },
  fromMs: number,
  endMs: number,
  attendAt: number[] = [],
): number[] {
  const drawn: number[] = [];
  for (let t = fromMs; t < endMs; t += 1000) {
    clock.now = t;
    if (attendAt.includes(t)) cadence.attend();
    if (cadence.take()) drawn.push(t);
  }
  return drawn;
}

describe("RenderCadence", () => {
  it("draws every slot for ATTENDED_MS after the page starts, then every UNATTENDED_RENDER_MS", () => {
    const clock = { now: 0 };
    const cadence = new RenderCadence(() => clock.now);
    const drawn = drawnAt(cadence, clock, 0, ATTENDED_MS + 5 * UNATTENDED_RENDER_MS);
    const attended = drawn.filter((t) => t < ATTENDED_MS);
    expect(attended).toEqual(Array.from({ length: ATTENDED_MS / 1000 }, (_, i) => i * 1000));
    const later = drawn.filter((t) => t >= ATTENDED_MS);
    expect(later.length).toBe(5);
    for (let i = 1; i < later.length; i++) expect(later[i]! - later[i - 1]!).toBe(UNATTENDED_RENDER_MS);
    expect(cadence.attended()).toBe(false);
  });

  it("draws at the next slot after a sign of a person, and every slot for ATTENDED_MS after it", () => {
    const clock = { now: 0 };
    const cadence = new RenderCadence(() => clock.now);
    const quietFrom = ATTENDED_MS + 3 * UNATTENDED_RENDER_MS;
    drawnAt(cadence, clock, 0, quietFrom);
    // Half-way between two slow draws: the slot right after the sign draws, not the next slow one.
    const attendAt = quietFrom + UNATTENDED_RENDER_MS / 2;
    const drawn = drawnAt(cadence, clock, quietFrom, attendAt + ATTENDED_MS + 1000, [attendAt]);
    expect(drawn).toContain(attendAt);
    const afterSign = drawn.filter((t) => t >= attendAt && t < attendAt + ATTENDED_MS);
    expect(afterSign.length).toBe(ATTENDED_MS / 1000);
    expect(cadence.attended(attendAt + ATTENDED_MS - 1)).toBe(true);
    expect(cadence.attended(attendAt + ATTENDED_MS)).toBe(false);
  });

  it("a sign while attended extends the live period without an extra draw", () => {
    const clock = { now: 0 };
    const cadence = new RenderCadence(() => clock.now);
    const drawn = drawnAt(cadence, clock, 0, 2 * ATTENDED_MS, [ATTENDED_MS - 1000]);
    // Live from 0 until ATTENDED_MS after the sign at ATTENDED_MS − 1 s: one draw per slot, no more.
    expect(drawn.filter((t) => t < 2 * ATTENDED_MS - 1000)).toEqual(
      Array.from({ length: (2 * ATTENDED_MS) / 1000 - 1 }, (_, i) => i * 1000),
    );
  });
});
