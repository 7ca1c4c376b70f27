import { describe, expect, it } from "vitest";
import { SESSION_MENU, actionForKey } from "./actions";
import { SHORTCUTS, isHelpKey } from "./shortcuts";

const press = (key: string) => ({ key, ctrlKey: false, altKey: false, metaKey: false });

describe("the shortcut list", () => {
  it("lists every session action's key, as the key handler maps it", () => {
    for (const item of SESSION_MENU.filter((m) => m.key)) {
      const listed = SHORTCUTS.find((s) => s.keys.includes(item.key!));
      expect(listed?.what).toContain(item.label.replace(/…$/, ""));
      expect(actionForKey(press(item.key!))).toBe(item.action);
    }
  });

  it("names each key once", () => {
    const keys = SHORTCUTS.flatMap((s) => s.keys);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("opens on ? alone", () => {
    expect(isHelpKey(press("?"))).toBe(true);
    expect(isHelpKey({ ...press("?"), ctrlKey: true })).toBe(false);
    expect(isHelpKey(press("/"))).toBe(false);
  });
});
