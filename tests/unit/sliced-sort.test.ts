// The sliced sort gives exactly the native sort's order, at every size around its run boundaries.
import { describe, expect, it } from "vitest";
import { Pace } from "../../server/store/pace.js";
import { RUN, slicedSort } from "../../server/query/sliced-sort.js";
import { mulberry32 } from "../../shared/prng.js";

describe("slicedSort", () => {
  const rand = mulberry32(7);
  const sizes = [0, 1, 2, RUN - 1, RUN, RUN + 1, 2 * RUN, 3 * RUN + 17, 5 * RUN - 3, 100_003];
  it.each(sizes)("sorts %i values like the native sort", async (n) => {
    // Heavy ties and a planted tail, like latencies rounded to the microsecond.
    const values = Array.from({ length: n }, () => (rand() < 0.01 ? 100 + rand() * 900 : Math.round(rand() * 50) / 10));
    const want = Float64Array.from(values).sort();
    // A zero-length slice yields at every check: the merge must survive it.
    expect(await slicedSort(values, new Pace(0))).toEqual(want);
    expect(values).toHaveLength(n); // input untouched
  });

  it("leaves the input as it was", async () => {
    const values = [3, 1, 2];
    await slicedSort(values, new Pace());
    expect(values).toEqual([3, 1, 2]);
  });
});
