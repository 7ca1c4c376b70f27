// Keyboard movement in the directory tree and the session list (both ARIA trees): arrow keys
// move focus between the visible items, Home/End to the ends, Right/Left open and close an item
// with children (or step into/out of them), Enter and Space act on the item (native buttons).

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

/** Handles a keydown inside an ARIA tree; `ontoggle(item)` opens or closes an item. */
export function treeKeydown(e: KeyboardEvent, ontoggle: (item: HTMLElement) => void) {
  const tree = e.currentTarget as HTMLElement;
  const items = [...tree.querySelectorAll<HTMLElement>('[role="treeitem"]')];
  const at = items.indexOf(document.activeElement as HTMLElement);
  if (at < 0) return;
  const item = items[at];
  // The item's own button acts on Enter and Space; the window's shortcuts must not as well.
  if (e.key === "Enter" || e.key === " ") {
    e.stopPropagation();
    return;
  }
  const moved = nextIndex(e.key, at, items.length);
  if (moved !== null) {
    e.preventDefault();
    e.stopPropagation();
    focusItem(items, moved);
    return;
  }
  const expanded = item.hasAttribute("aria-expanded") ? item.getAttribute("aria-expanded") === "true" : null;
  const action = expandAction(e.key, expanded);
  if (!action) return;
  e.preventDefault();
  e.stopPropagation();
  if (action === "open" || action === "close") ontoggle(item);
  else if (action === "child") focusItem(items, at + 1);
  else {
    const parent = item.closest('[role="group"]')?.parentElement?.querySelector<HTMLElement>('[role="treeitem"]');
    if (parent) focusItem(items, items.indexOf(parent));
  }
}

function focusItem(items: HTMLElement[], index: number) {
  const next = items[index];
  if (!next) return;
  for (const i of items) i.tabIndex = i === next ? 0 : -1;
  next.focus();
  next.scrollIntoView({ block: "nearest" });
}
