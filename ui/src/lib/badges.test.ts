import { describe, expect, it } from "vitest";
import { AGENTS } from "./agents";
import { badgeStyles } from "./badges";

describe("agent badges", () => {
  it("gives every agent of the registry its colours in both themes", () => {
    const css = badgeStyles();
    for (const a of AGENTS) {
      expect(css).toContain(`.badge.${a.kind} { background: ${a.colours.light[0]}; color: ${a.colours.light[1]}; }`);
      expect(css).toContain(`[data-theme="dark"] .badge.${a.kind} { background: ${a.colours.dark[0]}; color: ${a.colours.dark[1]}; }`);
    }
    expect(css).toContain(".badge.claude { background: #f3e2d5; color: #7a4316; }");
  });
});
