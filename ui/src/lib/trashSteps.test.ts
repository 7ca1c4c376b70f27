import { describe, expect, it } from "vitest";
import { stepLines } from "./trashSteps";
import type { TrashStep } from "./types";

describe("stepLines", () => {
  it("says which bytes of which file an Aider cut takes, and where the trash keeps them", () => {
    const cut: TrashStep = {
      kind: "cut", file: "/r/.aider.chat.history.md", start: 1360, end: 2084, file_bytes: 173339,
      file_sha256: "a".repeat(64), range_sha256: "b".repeat(64), keep_as: "/r/.aider.chat.history.md.aider-ae2c2a5ddc1b7176.md",
    };
    expect(stepLines(cut)).toEqual([
      { what: "Cut out of", where: "/r/.aider.chat.history.md: bytes 1360–2084 (724 B)" },
      { what: "To the trash, as", where: "/r/.aider.chat.history.md.aider-ae2c2a5ddc1b7176.md" },
    ]);
    expect(stepLines({ ...cut, keep_as: null })).toHaveLength(1);
  });
});
