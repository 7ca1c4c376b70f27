// Syntax highlighting of tool input and output: which language a tool's text is in (from the
// file a tool read or wrote, or from the tool being a shell), and highlight.js's HTML for it.
// highlight.js escapes every character of the text it is given and adds only <span class>
// elements, so its output is the one HTML besides core's sanitized Markdown the window shows.
// highlight.js itself (≈ 300 kB) is loaded on first use, not with the window: a start shows
// the session list and needs none of it (docs/performance.md, issue 12).

import type { HLJSApi } from "highlight.js";
import type { FileChange, Part } from "./types";

let loading: Promise<HLJSApi> | null = null;
let loaded: HLJSApi | null = null;

/** highlight.js, loaded once (its own chunk of the bundle). */
export function loadHighlighter(): Promise<HLJSApi> {
  loading ??= import("highlight.js/lib/common").then((m) => (loaded = m.default));
  return loading;
}

/** highlight.js when it has been loaded already, else null. */
export const highlighterNow = (): HLJSApi | null => loaded;

/** Beyond this, text is shown plain: highlighting a megabyte of output would stall the window. */
export const MAX_HIGHLIGHT = 200_000;

const BY_EXTENSION: Record<string, string> = {
  rs: "rust", ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript",
  js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript", py: "python", pyi: "python",
  go: "go", java: "java", kt: "kotlin", kts: "kotlin", c: "c", h: "c", cc: "cpp", cpp: "cpp", cxx: "cpp",
  hpp: "cpp", hh: "cpp", cs: "csharp", css: "css", scss: "scss", less: "less", html: "xml", htm: "xml",
  xml: "xml", svg: "xml", svelte: "xml", vue: "xml", json: "json", jsonl: "json", yaml: "yaml", yml: "yaml",
  toml: "ini", ini: "ini", cfg: "ini", md: "markdown", markdown: "markdown", sh: "bash", bash: "bash",
  zsh: "bash", sql: "sql", rb: "ruby", php: "php", swift: "swift", lua: "lua", pl: "perl", pm: "perl",
  r: "r", m: "objectivec", graphql: "graphql", gql: "graphql", diff: "diff", patch: "diff", wat: "wasm",
};
const BY_NAME: Record<string, string> = { makefile: "makefile", gnumakefile: "makefile", "cargo.lock": "ini" };

/** Tools whose output is a command's output, by the names the agents give them. */
const SHELL_TOOLS = new Set(["bash", "shell", "exec_command", "local_shell", "container.exec", "run_terminal_cmd"]);

/** The highlight.js language of a file, from its name; null when unknown. */
export function languageOfPath(path: string): string | null {
  const name = path.split(/[\\/]/).pop()?.toLowerCase() ?? "";
  if (BY_NAME[name]) return BY_NAME[name];
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return null;
  return BY_EXTENSION[name.slice(dot + 1)] ?? null;
}

/** The file a tool call is about, from the input keys the agents use. */
export function toolPath(input: unknown): string | null {
  if (!input || typeof input !== "object" || Array.isArray(input)) return null;
  const o = input as Record<string, unknown>;
  const p = o.file_path ?? o.filePath ?? o.notebook_path ?? o.path;
  return typeof p === "string" && p ? p : null;
}

/** Tools whose output is the file's content (a Write or Edit answers with a status line). */
const READ_TOOLS = new Set(["read", "view", "read_file", "notebookread"]);

/** The languages of a tool part's input and output (null: shown plain). */
export function toolLanguages(part: Part & { kind: "tool" }): { input: string | null; output: string | null } {
  const input = typeof part.input === "string" ? null : "json";
  const name = part.name.toLowerCase();
  if (SHELL_TOOLS.has(name)) return { input, output: "shell" };
  const path = READ_TOOLS.has(name) ? toolPath(part.input) : null;
  return { input, output: path ? languageOfPath(path) : null };
}

/** Whether `text` in `language` is worth loading highlight.js for (known to be plain otherwise). */
export const wantsHighlight = (text: string, language: string | null): boolean =>
  !!language && text.length <= MAX_HIGHLIGHT;

/**
 * highlight.js's HTML for `text` in `language`: every character of the text escaped, spans
 * added. Null when the language is unknown or the text too long: then the caller shows text.
 */
export function highlightHtml(hljs: HLJSApi, text: string, language: string | null): string | null {
  if (!language || !wantsHighlight(text, language) || !hljs.getLanguage(language)) return null;
  return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}

/** Lines added and removed over a set of file changes, as the list and the tool parts show them. */
export function changeTotals(files: FileChange[]): { additions: number; deletions: number } {
  return files.reduce(
    (t, f) => ({ additions: t.additions + f.additions, deletions: t.deletions + f.deletions }),
    { additions: 0, deletions: 0 },
  );
}
