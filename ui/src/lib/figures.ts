// Figures as the Home page and the Stats page read them: numbers on axes in short form (40 M,
// not 40000000), money with "$", days as a series with every day in it, and a year of days as
// the activity heatmap's weeks. Pure functions, unit-tested; the figures themselves are core's
// (stats.rs, through the session_stats command).

import type { StatsGroup } from "./types";

const UNITS: [number, string][] = [[1e12, "T"], [1e9, "B"], [1e6, "M"], [1e3, "k"]];

/** A count as an axis or a summary reads it: 950, 1.2 k, 40 M, 3.5 B. One decimal below ten
 * units, none above (12 M, not 12.3 M); a trailing ".0" is dropped. */
export function compact(n: number): string {
  const sign = n < 0 ? "-" : "";
  const a = Math.abs(n);
  for (const [size, unit] of UNITS) {
    // 999,950 rounds to "1000 k": it is 1 M.
    if (a >= size * 0.99995) {
      const v = a / size;
      const text = v < 9.95 ? v.toFixed(1).replace(/\.0$/, "") : Math.round(v).toString();
      return `${sign}${text} ${unit}`;
    }
  }
  return `${sign}${Number.isInteger(a) ? a : a.toFixed(1).replace(/\.0$/, "")}`;
}

/** Dollars on an axis: $0, $0.25, $12, $1.5 k. */
export function dollars(n: number): string {
  const a = Math.abs(n);
  if (a >= 1000) return `$${compact(n)}`;
  if (a >= 10 || a === 0 || Number.isInteger(a)) return `$${Math.round(n)}`;
  return `$${n.toFixed(2)}`;
}

/** Every token a group moved (input, output and both cache kinds). */
export const groupTokens = (g: Pick<StatsGroup, "tokens">): number =>
  g.tokens.input + g.tokens.output + g.tokens.cache_read + g.tokens.cache_write;

/** The UTC day `t` falls on, YYYY-MM-DD. */
export const dayOf = (t: Date): string => t.toISOString().slice(0, 10);

/** The day `n` days after `day` (before, for a negative `n`). */
export function addDays(day: string, n: number): string {
  const t = new Date(`${day}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + n);
  return dayOf(t);
}

/** An empty group for a day without sessions. */
export function emptyGroup(key: string): StatsGroup {
  return {
    key, sessions: 0, messages: 0, tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
    cost_usd: 0, with_cost: 0, estimated: 0, unpriced: 0,
  };
}

/** The groups of a by-day Stats from `from` to `to` (both YYYY-MM-DD, inclusive), every day
 * there once and in order, a day without sessions as an empty group. Undated ("(none)") and
 * out-of-range groups are left out. */
export function daySeries(groups: StatsGroup[], from: string, to: string): StatsGroup[] {
  const byDay = new Map(groups.map((g) => [g.key, g]));
  const out: StatsGroup[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(byDay.get(d) ?? emptyGroup(d));
  return out;
}

/** The dated groups' first and last day; null when none is dated. */
export function dayRange(groups: StatsGroup[]): { from: string; to: string } | null {
  const days = groups.map((g) => g.key).filter((k) => /^\d{4}-\d{2}-\d{2}$/.test(k)).sort();
  return days.length ? { from: days[0], to: days[days.length - 1] } : null;
}

/** One cell of the heatmap: a day, its sessions, and its shade (0 none … 4 the busiest). */
export interface HeatDay { day: string; sessions: number; level: 0 | 1 | 2 | 3 | 4 }

/** A year of days up to `end` as the heatmap's columns: weeks from Monday to Sunday, the first
 * week padded before the year's first day with nulls, the last after `end`. Shades are quarters
 * of the busiest day's count, so one busy day does not wash out the rest. */
export function heatmap(groups: StatsGroup[], end: string, weeks = 53): (HeatDay | null)[][] {
  const counts = new Map(groups.map((g) => [g.key, g.sessions]));
  // The Monday `weeks - 1` weeks before the week of `end`.
  const endDow = (new Date(`${end}T00:00:00Z`).getUTCDay() + 6) % 7;
  const start = addDays(end, -endDow - 7 * (weeks - 1));
  let max = 0;
  for (let d = start; d <= end; d = addDays(d, 1)) max = Math.max(max, counts.get(d) ?? 0);
  const cols: (HeatDay | null)[][] = [];
  for (let w = 0; w < weeks; w++) {
    const col: (HeatDay | null)[] = [];
    for (let i = 0; i < 7; i++) {
      const day = addDays(start, 7 * w + i);
      if (day > end) { col.push(null); continue; }
      const sessions = counts.get(day) ?? 0;
      const level = sessions === 0 ? 0 : (Math.min(4, Math.ceil((4 * sessions) / max)) as 1 | 2 | 3 | 4);
      col.push({ day, sessions, level });
    }
    cols.push(col);
  }
  return cols;
}

/** The heatmap's last day: today (UTC), or the latest session's day when that is later (a clock
 * behind the agents'), or when nothing happened in the year up to today (an old store: its own
 * last year is shown, not an empty grid). */
export function heatmapEnd(groups: StatsGroup[], today: string): string {
  const last = dayRange(groups)?.to;
  if (!last) return today;
  if (last > today || last < addDays(today, -364)) return last;
  return today;
}

/** The groups with the most sessions first (then the most tokens), the first `n`. */
export function mostActive(groups: StatsGroup[], n: number): StatsGroup[] {
  return [...groups]
    .filter((g) => g.sessions > 0)
    .sort((a, b) => b.sessions - a.sessions || groupTokens(b) - groupTokens(a) || a.key.localeCompare(b.key))
    .slice(0, n);
}

// Formatters made once. Every toLocaleString/toLocaleDateString call given a locale or options
// builds a new formatter — in WebKit an ICU one, hundreds of KB of C heap until the JS garbage
// collector frees it. The heatmap's 371 day labels and the day chart's, built again on every
// refresh while the store was indexed, left 30–40 MB of freed heap in the page's process that it
// never gave back (docs/performance.md, "The window's memory").
const COUNT = new Intl.NumberFormat("en-US");
const SHORT_DAY = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
const LONG_DAY = new Intl.DateTimeFormat("en-US", { weekday: "short", year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });

/** A count in full with thousands separators: 12,345. */
export const fullCount = (n: number): string => COUNT.format(n);

/** A YYYY-MM-DD day through `format`, or the key as it is when it is not a day ("(none)"). */
function day(key: string, format: Intl.DateTimeFormat): string {
  const t = new Date(`${key}T00:00:00Z`);
  return Number.isNaN(t.getTime()) ? key : format.format(t);
}

/** "Nov 30": a day on an axis (the year is in the tooltip and the table). */
export const shortDay = (key: string): string => day(key, SHORT_DAY);

/** "Mon, Nov 30, 2026": a day in a tooltip. */
export const longDay = (key: string): string => day(key, LONG_DAY);
