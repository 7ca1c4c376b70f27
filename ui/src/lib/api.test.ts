import { describe, expect, it } from "vitest";
import { ApiError, errorText, sessionRef, toApiError } from "./api";

describe("api", () => {
  it("sends a session by provider, id and listed file only", () => {
    const meta = { provider: "claude" as const, id: "s1", source_path: "/home/x/s1.jsonl", cwd: "/x" };
    expect(sessionRef(meta)).toEqual({ provider: "claude", id: "s1", source_path: "/home/x/s1.jsonl" });
    expect(sessionRef({ provider: "codex", id: "s2" })).toEqual({ provider: "codex", id: "s2" });
  });

  it("turns what a command rejects with into {code, message}", () => {
    const e = toApiError({ code: "not_found", message: "no claude session with id \"x\"" });
    expect(e).toBeInstanceOf(ApiError);
    expect([e.code, e.message]).toEqual(["not_found", "no claude session with id \"x\""]);
    expect(toApiError("boom").code).toBe("internal");
    expect(errorText({ code: "io", message: "cannot read /x" })).toBe("cannot read /x");
  });

  it("keeps the command to copy that an agent-not-found error carries", () => {
    const e = toApiError({ code: "not_found", message: "claude was not found on PATH", copy: "cd -- /w && claude --resume x" });
    expect(e.copy).toBe("cd -- /w && claude --resume x");
    expect(toApiError({ code: "io", message: "m", copy: 7 }).copy).toBeUndefined();
  });
});
