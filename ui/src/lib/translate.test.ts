import { describe, expect, it } from "vitest";
import { dismiss, errorMessage, hasText, translate, translationOf } from "./translate.svelte";
import type { SessionRef, Translation } from "./types";

const session: SessionRef = { provider: "claude", id: "s1" };
const done = (text: string): Translation =>
  ({ message_id: "m1", language: "Vietnamese", model: "m", text, truncated: false, html: `<p>${text}</p>` });

describe("translate", () => {
  it("offers translation only for messages with text, as the backend sends", () => {
    expect(hasText({ parts: [{ kind: "text", text: "hi" }] })).toBe(true);
    expect(hasText({ parts: [{ kind: "text", text: "  \n" }] })).toBe(false);
    expect(hasText({ parts: [{ kind: "reasoning", text: "thinking", encrypted: false }] })).toBe(false);
    expect(hasText({ parts: [] })).toBe(false);
  });

  it("keeps a translation per session and message, loading first, until dismissed", async () => {
    let release: (t: Translation) => void = () => {};
    const calls: [SessionRef, string][] = [];
    const call = (s: SessionRef, id: string) => {
      calls.push([s, id]);
      return new Promise<Translation>((r) => (release = r));
    };
    const pending = translate(session, "m1", call);
    expect(translationOf(session, "m1")).toEqual({ state: "loading" });
    // A second click while one is under way sends nothing more.
    await translate(session, "m1", call);
    expect(calls).toEqual([[session, "m1"]]);
    release(done("Xin chào"));
    await pending;
    expect(translationOf(session, "m1")).toEqual({ state: "done", translation: done("Xin chào") });
    expect(translationOf({ provider: "codex", id: "s1" }, "m1")).toBeUndefined();
    expect(translationOf(session, "m2")).toBeUndefined();
    dismiss(session, "m1");
    expect(translationOf(session, "m1")).toBeUndefined();
  });

  it("keeps the backend's error code and points to Settings when nothing is set up", async () => {
    await translate(session, "m3", () => Promise.reject({ code: "translate_timeout", message: "did not answer within 120 s" }));
    const failed = translationOf(session, "m3");
    expect(failed).toEqual({ state: "error", code: "translate_timeout", message: "did not answer within 120 s" });
    expect(errorMessage(failed as never)).toBe("did not answer within 120 s");
    await translate(session, "m4", () =>
      Promise.reject({ code: "translate_not_configured", message: "translation is not set up: set base_url" }));
    const off = translationOf(session, "m4");
    expect(errorMessage(off as never)).toMatch(/not set up.*Settings.*Nothing was sent/);
  });
});
