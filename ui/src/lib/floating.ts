// Menus, popovers and the context menu are placed by @floating-ui/dom: beside what opened them,
// flipped to the other side when there is no room, shifted along to stay inside the window and
// capped to the room left (it scrolls inside then). Hand-placed with CSS they ran out of the
// window at its default size (Export's "Save as…" read "Sav", the bundle's secrets warning and
// "Continue in…"'s explanation were cut at the right edge).

import { autoUpdate, computePosition, flip, offset, shift, size, type Placement, type Platform, type ReferenceElement } from "@floating-ui/dom";

/** The gap kept between a floating element and the window's edges, and its opener. */
export const EDGE = 8;
const GAP = 4;

/** Where a floating element goes, and the most room it may take (it scrolls inside beyond). */
export interface Placed {
  left: number;
  top: number;
  maxWidth: number;
  maxHeight: number;
  placement: Placement;
}

/** Computes where `floating` goes beside `reference` (`platform`: a stand-in for tests). */
export async function place(
  reference: ReferenceElement, floating: HTMLElement, placement: Placement = "bottom-start", platform?: Partial<Platform>,
): Promise<Placed> {
  let room = { width: Infinity, height: Infinity };
  const done = await computePosition(reference, floating, {
    placement,
    strategy: "fixed",
    middleware: [
      offset(GAP),
      flip({ padding: EDGE, fallbackAxisSideDirection: "end" }),
      shift({ padding: EDGE }),
      size({ padding: EDGE, apply: ({ availableWidth, availableHeight }) => { room = { width: availableWidth, height: availableHeight }; } }),
    ],
    ...(platform ? { platform: platform as Platform } : {}),
  });
  return { left: done.x, top: done.y, maxWidth: Math.max(0, room.width), maxHeight: Math.max(0, room.height), placement: done.placement };
}

/** A point of the window as something to place beside (a right click's position). */
export function pointAt(x: number, y: number): ReferenceElement {
  return { getBoundingClientRect: () => ({ x, y, left: x, top: y, right: x, bottom: y, width: 0, height: 0 }) };
}

export interface FloatingOptions {
  /** What it opens from: an element, or a point (`pointAt`); null: its parent element. */
  anchor?: ReferenceElement | null;
  placement?: Placement;
}

/** A Svelte action: `node` (position: fixed) is kept placed beside its anchor while mounted,
 * again on scrolls, resizes and its own size changes. */
export function floating(node: HTMLElement, options: FloatingOptions = {}) {
  let opts = options;
  node.style.position = "fixed";
  node.style.left = "0px";
  node.style.top = "0px";
  const anchor = () => opts.anchor ?? node.parentElement!;
  const update = () => {
    void place(anchor(), node, opts.placement).then((p) => {
      Object.assign(node.style, {
        left: `${p.left}px`, top: `${p.top}px`, maxWidth: `${p.maxWidth}px`, maxHeight: `${p.maxHeight}px`, overflow: "auto",
      });
      node.dataset.placement = p.placement;
    });
  };
  let stop = autoUpdate(anchor(), node, update);
  return {
    update(next: FloatingOptions) {
      opts = next;
      stop();
      stop = autoUpdate(anchor(), node, update);
    },
    destroy() {
      stop();
    },
  };
}
