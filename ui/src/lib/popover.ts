// Keyboard handling shared by the header's menus and the app's panes (Export, Continue in…,
// Settings): opened from a key (`e`, `,`) or a button, the focus moves into it, so Tab and the
// arrow keys reach its controls at once (it stayed on the page behind, the first Tab landing
// on the machine picker at the top of the window); Escape closes it and the focus goes back to
// where it was.

/** The control to start on: the chosen radio button, else the first control that takes focus. */
export function firstFocus(node: HTMLElement): HTMLElement | null {
  const checked = node.querySelector<HTMLElement>("input[type=radio]:checked:not(:disabled)");
  if (checked) return checked;
  return node.querySelector<HTMLElement>(
    "input:not(:disabled), select:not(:disabled), textarea:not(:disabled), button:not(:disabled), [tabindex]:not([tabindex='-1'])",
  );
}

/** A Svelte action: focus moves in on mount and back out on destroy; Escape calls `close`. */
export function popover(node: HTMLElement, close: () => void) {
  let onclose = close;
  const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  (firstFocus(node) ?? node).focus();
  // On the node: a key from inside it is handled here and goes no further (the window's keys
  // would blur the field it came from and clear the search results).
  function onkeydown(e: KeyboardEvent) {
    if (e.key !== "Escape") return;
    e.preventDefault();
    e.stopPropagation();
    onclose();
  }
  // On the window: Escape also closes it when the focus was moved out by a click elsewhere.
  function onwindow(e: KeyboardEvent) {
    if (e.key === "Escape" && !node.contains(e.target as Node)) onclose();
  }
  node.addEventListener("keydown", onkeydown);
  window.addEventListener("keydown", onwindow);
  return {
    update(next: () => void) {
      onclose = next;
    },
    destroy() {
      node.removeEventListener("keydown", onkeydown);
      window.removeEventListener("keydown", onwindow);
      // Back to where it was (the toggle, or the page for a key) when the focus was inside or
      // nowhere: a control the user clicked meanwhile keeps it.
      const now = document.activeElement;
      if (before?.isConnected && (!now || now === document.body || node.contains(now))) before.focus();
    },
  };
}
