// Windows for long lists: the session list and the directory tree as one flat run of
// fixed-height items (top-level sessions and the subagents of the opened ones; the tree's open
// nodes), their offsets, and which of them fall near the viewport. Only those are in the DOM, so
// 5,000 sessions or 2,000 directories scroll and repaint like 50. Pure functions, unit-tested,
// and the two small DOM helpers both components use to follow their scrolling pane
// (SessionList.svelte and Tree.svelte render them).

import { sessionKey, type TreeNode } from "./group";
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

/** Heights in px: a session row (two lines: title; project, agent, count and date), and the
 * "▸ N subagents" line under a parent's row. The rows' CSS fixes them, so offsets need no
 * measuring. */
export const ROW_HEIGHT = 44;
export const SUBS_HEIGHT = 20;

export function itemHeight(it: ListItem): number {
  return ROW_HEIGHT + (it.subs ? SUBS_HEIGHT : 0);
}

/** The top-level sessions in order, each followed by its subagents when it is opened
 * (`children` and `expanded` keyed by `sessionKey`). */
export function flatten(sessions: SessionMeta[], children: Map<string, SessionMeta[]>, expanded: Set<string>): ListItem[] {
  const out: ListItem[] = [];
  sessions.forEach((s, index) => {
    const key = sessionKey(s);
    const kids = children.get(key) ?? [];
    const open = kids.length > 0 && expanded.has(key);
    out.push({ s, child: false, index, pos: index + 1, size: sessions.length, subs: kids.length, expanded: open });
    if (open) {
      kids.forEach((c, j) => out.push({ s: c, child: true, index: -1, pos: j + 1, size: kids.length, subs: 0, expanded: false }));
    }
  });
  return out;
}

/** offsets[i] is item i's top; offsets[items.length] the list's height. */
export function offsetsOf<T>(items: T[], height: (item: T) => number): number[] {
  const out = new Array<number>(items.length + 1);
  out[0] = 0;
  for (let i = 0; i < items.length; i++) out[i + 1] = out[i] + height(items[i]);
  return out;
}

/** One row of the flattened directory tree ("All sessions" has no node). */
export interface TreeRow {
  node: TreeNode | null;
  key: string | null;
  /** aria-level, aria-posinset, aria-setsize. */
  level: number;
  pos: number;
  size: number;
  /** Open or closed for a node with children, null for a leaf. */
  expanded: boolean | null;
  /** The flat index of its parent row; null at the top. */
  parent: number | null;
}

/** Height in px of a tree row (Tree.svelte's CSS fixes it). */
export const TREE_ROW_HEIGHT = 24;

/** "All sessions", then the nodes in order, each followed by its children unless collapsed. */
export function flattenTree(nodes: TreeNode[], collapsed: Set<string>): TreeRow[] {
  const out: TreeRow[] = [{ node: null, key: null, level: 1, pos: 1, size: nodes.length + 1, expanded: null, parent: null }];
  const walk = (list: TreeNode[], level: number, parent: number | null, first: number) => {
    list.forEach((node, i) => {
      const open = node.children.length ? !collapsed.has(node.key) : null;
      const at = out.length;
      out.push({ node, key: node.key, level, pos: first + i, size: list.length + first - 1, expanded: open, parent });
      if (open) walk(node.children, level + 1, at, 1);
    });
  };
  // "All sessions" is the top level's first item.
  walk(nodes, 1, null, 2);
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

/** The viewport of a list's scrolling ancestor in the list's coordinates: its top (negative
 * while the list starts lower down the pane) and height. */
export interface Band {
  top: number;
  height: number;
}

/** Follows the pane `list` scrolls in: calls `set` with the band now and on every scroll and
 * resize. `measure` measures again (after the list changed); `stop` ends it. */
export function followViewport(list: HTMLElement, set: (band: Band) => void) {
  const scroller = scrollParent(list);
  const measure = () => {
    set({ top: scroller.getBoundingClientRect().top - list.getBoundingClientRect().top, height: scroller.clientHeight });
  };
  measure();
  scroller.addEventListener("scroll", measure, { passive: true });
  const resized = new ResizeObserver(measure);
  resized.observe(scroller);
  const stop = () => {
    scroller.removeEventListener("scroll", measure);
    resized.disconnect();
  };
  return { scroller, measure, stop };
}

function scrollParent(el: HTMLElement): HTMLElement {
  for (let p = el.parentElement; p; p = p.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(p).overflowY)) return p;
  }
  return document.scrollingElement as HTMLElement;
}

/** Scrolls `list`'s pane so that the item at `offset` is near the middle, when it is outside
 * the window (not rendered): it gets rendered, and can then be scrolled into view exactly. */
export function scrollToOffset(scroller: HTMLElement, list: HTMLElement, offset: number) {
  const listTop = list.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop;
  scroller.scrollTop = Math.max(0, listTop + offset - scroller.clientHeight / 2);
}

/** The flat index of the parent of child item `i` (the nearest top-level item above it). */
export function parentOf(items: ListItem[], i: number): number | null {
  if (!items[i]?.child) return null;
  for (let j = i - 1; j >= 0; j--) if (!items[j].child) return j;
  return null;
}
