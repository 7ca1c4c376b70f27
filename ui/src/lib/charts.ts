// Chart.js, shared by the Home and Stats pages: loaded when a chart is first drawn, not with the
// window (≈ 200 kB a start needs none of: docs/performance.md, issue 12), and the options both
// pages use — formatted axes (40 M, $1.20), theme colours, no animation.
import type { Chart, ChartOptions, Plugin } from "chart.js";
import { compact, dollars } from "./figures";

let chartJs: Promise<typeof Chart> | null = null;

export function loadChartJs(): Promise<typeof Chart> {
  chartJs ??= import("chart.js").then((m) => {
    m.Chart.register(m.BarController, m.BarElement, m.LineController, m.LineElement, m.PointElement, m.CategoryScale, m.LinearScale, m.Tooltip, m.Legend, TICKS_ATTR);
    return m.Chart;
  });
  return chartJs;
}

/** A CSS custom property of the theme as it is now. */
export function themeColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

/** The series colours (the same in both themes: they read on light and dark). */
export const SERIES = { input: "#2f6fd6", output: "#2e8540", cacheRead: "#9aa3ad", cacheWrite: "#c18401", cost: "#a626a4", sessions: "#2f6fd6" };

export type Axis = "count" | "usd";

/** A value as its axis reads it. */
export const tick = (axis: Axis) => (v: number | string): string => (axis === "usd" ? dollars(Number(v)) : compact(Number(v)));

/** Writes the y axes' tick labels as drawn onto the canvas (data-y-ticks, data-y1-ticks, "|"
 * between them): what a canvas shows is otherwise out of reach of the e2e checks and of people
 * inspecting the page. */
export const TICKS_ATTR: Plugin = {
  id: "ticks-attr",
  afterDraw(chart) {
    for (const id of ["y", "y1"]) {
      const scale = chart.scales[id];
      if (scale) chart.canvas.dataset[`${id}Ticks`] = scale.ticks.map((t) => String(t.label)).join("|");
    }
  },
};

/** Bar-chart options: the y axes formatted, the x labels of days thinned to what fits (every bar
 * is still drawn: no day is left out), the tooltip with the full label. */
export function barOptions(opts: {
  y: Axis;
  y1?: Axis;
  stacked?: boolean;
  /** Names (directories, models) rather than days: every label shown, slanted when they crowd,
   * where days are thinned to what fits. */
  names?: boolean;
  title: (index: number) => string;
  onpick?: (index: number) => void;
}): ChartOptions<"bar"> {
  const fg = themeColor("--fg2");
  const grid = themeColor("--border");
  const y = (axis: Axis, position: "left" | "right") => ({
    position, stacked: !!opts.stacked, beginAtZero: true, grid: { color: grid, display: position === "left" },
    ticks: { color: fg, callback: tick(axis), maxTicksLimit: 6 },
  });
  return {
    responsive: true, maintainAspectRatio: false, animation: false,
    interaction: { mode: "index", intersect: false },
    scales: {
      x: { stacked: !!opts.stacked, grid: { display: false }, ticks: { color: fg, autoSkip: !opts.names, maxRotation: opts.names ? 60 : 0 } },
      y: y(opts.y, "left"),
      ...(opts.y1 ? { y1: y(opts.y1, "right") } : {}),
    },
    plugins: {
      legend: { labels: { color: fg, boxWidth: 12 } },
      tooltip: {
        callbacks: {
          title: (items) => (items.length ? opts.title(items[0].dataIndex) : ""),
          label: (item) => {
            const axis = item.dataset.yAxisID === "y1" ? opts.y1 : opts.y;
            const v = Number(item.raw);
            return `${item.dataset.label}: ${axis === "usd" ? `$${v.toFixed(2)}` : v.toLocaleString("en-US")}`;
          },
        },
      },
    },
    onClick: opts.onpick ? (_e, elements) => { if (elements.length) opts.onpick!(elements[0].index); } : undefined,
    onHover: opts.onpick ? (e, elements) => {
      const target = e.native?.target as HTMLElement | undefined;
      if (target) target.style.cursor = elements.length ? "pointer" : "";
    } : undefined,
  };
}
