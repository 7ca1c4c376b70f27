// The window of a long list in a component (SessionList.svelte, Tree.svelte): which of its
// fixed-height items (lib/window.ts) are near the viewport of the pane it scrolls in, kept up to
// date on scroll, resize and a new list, and how to bring an item that is not rendered into view.
// Created while a component initialises (its effects belong to the component).

import { tick, untrack } from "svelte";
import { followViewport, scrollToOffset, windowOf, type Band } from "./window";

export class Windowed {
  /** The viewport in list coordinates (lib/window.ts, Band). */
  band = $state<Band>({ top: 0, height: 800 });
  /** The item that last had focus: the list's one tab stop while it is rendered. */
  focused = $state(-1);
  /** The px rendered beyond the viewport: none until the first rows are painted, so a start
   * builds only the rows in view (about half), then `overscan`. */
  private extra = $state(0);
  /** The items [start, end) in the DOM. */
  range = $derived(windowOf(this.offsets(), this.band.top - this.extra, this.band.top + this.band.height + this.extra));
  private pane: ReturnType<typeof followViewport> | null = null;

  /** `list`: the list's element once mounted; `offsets`: its items' offsets (offsetsOf);
   * `overscan`: px rendered beyond the viewport on each side once the first rows are painted. */
  constructor(
    private readonly list: () => HTMLElement | undefined,
    private readonly offsets: () => number[],
    private readonly overscan: number,
  ) {
    $effect(() => {
      const el = this.list();
      if (!el) return;
      this.pane = followViewport(el, (b) => this.setBand(b));
      return () => this.pane?.stop();
    });
    $effect(() => {
      if (this.extra || this.range.end === this.range.start) return;
      requestAnimationFrame(() => requestAnimationFrame(() => (this.extra = this.overscan)));
    });
    // Another list may have moved the scroll position, or what is above the list its top.
    $effect(() => {
      void this.offsets();
      untrack(() => this.pane?.measure());
    });
  }

  private setBand(next: Band) {
    if (next.top !== this.band.top || next.height !== this.band.height) this.band = next;
  }

  rendered(f: number): boolean {
    return f >= this.range.start && f < this.range.end;
  }

  /** The item that takes Tab: the one focused last, else `preferred` (the cursor, the
   * selection), else the first rendered, whichever is in the DOM. */
  tabStop(preferred: number): number {
    return this.rendered(this.focused) ? this.focused : this.rendered(preferred) ? preferred : this.range.start;
  }

  /** Scrolls item `f` into view: its slot first when it is outside the window (so that it is
   * rendered), then `row()`, its element. */
  async reveal(f: number, row: () => HTMLElement | null) {
    const el = this.list();
    if (!this.pane || !el) return;
    if (!this.rendered(f)) {
      scrollToOffset(this.pane.scroller, el, this.offsets()[f]);
      this.pane.measure();
      await tick();
    }
    row()?.scrollIntoView({ block: "nearest" });
  }
}
