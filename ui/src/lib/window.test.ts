import { describe, expect, it } from "vitest";
import { ROW_HEIGHT, SUBS_HEIGHT, TREE_ROW_HEIGHT, flatten, flattenTree, itemHeight, offsetsOf, parentOf, windowOf } from "./window";
import { sessionKey, type TreeNode } from "./group";
import { session } from "./testing";

const top = ["a", "b", "c"].map((id) => session(id));
const kids = new Map([[sessionKey(top[1]), [session("b1", { parent_id: "b" }), session("b2", { parent_id: "b" })]]]);

describe("the session list's window", () => {
  it("lists a closed parent once, and its subagents after it when opened, with their ARIA places", () => {
    const closed = flatten(top, kids, new Set());
    expect(closed.map((it) => it.s.id)).toEqual(["a", "b", "c"]);
    expect(closed.map((it) => [it.index, it.pos, it.size, it.subs, it.expanded])).toEqual([
      [0, 1, 3, 0, false], [1, 2, 3, 2, false], [2, 3, 3, 0, false],
    ]);
    const open = flatten(top, kids, new Set([sessionKey(top[1])]));
    expect(open.map((it) => it.s.id)).toEqual(["a", "b", "b1", "b2", "c"]);
    expect(open.map((it) => [it.child, it.index, it.pos, it.size])).toEqual([
      [false, 0, 1, 3], [false, 1, 2, 3], [true, -1, 1, 2], [true, -1, 2, 2], [false, 2, 3, 3],
    ]);
    expect(open[1].expanded).toBe(true);
    // A child's parent is the nearest top-level row above it; a top-level row has none.
    expect([0, 2, 3, 4].map((i) => parentOf(open, i))).toEqual([null, 1, 1, null]);
  });

  it("adds up fixed heights, a parent's subagent line included", () => {
    const offsets = offsetsOf(flatten(top, kids, new Set()), itemHeight);
    expect(offsets).toEqual([0, ROW_HEIGHT, 2 * ROW_HEIGHT + SUBS_HEIGHT, 3 * ROW_HEIGHT + SUBS_HEIGHT]);
  });

  it("keeps only the items overlapping the band, at both ends and for an empty list", () => {
    const many = Array.from({ length: 5000 }, (_, i) => session(`s${i}`));
    const offsets = offsetsOf(flatten(many, new Map(), new Set()), itemHeight);
    expect(offsets[5000]).toBe(5000 * ROW_HEIGHT);
    expect(windowOf(offsets, -640, 800 + 640)).toEqual({ start: 0, end: Math.ceil(1440 / ROW_HEIGHT) });
    // A band from just below row 100's top starts at it; one ending at its bottom ends after it.
    expect(windowOf(offsets, 100 * ROW_HEIGHT + 10, 101 * ROW_HEIGHT)).toEqual({ start: 100, end: 101 });
    expect(windowOf(offsets, 100 * ROW_HEIGHT, 101 * ROW_HEIGHT + 1)).toEqual({ start: 100, end: 102 });
    expect(windowOf(offsets, 5000 * ROW_HEIGHT - 10, 5000 * ROW_HEIGHT + 500)).toEqual({ start: 4999, end: 5000 });
    expect(windowOf(offsets, 10 ** 7, 10 ** 7 + 800)).toEqual({ start: 5000, end: 5000 });
    expect(windowOf([0], 0, 800)).toEqual({ start: 0, end: 0 });
  });

  it("flattens the directory tree: All sessions first, children after open nodes, with ARIA places and parents", () => {
    const leaf = (key: string): TreeNode => ({ key, label: key, count: 1, missing: false, children: [] });
    const nodes: TreeNode[] = [
      { ...leaf("dir:/a"), children: [leaf("dir:/a/agent:claude"), leaf("dir:/a/agent:codex")] },
      leaf("dir:/b"),
    ];
    const open = flattenTree(nodes, new Set());
    expect(open.map((r) => [r.key, r.level, r.pos, r.size, r.expanded, r.parent])).toEqual([
      [null, 1, 1, 3, null, null],
      ["dir:/a", 1, 2, 3, true, null],
      ["dir:/a/agent:claude", 2, 1, 2, null, 1],
      ["dir:/a/agent:codex", 2, 2, 2, null, 1],
      ["dir:/b", 1, 3, 3, null, null],
    ]);
    const closed = flattenTree(nodes, new Set(["dir:/a"]));
    expect(closed.map((r) => [r.key, r.expanded])).toEqual([[null, null], ["dir:/a", false], ["dir:/b", null]]);
  });

  it("windows 2,000 directories to the rows near the viewport", () => {
    const many: TreeNode[] = Array.from({ length: 2000 }, (_, i) => ({
      key: `dir:/d${i}`, label: `/d${i}`, count: 1, missing: false,
      children: [{ key: `dir:/d${i}/agent:claude`, label: "Claude", count: 1, missing: false, children: [] }],
    }));
    const rows = flattenTree(many, new Set());
    expect(rows.length).toBe(4001);
    const offsets = offsetsOf(rows, () => TREE_ROW_HEIGHT);
    const { start, end } = windowOf(offsets, 50_000 - 640, 50_000 + 800 + 640);
    expect(end - start).toBe(Math.ceil(2080 / TREE_ROW_HEIGHT) + 1);
    expect(rows[start].level).toBeGreaterThan(0);
  });
});
