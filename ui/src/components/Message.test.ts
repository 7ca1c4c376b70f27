// One message rendered (Svelte's server renderer): the noise the window no longer shows —
// a Translate button before translation is set up, "(encrypted)" on reasoning that is shown,
// a full date and time on every message.

import { describe, expect, it } from "vitest";
import { render } from "svelte/server";
import Message from "./Message.svelte";
import type { MessageView, Part } from "../lib/types";

function html(parts: Part[], canTranslate = false): string {
  const message = {
    html: parts.map(() => null), id: "m1", role: "assistant", parent_id: null, timestamp: "2026-11-30T09:22:04Z", model: null,
    counted: true, meta: false, sidechain: false, parts,
  } as unknown as MessageView;
  return render(Message, {
    props: { message, showReasoning: true, showRaw: false, onsubagent: () => {}, session: { provider: "codex", id: "s" }, canTranslate },
  }).body;
}

describe("a message", () => {
  const text: Part = { kind: "text", text: "hello" } as Part;

  it("offers Translate only once translation is set up", () => {
    expect(html([text], false)).not.toContain('data-testid="translate"');
    expect(html([text], true)).toContain('data-testid="translate"');
  });

  it("labels reasoning encrypted only when it cannot be read", () => {
    const shown = html([{ kind: "reasoning", text: "I should list the files", encrypted: true } as Part]);
    expect(shown).toContain("I should list the files");
    expect(shown).not.toContain("encrypted");
    expect(html([{ kind: "reasoning", text: "", encrypted: true } as Part])).toContain("(encrypted: not readable)");
  });

  it("shows a short time, the full one in its tooltip", () => {
    const body = html([text]);
    const time = body.match(/data-testid="message-time" title="([^"]+)"[^>]*>([^<]+)</);
    expect(time).not.toBeNull();
    const [, full, short] = time!;
    expect(full).toMatch(/2026/);
    expect(short).not.toMatch(/:\d\d:\d\d/); // no seconds
    expect(short.length).toBeLessThan(full.length);
  });
});
