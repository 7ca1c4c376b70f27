// Placement of menus and popovers (lib/floating.ts) in a window of a given size, with a
// stand-in platform for the DOM: whatever the opener's position, the menu lies inside the
// window with the edge gap, flipped above an opener near the bottom, capped when too big.

import { describe, expect, it } from "vitest";
import type { Platform, Rect } from "@floating-ui/dom";
import { EDGE, place, pointAt } from "./floating";

/** A window `w`×`h` holding a floating element of `fw`×`fh`. */
function windowOf(w: number, h: number, fw: number, fh: number): Partial<Platform> {
  return {
    getElementRects: ({ reference }) => {
      const r = (reference as { getBoundingClientRect(): Rect }).getBoundingClientRect();
      return { reference: { x: r.x, y: r.y, width: r.width, height: r.height }, floating: { x: 0, y: 0, width: fw, height: fh } };
    },
    getClippingRect: () => ({ x: 0, y: 0, width: w, height: h }),
    getDimensions: () => ({ width: fw, height: fh }),
    isElement: () => false,
    getDocumentElement: () => ({}) as HTMLElement,
    getOffsetParent: () => undefined as unknown as Element,
    isRTL: () => false,
    convertOffsetParentRelativeRectToViewportRelativeRect: ({ rect }) => rect,
    getScale: () => ({ x: 1, y: 1 }),
  };
}

const button = (x: number, y: number, width = 90, height = 24) =>
  ({ getBoundingClientRect: () => ({ x, y, left: x, top: y, right: x + width, bottom: y + height, width, height }) });
const floatingEl = {} as HTMLElement;

function inside(p: { left: number; top: number }, fw: number, fh: number, w: number, h: number) {
  expect(p.left).toBeGreaterThanOrEqual(EDGE);
  expect(p.top).toBeGreaterThanOrEqual(EDGE);
  expect(p.left + Math.min(fw, Infinity)).toBeLessThanOrEqual(w - EDGE);
  expect(p.top + fh).toBeLessThanOrEqual(h - EDGE);
}

describe("a menu placed beside its opener", () => {
  it("opens below the opener when there is room", async () => {
    const p = await place(button(100, 40), floatingEl, "bottom-start", windowOf(1000, 700, 260, 200));
    expect(p.placement).toBe("bottom-start");
    expect(p.left).toBe(100);
    expect(p.top).toBe(40 + 24 + 4);
  });

  it("is shifted left to stay inside a window whose right edge is near the opener (Export at 1000×700)", async () => {
    const p = await place(button(930, 40), floatingEl, "bottom-start", windowOf(1000, 700, 300, 200));
    inside(p, 300, 200, 1000, 700);
  });

  it("flips above an opener near the bottom", async () => {
    const p = await place(button(100, 650), floatingEl, "bottom-start", windowOf(1000, 700, 200, 170));
    expect(p.placement.startsWith("top")).toBe(true);
    inside(p, 200, 170, 1000, 700);
  });

  it("a right click's menu at the corner stays inside", async () => {
    const p = await place(pointAt(995, 695), floatingEl, "bottom-start", windowOf(1000, 700, 200, 170));
    inside(p, 200, 170, 1000, 700);
  });

  it("caps a menu taller than the room: it scrolls inside", async () => {
    const p = await place(button(100, 40), floatingEl, "bottom-start", windowOf(1000, 300, 200, 600));
    expect(p.maxHeight).toBeLessThanOrEqual(300 - 2 * EDGE);
    expect(p.top).toBeGreaterThanOrEqual(EDGE);
  });
});
