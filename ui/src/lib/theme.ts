// The colour theme: Settings' choice (ui.theme), "system" following the OS as it changes.
// app.css keys every dark colour on <html data-theme="dark">.

import type { Theme } from "./types";

export type Drawn = "light" | "dark";

/** What to draw for `theme` when the OS prefers dark (or not). */
export function drawnTheme(theme: Theme, prefersDark: boolean): Drawn {
  if (theme === "system") return prefersDark ? "dark" : "light";
  return theme;
}

const DARK = "(prefers-color-scheme: dark)";
let stopFollowing: (() => void) | null = null;

/** Draws `theme` now and, for "system", again whenever the OS preference changes. */
export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  stopFollowing?.();
  stopFollowing = null;
  const media = window.matchMedia?.(DARK);
  const draw = () => (root.dataset.theme = drawnTheme(theme, !!media?.matches));
  draw();
  if (theme === "system" && media) {
    media.addEventListener("change", draw);
    stopFollowing = () => media.removeEventListener("change", draw);
  }
}
