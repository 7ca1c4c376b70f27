// What can be done to a session from the list's context menu, the transcript header and the
// keyboard, in one table, and how a result is told to the user (a notice). Pure, unit-tested.

import { AGENTS, type Agent } from "./agents";
import { toApiError } from "./api";
import type { Provider, TrashDone, TrashPlan } from "./types";

export type SessionAction = "resume-terminal" | "open-terminal" | "copy-resume" | "export" | "reveal" | "trash";

export interface MenuItem {
  action: SessionAction;
  label: string;
  key?: string;
  /** Why it cannot be chosen now (its tooltip); it is shown greyed out and does nothing. */
  off?: string;
}

/** The context menu of a session row, in order; `key` is its keyboard shortcut. */
export const SESSION_MENU: MenuItem[] = [
  { action: "resume-terminal", label: "Resume in terminal", key: "r" },
  { action: "open-terminal", label: "Open terminal here", key: "t" },
  { action: "copy-resume", label: "Copy resume command" },
  { action: "export", label: "Export…", key: "e" },
  { action: "reveal", label: "Reveal source file" },
];

/** Why Move to trash… is greyed out while `[actions] allow_delete` is off, and where to turn it on. */
export const TRASH_OFF =
  "Moving sessions to the trash is off. Turn it on in Settings ▸ Destructive actions (the , key), " +
  "or set allow_delete = true under [actions] in config.toml.";

/** The context menu with Move to trash… last: always there, so a new user can find it, greyed
 * out and saying where to turn it on while `allow_delete` is off (it was absent until then). */
export function sessionMenu(allowDelete: boolean): MenuItem[] {
  const trash: MenuItem = { action: "trash", label: "Move to trash…" };
  return [...SESSION_MENU, allowDelete ? trash : { ...trash, off: TRASH_OFF }];
}

/** The session action a key press asks for: a plain key (no Ctrl, Alt or Meta). */
export function actionForKey(e: Pick<KeyboardEvent, "key" | "ctrlKey" | "altKey" | "metaKey">): SessionAction | null {
  if (e.ctrlKey || e.altKey || e.metaKey) return null;
  return SESSION_MENU.find((m) => m.key === e.key)?.action ?? null;
}

/** A line at the bottom of the window: what happened, or what went wrong and what to run instead. */
export interface Notice { kind: "ok" | "error"; text: string; copy?: string }

export function errorNotice(e: unknown): Notice {
  const err = toApiError(e);
  return { kind: "error", text: err.message, copy: err.copy };
}

/** An agent "Continue in…" offers; `unavailable` is why it cannot be started with a handoff
 * (offered disabled, with that reason), else null. */
export interface HandoffTarget { id: Provider; name: string; unavailable: string | null }

/** The agents a session (or a bundle) can continue in, each with why it cannot where it cannot. */
export function handoffTargets(agents: readonly Agent[] = AGENTS): HandoffTarget[] {
  return agents.map((a) => ({ id: a.kind, name: a.label, unavailable: a.handoff_unavailable }));
}

/** Every agent of the registry as a "Continue in…" target. */
export const HANDOFF_TARGETS: HandoffTarget[] = handoffTargets();

/** What a trash or deletion did, said after it: which session, and how to get it back. A Codex
 * session is archived, not trashed: it stays listed, marked archived, and the plan's notes say
 * which command brings it back ("Moved to the trash" beside a row still there misled). */
export function trashedText(done: TrashDone, plan: TrashPlan | null, host: string | null = null): string {
  const n = done.removed.length;
  const first = done.removed[0];
  const what = n === 1 && first ? `“${first.title ?? first.id}”` : `${n} sessions`;
  if (done.mode === "permanent") return `Deleted for good: ${what}`;
  if (first?.provider === "codex") {
    const notes = plan?.notes.length ? ` (${plan.notes.join("; ")})` : "";
    return `Archived as Codex archives: ${what} stays in the list, marked archived${notes}`;
  }
  return `Moved to the trash: ${what}; it can be restored from ${host ? `the Trash on ${host}` : "your desktop's Trash"}`;
}
