import { describe, expect, it } from "vitest";
import { paneSizes } from "./panes";

describe("pane sizes", () => {
  for (const width of [800, 1000, 1280, 1920, 2560]) {
    it(`at ${width} px: defaults sum to 100, each at least its minimum, and the minimums fit`, () => {
      const { defaults, mins } = paneSizes(width);
      expect(defaults.reduce((a, b) => a + b, 0)).toBeCloseTo(100);
      defaults.forEach((d, i) => expect(d).toBeGreaterThanOrEqual(mins[i] - 1e-9));
      expect(mins.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(100);
    });
  }

  it("at 1000×700 the transcript gets half the window or more (it had 360 px of 1000)", () => {
    const [, , transcript] = paneSizes(1000).defaults;
    expect((transcript * 1000) / 100).toBeGreaterThanOrEqual(500);
  });

  it("on a wide window the side panes keep their pixel widths, not a share of it", () => {
    const [sidebar, list] = paneSizes(2560).defaults;
    expect((sidebar * 2560) / 100).toBeCloseTo(240);
    expect((list * 2560) / 100).toBeCloseTo(360);
  });

  it("at 1000 px the sidebar starts at 200 px, not squeezed to its minimum", () => {
    const [sidebar] = paneSizes(1000).defaults;
    expect((sidebar * 1000) / 100).toBeCloseTo(200);
  });

  it("a list never starts narrower than its minimum of 260 px where the window has room", () => {
    const [, list] = paneSizes(1000).defaults;
    expect((list * 1000) / 100).toBeGreaterThanOrEqual(260);
  });
});
