import { describe, expect, it } from "vitest";
import { SESSION_MENU, actionForKey, errorNotice } from "./actions";

const key = (k: string, mods: Partial<KeyboardEvent> = {}) => ({ key: k, ctrlKey: false, altKey: false, metaKey: false, ...mods });

describe("actions", () => {
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

  it("an agent-not-found error becomes a notice with the command to copy", () => {
    const n = errorNotice({ code: "not_found", message: "claude was not found on PATH", copy: "cd -- /w && claude --resume x" });
    expect(n).toEqual({ kind: "error", text: "claude was not found on PATH", copy: "cd -- /w && claude --resume x" });
    expect(errorNotice("boom")).toEqual({ kind: "error", text: "boom", copy: undefined });
  });
});
