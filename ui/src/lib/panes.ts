// The three panes' sizes (sidebar, session list, transcript): paneforge keeps them as
// percentages of the window and remembers them (localStorage), so these turn sizes meant in
// pixels into percentages of the window's width now. Pure functions, unit-tested.

/** A pane's size in px at first start, and the least it may be dragged to. */
const SIDEBAR = { start: 240, min: 180 };
const LIST = { start: 360, min: 260 };
/** The transcript's least: its header's buttons on two lines and a readable message column. */
const TRANSCRIPT_MIN = 420;

export interface PaneSizes {
  /** Percentages, summing to 100. */
  defaults: [number, number, number];
  mins: [number, number, number];
}

const pct = (px: number, width: number) => (100 * px) / width;

/** Sizes for a window `width` px wide. When the minimums do not all fit (a window narrower than
 * they add up to) they shrink together, leaving each its share. */
export function paneSizes(width: number): PaneSizes {
  const w = Math.max(1, width);
  const minPx = [SIDEBAR.min, LIST.min, TRANSCRIPT_MIN];
  const room = Math.min(1, (0.98 * w) / minPx.reduce((a, b) => a + b, 0));
  const mins = minPx.map((m) => pct(m * room, w)) as [number, number, number];
  // The side panes start at their width unless that leaves the transcript less than half the window.
  // (Half the window for the transcript, or its least when that is more.)
  const sideStart = Math.min(SIDEBAR.start + LIST.start, Math.max((SIDEBAR.min + LIST.min) * room, w - Math.max(TRANSCRIPT_MIN, w / 2)));
  const share = sideStart / (SIDEBAR.start + LIST.start);
  const sidebar = Math.max(mins[0], pct(SIDEBAR.start * share, w));
  const list = Math.max(mins[1], pct(LIST.start * share, w));
  return { defaults: [sidebar, list, 100 - sidebar - list], mins };
}
