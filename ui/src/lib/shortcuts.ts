// The keys of the window, as the ? overlay lists them. The session actions' keys come from the
// session menu (lib/actions.ts), so the list cannot drift from what the keys do.

import { SESSION_MENU } from "./actions";

export interface Shortcut {
  keys: string[];
  what: string;
}

export const SHORTCUTS: Shortcut[] = [
  { keys: ["Ctrl-K", "/"], what: "Search messages" },
  { keys: ["n", "N"], what: "Next / previous search hit (the results stay open)" },
  { keys: ["j", "k"], what: "Move down / up the session list" },
  { keys: ["Enter"], what: "Open the session under the cursor" },
  ...SESSION_MENU.filter((m) => m.key).map((m) => ({ keys: [m.key!], what: `${m.label.replace(/…$/, "")} (the open session, else the one under the cursor)` })),
  { keys: [","], what: "Settings" },
  { keys: ["↑", "↓", "←", "→"], what: "Move in the directory tree and the list; open and close an item" },
  { keys: ["Menu", "Shift-F10"], what: "The focused session's menu" },
  { keys: ["Escape"], what: "Close the search, a menu or a dialog" },
  { keys: ["?"], what: "This list" },
];

/** Whether a key press asks for this list: "?" with nothing but Shift. */
export const isHelpKey = (e: Pick<KeyboardEvent, "key" | "ctrlKey" | "altKey" | "metaKey">): boolean =>
  e.key === "?" && !e.ctrlKey && !e.altKey && !e.metaKey;
