import { describe, expect, it } from "vitest";
import { HANDOFF_TARGETS, SESSION_MENU, TRASH_OFF, actionForKey, errorNotice, handoffTargets, sessionMenu, trashedText } from "./actions";
import { AGENTS } from "./agents";

const key = (k: string, mods: Partial<KeyboardEvent> = {}) => ({ key: k, ctrlKey: false, altKey: false, metaKey: false, ...mods });

describe("actions", () => {
  it("Continue in… offers every agent, an agent that cannot take a handoff disabled with its reason", () => {
    expect(HANDOFF_TARGETS.map((t) => t.id)).toEqual(AGENTS.map((a) => a.kind));
    // Each as the registry says: every agent takes a handoff now (Aider reads it as a file).
    expect(HANDOFF_TARGETS.map((t) => t.unavailable === null)).toEqual(AGENTS.map((a) => a.handoff_unavailable === null));
    expect(HANDOFF_TARGETS.find((t) => t.id === "aider")?.unavailable).toBeNull();
    const why = "it reads no prompt from its command line";
    const lacking = { ...AGENTS[0], kind: "codex" as const, label: "Other", handoff_unavailable: why };
    expect(handoffTargets([AGENTS[0], lacking])).toEqual([
      { id: AGENTS[0].kind, name: AGENTS[0].label, unavailable: null },
      { id: "codex", name: "Other", unavailable: why },
    ]);
  });

  it("plain keys open terminals and the export menu; with modifiers they do nothing", () => {
    expect(actionForKey(key("r"))).toBe("resume-terminal");
    expect(actionForKey(key("t"))).toBe("open-terminal");
    expect(actionForKey(key("e"))).toBe("export");
    expect(actionForKey(key("r", { ctrlKey: true }))).toBeNull();
    expect(actionForKey(key("R"))).toBeNull();
    expect(actionForKey(key("j"))).toBeNull();
  });

  it("shortcuts are unique and leave the list's own keys alone", () => {
    const keys = SESSION_MENU.flatMap((m) => (m.key ? [m.key] : []));
    expect(new Set(keys).size).toBe(keys.length);
    for (const taken of ["j", "k", "/", ","]) expect(keys).not.toContain(taken);
  });

  it("Move to trash… is always in the menu: greyed out while allow_delete is off, saying where to turn it on", () => {
    const off = sessionMenu(false);
    const on = sessionMenu(true);
    expect(off.slice(0, -1)).toEqual(SESSION_MENU);
    expect(on.slice(0, -1)).toEqual(SESSION_MENU);
    expect(off[off.length - 1]).toEqual({ action: "trash", label: "Move to trash…", off: TRASH_OFF });
    expect(on[on.length - 1]).toEqual({ action: "trash", label: "Move to trash…" });
    expect(TRASH_OFF).toContain("Settings ▸ Destructive actions");
    expect(TRASH_OFF).toContain("allow_delete = true under [actions] in config.toml");
    // Only the trash item is ever off.
    expect(on.every((m) => !m.off) && off.filter((m) => m.off).length === 1).toBe(true);
  });

  it("an agent-not-found error becomes a notice with the command to copy", () => {
    const n = errorNotice({ code: "not_found", message: "claude was not found on PATH", copy: "cd -- /w && claude --resume x" });
    expect(n).toEqual({ kind: "error", text: "claude was not found on PATH", copy: "cd -- /w && claude --resume x" });
    expect(errorNotice("boom")).toEqual({ kind: "error", text: "boom", copy: undefined });
  });

  it("says what a trash did to which session, and an archived Codex session as archived", () => {
    const target = (provider: "claude" | "codex", title: string | null) =>
      ({ provider, id: "0199-a", title, source_path: "/s/a.jsonl", updated_at: null });
    const plan = (notes: string[]) => ({ mode: "trash" as const, session: target("codex", "t"), subagents: [],
      include_subagents: null, steps: [], notes });
    expect(trashedText({ mode: "trash", removed: [target("claude", "fix the build")], output: [] }, null))
      .toBe("Moved to the trash: “fix the build”; it can be restored from your desktop's Trash");
    expect(trashedText({ mode: "trash", removed: [target("claude", "fix the build")], output: [] }, null, "devbox"))
      .toBe("Moved to the trash: “fix the build”; it can be restored from the Trash on devbox");
    const back = "the session is archived the way Codex archives it; codex unarchive 0199-a brings it back";
    expect(trashedText({ mode: "trash", removed: [target("codex", null)], output: [] }, plan([back])))
      .toBe(`Archived as Codex archives: “0199-a” stays in the list, marked archived (${back})`);
    expect(trashedText({ mode: "permanent", removed: [target("claude", "a"), target("claude", "b")], output: [] }, null))
      .toBe("Deleted for good: 2 sessions");
  });
});
