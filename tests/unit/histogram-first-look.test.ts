// Which series the histogram and tail charts draw before any click: the
// browser's methods and ping; the other baselines wait in the legend, unless
// they are all that was chosen.
import { describe, expect, it } from "vitest";
import { drawnAtFirst } from "../../client/src/histogram/chart-style.js";

describe("the charts' first look", () => {
  const all = ["xhr", "jsonp", "ws", "best2", "ping", "wsping", "tcprtt", "tcpminrtt"];
  it("draws the browser's methods and ping, and leaves the other baselines one click away", () => {
    expect(all.filter((m) => drawnAtFirst(m, all))).toEqual(["xhr", "jsonp", "ws", "best2", "ping"]);
  });
  it("draws the other baselines when only they were chosen", () => {
    expect(["wsping", "tcprtt"].every((m) => drawnAtFirst(m, ["wsping", "tcprtt"]))).toBe(true);
    expect(drawnAtFirst("tcprtt", ["tcprtt", "xhr"])).toBe(false);
  });
});
