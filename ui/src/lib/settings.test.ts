import { describe, expect, it } from "vitest";
import { LOOKS_NEAR, changesOf, draftOf, isHidden, linesOf, missingOf, nearDirs, setupLanguage } from "./settings";
import { session } from "./testing";
import type { Settings } from "./types";

describe("where an agent that looks near looked", () => {
  it("is Aider alone, in the directories the other agents' sessions ran in, each once", () => {
    expect([...LOOKS_NEAR]).toEqual(["aider"]);
    const list = [
      session("a", { provider: "claude", cwd: "/w/b" }),
      session("b", { provider: "codex", cwd: "/w/a" }),
      session("c", { provider: "gemini", cwd: "/w/b" }),
      session("d", { provider: "aider", cwd: "/w/aider-only" }),
      session("e", { provider: "opencode", cwd: null }),
    ];
    expect(nearDirs(list)).toEqual(["/w/a", "/w/b"]);
  });
});

const saved: Settings = {
  providers: {
    claude: { enabled: true, roots: ["/home/u/.claude", "/home/u/.claude-work"] },
    codex: { enabled: true, roots: [] },
    opencode: { enabled: false, roots: [] },
  },
  ui: { group_by: "dir-agent", hidden_dirs: ["/tmp"], theme: "system", sort_by: "updated", fold_repos: false, host: "" },
  filter: { agent: null, since: null, until: null, model: null, has_subagents: false, archived: false, live: false },
  terminal: { app: "" },
  translate: { base_url: "", api_key_set: true, model: "", language: "Vietnamese" },
  actions: { allow_delete: false, allow_permanent_delete: false },
};

describe("settings", () => {
  it("an untouched draft changes nothing", () => {
    expect(changesOf(saved, draftOf(saved))).toEqual([]);
  });

  it("an agent the backend did not send is off, and turning it on saves its key", () => {
    const { opencode: _, ...sent } = saved.providers;
    const d = draftOf({ ...saved, providers: sent });
    expect(d.providers.opencode).toEqual({ enabled: false, roots: "" });
    d.providers.opencode.enabled = true;
    expect(changesOf({ ...saved, providers: sent }, d)).toEqual([{ key: "providers.opencode.enabled", value: true }]);
  });

  it("sends only the keys that changed, lists as lists", () => {
    const d = draftOf(saved);
    d.theme = "dark";
    d.providers.opencode.enabled = true;
    d.providers.claude.roots = "/home/u/.claude\n\n  /home/u/.claude-work  \n/srv/claude\n";
    d.hidden_dirs = "";
    d.terminal = "kitty";
    expect(changesOf(saved, d)).toEqual([
      { key: "providers.claude.roots", value: ["/home/u/.claude", "/home/u/.claude-work", "/srv/claude"] },
      { key: "providers.opencode.enabled", value: true },
      { key: "ui.hidden_dirs", value: null },
      { key: "ui.theme", value: "dark" },
      { key: "terminal.app", value: "kitty" },
    ]);
  });

  it("a list emptied is sent as null, which removes its key (the default applies), not as []", () => {
    const d = draftOf(saved);
    d.providers.claude.roots = "  \n\n";
    expect(changesOf(saved, d)).toEqual([{ key: "providers.claude.roots", value: null }]);
    // A list that was empty already and stays empty changes nothing.
    d.providers.claude.roots = draftOf(saved).providers.claude.roots;
    d.providers.codex.roots = "";
    expect(changesOf(saved, d)).toEqual([]);
  });

  it("the API key is only ever sent when replaced, and cleared with null", () => {
    const d = draftOf(saved);
    expect(JSON.stringify(d)).not.toContain("sk-");
    d.api_key = { mode: "replace", value: "" };
    expect(changesOf(saved, d)).toEqual([]);
    d.api_key = { mode: "replace", value: "sk-new" };
    expect(changesOf(saved, d)).toEqual([{ key: "translate.api_key", value: "sk-new" }]);
    d.api_key = { mode: "clear" };
    expect(changesOf(saved, d)).toEqual([{ key: "translate.api_key", value: null }]);
    expect(changesOf({ ...saved, translate: { ...saved.translate, api_key_set: false } }, d)).toEqual([]);
  });

  it("splits text boxes into trimmed non-empty lines", () => {
    expect(linesOf(" /a \n\n/b\r\n")).toEqual(["/a", "/b"]);
  });

  it("hides a directory and everything inside it, nothing else", () => {
    const hidden = ["/home/eve/big", "/srv/"];
    expect(isHidden("/home/eve/big", hidden)).toBe(true);
    expect(isHidden("/home/eve/big/", hidden)).toBe(true);
    expect(isHidden("/home/eve/big/sub", hidden)).toBe(true);
    expect(isHidden("/home/eve/bigger", hidden)).toBe(false);
    expect(isHidden("/home/eve", hidden)).toBe(false);
    expect(isHidden("/srv", hidden)).toBe(true);
    expect(isHidden(null, hidden)).toBe(false);
    expect(isHidden("C:\\work\\x", ["C:\\work"])).toBe(true);
    expect(isHidden("/anything", ["/"])).toBe(true);
    expect(isHidden("/x", [])).toBe(false);
  });

  it("names a missing root only when it was set, not a default store the agent never made", () => {
    const missing = ["/typo/.claude", "/home/u/.codex"];
    const set = { provider: "claude" as const, enabled: true, enabled_from: "default" as const,
      roots: ["/home/u/.claude", "/typo/.claude"], roots_from: "config" as const, env_var: null };
    expect(missingOf(set, missing)).toEqual(["/typo/.claude"]);
    expect(missingOf({ ...set, roots_from: "env", env_var: "CLAUDE_CONFIG_DIR" }, missing)).toEqual(["/typo/.claude"]);
    const byDefault = { ...set, provider: "codex" as const, roots: ["/home/u/.codex"], roots_from: "default" as const };
    expect(missingOf(byDefault, missing)).toEqual([]);
  });
});

describe("the translation language when translation is set up", () => {
  it("is the system's language instead of the built-in fallback", () => {
    expect(setupLanguage("Vietnamese", "en-US")).toBe("English");
    expect(setupLanguage("Vietnamese", "de-DE")).toBe("German");
    expect(setupLanguage("", "fr")).toBe("French");
  });
  it("keeps a language the user chose, and the fallback for a locale naming none", () => {
    expect(setupLanguage("Japanese", "en-US")).toBe("Japanese");
    expect(setupLanguage("Vietnamese", "")).toBe("Vietnamese");
  });
});
