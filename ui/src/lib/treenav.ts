// Keyboard movement in the directory tree and the session list (both ARIA trees, windowed:
// lib/window.ts): arrow keys move focus between the visible items, rendered or not, Home/End to
// the ends, Right/Left open and close an item with children (or step into/out of them), Enter
// and Space act on the item (native buttons).

/** Where focus goes from item `current` of `count` on `key`; null: the key is not ours. */
export function nextIndex(key: string, current: number, count: number): number | null {
  if (count === 0) return null;
  switch (key) {
    case "ArrowDown": return Math.min(current + 1, count - 1);
    case "ArrowUp": return Math.max(current - 1, 0);
    case "Home": return 0;
    case "End": return count - 1;
    default: return null;
  }
}

/** What Right/Left does on an item: open or close it, or move to its first child or parent. */
export function expandAction(key: string, expanded: boolean | null): "open" | "close" | "child" | "parent" | null {
  if (key === "ArrowRight") return expanded === false ? "open" : expanded ? "child" : null;
  if (key === "ArrowLeft") return expanded ? "close" : "parent";
  return null;
}

/** What a key does on item `at` of a flat tree of `count` items (rendered or not): focus
 * another item, or open/close this one; null when the key is not the tree's. `expanded` is the
 * item's state (null: no children); `parent` finds its parent's index (null at the top). */
export function treeKey(
  key: string, at: number, count: number, expanded: boolean | null, parent: () => number | null,
): { focus: number } | { toggle: number } | null {
  const moved = nextIndex(key, at, count);
  if (moved !== null) return { focus: moved };
  const action = expandAction(key, expanded);
  if (action === "open" || action === "close") return { toggle: at };
  if (action === "child") return { focus: at + 1 };
  if (action === "parent") {
    const p = parent();
    return p === null ? null : { focus: p };
  }
  return null;
}
