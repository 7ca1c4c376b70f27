// The Settings pane's model: a draft of the settings as the form edits them, the changes to
// save (only what differs, so untouched keys stay as they are in the file), and the hidden
// directories rule. Pure functions, unit-tested.

import { AGENTS } from "./agents";
import type { GroupBy, JsonValue, Provider, ProviderRoots, ProviderSettings, SessionMeta, SettingChange, Settings, Theme } from "./types";

export const PROVIDERS: Provider[] = AGENTS.map((a) => a.kind);

/** The agents that keep sessions where the user works (Aider): their scan looks near. */
export const LOOKS_NEAR: ReadonlySet<Provider> = new Set(AGENTS.filter((a) => a.looks_near).map((a) => a.kind));

/** Where an agent that looks near looked besides its roots: every directory the sessions of
 * the other agents ran in, sorted (core's `ProviderSet::scan_each_near` takes the same ones). */
export function nearDirs(sessions: SessionMeta[]): string[] {
  const dirs = new Set<string>();
  for (const s of sessions) if (!LOOKS_NEAR.has(s.provider) && s.cwd) dirs.add(s.cwd);
  return [...dirs].sort();
}

/** What the API key field does on save: nothing, a new key, or remove the saved one. */
export type KeyAction = { mode: "keep" } | { mode: "replace"; value: string } | { mode: "clear" };

export interface Draft {
  providers: Record<Provider, { enabled: boolean; roots: string }>;
  group_by: GroupBy;
  /** One directory per line. */
  hidden_dirs: string;
  theme: Theme;
  /** A terminal id; "" is Automatic. */
  terminal: string;
  base_url: string;
  model: string;
  language: string;
  api_key: KeyAction;
  allow_delete: boolean;
  allow_permanent_delete: boolean;
}

const lines = (list: string[]) => list.join("\n");

/** The non-empty lines of a text box, trimmed. */
export function linesOf(text: string): string[] {
  return text.split("\n").map((l) => l.trim()).filter(Boolean);
}

/** One agent's settings; one the backend did not send is off (as `Settings::provider` says). */
export function providerOf(s: Settings, p: Provider): ProviderSettings {
  return s.providers[p] ?? { enabled: false, roots: [] };
}

export function draftOf(s: Settings): Draft {
  const provider = (p: Provider) => ({ enabled: providerOf(s, p).enabled, roots: lines(providerOf(s, p).roots) });
  return {
    providers: Object.fromEntries(PROVIDERS.map((p) => [p, provider(p)])) as Draft["providers"],
    group_by: s.ui.group_by,
    hidden_dirs: lines(s.ui.hidden_dirs),
    theme: s.ui.theme,
    terminal: s.terminal.app,
    base_url: s.translate.base_url,
    model: s.translate.model,
    language: s.translate.language,
    api_key: { mode: "keep" },
    allow_delete: s.actions.allow_delete,
    allow_permanent_delete: s.actions.allow_permanent_delete,
  };
}

const sameList = (a: JsonValue[], b: JsonValue[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The keys whose value the draft changes, with their new values, in the file's order. A list
 * emptied goes as null: the key is removed and its default (an empty list, the agent's own
 * store for roots) applies, rather than `roots = []` left in the user's file. */
export function changesOf(saved: Settings, d: Draft): SettingChange[] {
  const out: SettingChange[] = [];
  const put = (key: string, before: JsonValue, after: JsonValue) => {
    const same = Array.isArray(before) && Array.isArray(after) ? sameList(before, after) : before === after;
    const cleared = Array.isArray(after) && after.length === 0;
    if (!same) out.push({ key, value: cleared ? null : after });
  };
  for (const p of PROVIDERS) {
    put(`providers.${p}.enabled`, providerOf(saved, p).enabled, d.providers[p].enabled);
    put(`providers.${p}.roots`, providerOf(saved, p).roots, linesOf(d.providers[p].roots));
  }
  put("ui.group_by", saved.ui.group_by, d.group_by);
  put("ui.hidden_dirs", saved.ui.hidden_dirs, linesOf(d.hidden_dirs));
  put("ui.theme", saved.ui.theme, d.theme);
  put("terminal.app", saved.terminal.app, d.terminal);
  put("translate.base_url", saved.translate.base_url, d.base_url.trim());
  if (d.api_key.mode === "replace" && d.api_key.value) out.push({ key: "translate.api_key", value: d.api_key.value });
  if (d.api_key.mode === "clear" && saved.translate.api_key_set) out.push({ key: "translate.api_key", value: null });
  put("translate.model", saved.translate.model, d.model.trim());
  put("translate.language", saved.translate.language, d.language.trim());
  put("actions.allow_delete", saved.actions.allow_delete, d.allow_delete);
  put("actions.allow_permanent_delete", saved.actions.allow_permanent_delete, d.allow_permanent_delete);
  return out;
}

const trimSeparators = (p: string) => p.trim().replace(/[/\\]+$/, "");

/** Whether a session in `cwd` is hidden: its directory is one of `hidden` or inside one. */
export function isHidden(cwd: string | null, hidden: string[]): boolean {
  if (!cwd) return false;
  const dir = trimSeparators(cwd);
  return hidden.some((h) => {
    const root = trimSeparators(h);
    // "/" (empty once trimmed) holds every absolute directory.
    return dir === root || dir.startsWith(root + "/") || dir.startsWith(root + "\\");
  });
}

/** The roots of `roots` the backend found missing, when they were set (config, a variable):
 * a default store that is not there only means the agent never ran here. */
export function missingOf(roots: ProviderRoots, missing: string[]): string[] {
  if (roots.roots_from === "default") return [];
  return roots.roots.filter((r) => missing.includes(r));
}

/** The language config.toml falls back to (core's schema default for translate.language). */
export const BUILT_IN_LANGUAGE = "Vietnamese";

/** The language to translate into when translation is being set up: the one set, unless it is
 * only the built-in fallback, then the language of the system (`locale`: navigator.language),
 * in English ("English", "German"); the fallback when the locale names none. */
export function setupLanguage(saved: string, locale: string): string {
  if (saved.trim() && saved !== BUILT_IN_LANGUAGE) return saved;
  try {
    const name = new Intl.DisplayNames(["en"], { type: "language" }).of(new Intl.Locale(locale).language);
    return name && name !== "und" ? name : BUILT_IN_LANGUAGE;
  } catch {
    return BUILT_IN_LANGUAGE;
  }
}
