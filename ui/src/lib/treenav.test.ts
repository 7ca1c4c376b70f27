import { describe, expect, it } from "vitest";
import { expandAction, nextIndex } from "./treenav";

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
});
