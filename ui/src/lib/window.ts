// The session list's window: the list as one flat run of fixed-height items (top-level
// sessions, and the subagents of the opened ones), their offsets, and which of them fall near
// the viewport. Only those are in the DOM, so 5,000 sessions scroll and repaint like 50.
// Pure functions, unit-tested; SessionList.svelte renders them.

import type { SessionMeta } from "./types";

/** One row of the flattened list. */
export interface ListItem {
  s: SessionMeta;
  /** A subagent under an opened session (aria-level 2). */
  child: boolean;
  /** The session's index among the top-level sessions (the list's cursor); -1 for a child. */
  index: number;
  /** Its place among its siblings (aria-posinset) and how many there are (aria-setsize). */
  pos: number;
  size: number;
  /** How many subagents it has (a top-level session with some shows a line under its row). */
  subs: number;
  expanded: boolean;
}

/** Heights in px: a session row, and the "▸ N subagents" line under a parent's row. The rows'
 * CSS fixes them, so offsets need no measuring. */
export const ROW_HEIGHT = 32;
export const SUBS_HEIGHT = 20;

export function itemHeight(it: ListItem): number {
  return ROW_HEIGHT + (it.subs ? SUBS_HEIGHT : 0);
}

/** The top-level sessions in order, each followed by its subagents when it is opened. */
export function flatten(sessions: SessionMeta[], children: Map<string, SessionMeta[]>, expanded: Set<string>): ListItem[] {
  const out: ListItem[] = [];
  sessions.forEach((s, index) => {
    const kids = children.get(s.id) ?? [];
    const open = kids.length > 0 && expanded.has(s.id);
    out.push({ s, child: false, index, pos: index + 1, size: sessions.length, subs: kids.length, expanded: open });
    if (open) {
      kids.forEach((c, j) => out.push({ s: c, child: true, index: -1, pos: j + 1, size: kids.length, subs: 0, expanded: false }));
    }
  });
  return out;
}

/** offsets[i] is item i's top; offsets[items.length] the list's height. */
export function offsetsOf(items: ListItem[]): number[] {
  const out = new Array<number>(items.length + 1);
  out[0] = 0;
  for (let i = 0; i < items.length; i++) out[i + 1] = out[i] + itemHeight(items[i]);
  return out;
}

/** The items [start, end) that overlap the band [top, bottom) (list coordinates). */
export function windowOf(offsets: number[], top: number, bottom: number): { start: number; end: number } {
  const count = offsets.length - 1;
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid + 1] <= top) lo = mid + 1;
    else hi = mid;
  }
  let end = lo;
  while (end < count && offsets[end] < bottom) end++;
  return { start: lo, end };
}

/** The flat index of the parent of child item `i` (the nearest top-level item above it). */
export function parentOf(items: ListItem[], i: number): number | null {
  if (!items[i]?.child) return null;
  for (let j = i - 1; j >= 0; j--) if (!items[j].child) return j;
  return null;
}
