import { describe, expect, it, vi } from "vitest";
import { addDays, compact, dayRange, daySeries, dollars, emptyGroup, fullCount, heatmap, heatmapEnd, longDay, mostActive, shortDay } from "./figures";
import type { StatsGroup } from "./types";

const g = (key: string, sessions: number, input = 0): StatsGroup => ({ ...emptyGroup(key), sessions, tokens: { input, output: 0, cache_read: 0, cache_write: 0 } });

describe("figures", () => {
  it("writes counts short, as axes read them", () => {
    expect(compact(40_000_000)).toBe("40 M");
    expect(compact(1_234)).toBe("1.2 k");
    expect(compact(950)).toBe("950");
    expect(compact(0)).toBe("0");
    expect(compact(999_999)).toBe("1 M");
    expect(compact(12_345_678)).toBe("12 M");
    expect(compact(3_500_000_000)).toBe("3.5 B");
    expect(compact(2.5)).toBe("2.5");
    expect(compact(-1500)).toBe("-1.5 k");
  });

  it("writes money with a dollar sign", () => {
    expect(dollars(0)).toBe("$0");
    expect(dollars(0.25)).toBe("$0.25");
    expect(dollars(12.4)).toBe("$12");
    expect(dollars(2)).toBe("$2");
    expect(dollars(1500)).toBe("$1.5 k");
  });

  it("lists every day of a range, empty days included, undated ones left out", () => {
    const groups = [g("(none)", 4), g("2026-11-28", 1), g("2026-12-02", 3)];
    expect(dayRange(groups)).toEqual({ from: "2026-11-28", to: "2026-12-02" });
    const series = daySeries(groups, "2026-11-28", "2026-12-02");
    expect(series.map((d) => d.key)).toEqual(["2026-11-28", "2026-11-29", "2026-11-30", "2026-12-01", "2026-12-02"]);
    expect(series.map((d) => d.sessions)).toEqual([1, 0, 0, 0, 3]);
    // Across a month's and a year's end, and a leap day.
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2028-03-01", -1)).toBe("2028-02-29");
    expect(dayRange([g("(none)", 1)])).toBeNull();
  });

  it("lays a year out in weeks from Monday, shaded by quarters of the busiest day", () => {
    // 2026-12-06 is a Sunday: the last column is a full week, Monday 2026-11-30 to it.
    const cols = heatmap([g("2026-12-01", 8), g("2026-12-02", 1), g("2026-12-03", 4), g("2025-01-01", 99)], "2026-12-06");
    expect(cols).toHaveLength(53);
    expect(cols.every((c) => c.length === 7)).toBe(true);
    const last = cols[52];
    expect(last.map((d) => d?.day)).toEqual(["2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04", "2026-12-05", "2026-12-06"]);
    expect(last.map((d) => d?.level)).toEqual([0, 4, 1, 2, 0, 0, 0]);
    expect(cols[0][0]?.day).toBe("2025-12-01");
    // A day outside the year does not set the scale; a week cut by the end is padded.
    const mid = heatmap([g("2026-12-02", 2)], "2026-12-02");
    expect(mid[52].map((d) => d?.day ?? null)).toEqual(["2026-11-30", "2026-12-01", "2026-12-02", null, null, null, null]);
    expect(mid[52][2]?.level).toBe(4);
  });

  it("ends the heatmap today, unless the store is older than a year or ahead of the clock", () => {
    expect(heatmapEnd([g("2026-11-30", 1)], "2026-12-06")).toBe("2026-12-06");
    expect(heatmapEnd([g("2024-05-01", 1)], "2026-12-06")).toBe("2024-05-01");
    expect(heatmapEnd([g("2026-12-08", 1)], "2026-12-06")).toBe("2026-12-08");
    expect(heatmapEnd([], "2026-12-06")).toBe("2026-12-06");
  });

  it("ranks the most active groups by sessions, then tokens", () => {
    const top = mostActive([g("/a", 2, 10), g("/b", 5), g("/c", 2, 50), g("/d", 0)], 3);
    expect(top.map((t) => t.key)).toEqual(["/b", "/c", "/a"]);
  });

  it("names a day on an axis by month and day", () => {
    expect(shortDay("2026-11-30")).toBe("Nov 30");
    expect(shortDay("(none)")).toBe("(none)");
  });

  it("names a day in a tooltip with its weekday and year, and a count in full", () => {
    expect(longDay("2026-11-30")).toBe("Mon, Nov 30, 2026");
    expect(longDay("(none)")).toBe("(none)");
    expect(fullCount(1234567)).toBe("1,234,567");
  });

  it("labels a year of days without building a formatter per label", () => {
    // Each toLocale…String call given a locale builds a new formatter (in WebKit an ICU one,
    // hundreds of KB of C heap): the heatmap's labels, built again on every refresh while a
    // 300 MB store was indexed, left 30–40 MB of freed heap in the page's process.
    const built = [
      vi.spyOn(Date.prototype, "toLocaleDateString"),
      vi.spyOn(Date.prototype, "toLocaleString"),
      vi.spyOn(Number.prototype, "toLocaleString"),
      vi.spyOn(Intl, "DateTimeFormat"),
      vi.spyOn(Intl, "NumberFormat"),
    ];
    try {
      const days = heatmap([], "2026-11-30").flat().filter((d) => d !== null);
      const labels = days.map((d) => `${longDay(d.day)} ${shortDay(d.day)} ${fullCount(d.sessions + 1000)}`);
      expect(labels.length).toBeGreaterThan(360);
      expect(labels[labels.length - 1]).toBe("Mon, Nov 30, 2026 Nov 30 1,000");
      for (const spy of built) expect(spy).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
  });
});
