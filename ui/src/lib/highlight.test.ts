import { describe, expect, it } from "vitest";
import { changeTotals, highlightHtml, highlighterNow, loadHighlighter, languageOfPath, MAX_HIGHLIGHT, toolLanguages, toolPath } from "./highlight";
import type { JsonValue, Part } from "./types";

function tool(name: string, input: JsonValue): Part & { kind: "tool" } {
  return {
    kind: "tool", call_id: "c", name, input, status: "ok", output: "x", output_truncated: false,
    output_blob: null, changes: [], subagent_id: null,
  };
}

describe("language detection", () => {
  it("takes the language from the file's extension or name", () => {
    expect(languageOfPath("/w/src/main.rs")).toBe("rust");
    expect(languageOfPath("C:\\w\\App.TSX")).toBe("typescript");
    expect(languageOfPath("ui/src/App.svelte")).toBe("xml");
    expect(languageOfPath("/w/Makefile")).toBe("makefile");
    expect(languageOfPath("/w/.bashrc")).toBeNull();
    expect(languageOfPath("/w/README")).toBeNull();
    expect(languageOfPath("/w/data.unknownext")).toBeNull();
  });

  it("finds the file a tool is about under each agent's key", () => {
    expect(toolPath({ file_path: "/a.py" })).toBe("/a.py");
    expect(toolPath({ filePath: "/b.go" })).toBe("/b.go");
    expect(toolPath({ command: "ls" })).toBeNull();
    expect(toolPath("a string")).toBeNull();
    expect(toolPath(null)).toBeNull();
  });

  it("shows JSON input as json, a shell's output as shell, a read file's as its language", () => {
    expect(toolLanguages(tool("Bash", { command: "ls" }))).toEqual({ input: "json", output: "shell" });
    expect(toolLanguages(tool("exec_command", { cmd: ["ls"] }))).toEqual({ input: "json", output: "shell" });
    expect(toolLanguages(tool("Read", { file_path: "/w/lib.rs" }))).toEqual({ input: "json", output: "rust" });
    expect(toolLanguages(tool("read", { filePath: "/w/x.py" }))).toEqual({ input: "json", output: "python" });
    expect(toolLanguages(tool("WebFetch", "raw text"))).toEqual({ input: null, output: null });
    // A write's output is a status line, not the file: left plain.
    expect(toolLanguages(tool("Write", { file_path: "/w/lib.rs", content: "fn x() {}" }))).toEqual({ input: "json", output: null });
    expect(toolLanguages(tool("edit", { filePath: "/w/x.py" }))).toEqual({ input: "json", output: null });
  });
});

describe("highlighting", () => {
  it("loads highlight.js once, on first use", async () => {
    const first = loadHighlighter();
    expect(loadHighlighter()).toBe(first);
    const hl = await first;
    expect(highlighterNow()).toBe(hl);
    expect(hl.getLanguage("rust")).toBeTruthy();
  });

  it("escapes the text it highlights: transcript content never becomes markup", async () => {
    const hostile = '{"a": "<img src=x onerror=alert(1)>", "b": "</code><script>x</script>"}';
    const html = highlightHtml(await loadHighlighter(), hostile, "json")!;
    expect(html).toContain('<span class="hljs-attr">');
    expect(html).not.toMatch(/<(img|script|\/code)/);
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    // Taking the tags out leaves the text exactly.
    const text = html.replace(/<[^>]+>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&amp;/g, "&");
    expect(text).toBe(hostile);
  });

  it("leaves unknown languages and huge text plain", async () => {
    const hl = await loadHighlighter();
    expect(highlightHtml(hl, "fn main() {}", null)).toBeNull();
    expect(highlightHtml(hl, "x", "no-such-language")).toBeNull();
    expect(highlightHtml(hl, "a".repeat(MAX_HIGHLIGHT + 1), "rust")).toBeNull();
    expect(highlightHtml(hl, "fn main() {}", "rust")).toContain('<span class="hljs-keyword">fn</span>');
  });

  it("totals a patch's added and removed lines", () => {
    const f = (additions: number, deletions: number) => ({ path: "p", change: "update", diff: null, additions, deletions });
    expect(changeTotals([f(3, 1), f(0, 4)])).toEqual({ additions: 3, deletions: 5 });
    expect(changeTotals([])).toEqual({ additions: 0, deletions: 0 });
  });
});
