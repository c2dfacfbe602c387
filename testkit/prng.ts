// Tests and benchmarks plant data with the same seeded PRNG the page's bootstrap uses (shared/prng.ts).
export { mulberry32 as prng } from "../shared/prng.js";
