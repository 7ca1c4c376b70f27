import { describe, expect, it } from "vitest";
import { expandAction, nextIndex, treeKey } from "./treenav";

describe("tree and list keys", () => {
  it("moves within the items and stops at the ends", () => {
    expect(nextIndex("ArrowDown", 0, 3)).toBe(1);
    expect(nextIndex("ArrowDown", 2, 3)).toBe(2);
    expect(nextIndex("ArrowUp", 0, 3)).toBe(0);
    expect(nextIndex("ArrowUp", 2, 3)).toBe(1);
    expect(nextIndex("Home", 2, 3)).toBe(0);
    expect(nextIndex("End", 0, 3)).toBe(2);
    expect(nextIndex("ArrowDown", 0, 0)).toBeNull();
    expect(nextIndex("j", 0, 3)).toBeNull();
    expect(nextIndex("Enter", 0, 3)).toBeNull();
  });

  it("opens a closed item, steps into an open one, closes it, and steps out of a leaf", () => {
    expect(expandAction("ArrowRight", false)).toBe("open");
    expect(expandAction("ArrowRight", true)).toBe("child");
    expect(expandAction("ArrowRight", null)).toBeNull();
    expect(expandAction("ArrowLeft", true)).toBe("close");
    expect(expandAction("ArrowLeft", false)).toBe("parent");
    expect(expandAction("ArrowLeft", null)).toBe("parent");
    expect(expandAction("ArrowDown", true)).toBeNull();
  });

  it("turns a key into a move or a toggle over the whole flat tree", () => {
    const parent = () => 1;
    const top = () => null;
    expect(treeKey("ArrowDown", 3, 10, null, parent)).toEqual({ focus: 4 });
    expect(treeKey("End", 3, 10, null, parent)).toEqual({ focus: 9 });
    expect(treeKey("ArrowRight", 3, 10, false, parent)).toEqual({ toggle: 3 });
    expect(treeKey("ArrowRight", 3, 10, true, parent)).toEqual({ focus: 4 });
    expect(treeKey("ArrowLeft", 3, 10, true, parent)).toEqual({ toggle: 3 });
    expect(treeKey("ArrowLeft", 3, 10, null, parent)).toEqual({ focus: 1 });
    expect(treeKey("ArrowLeft", 3, 10, false, top)).toBeNull();
    expect(treeKey("ArrowRight", 3, 10, null, parent)).toBeNull();
    expect(treeKey("x", 3, 10, null, parent)).toBeNull();
  });
});
