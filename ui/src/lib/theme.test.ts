import { describe, expect, it } from "vitest";
import { drawnTheme } from "./theme";

describe("theme", () => {
  it("system follows the OS; light and dark do not", () => {
    expect(drawnTheme("system", true)).toBe("dark");
    expect(drawnTheme("system", false)).toBe("light");
    expect(drawnTheme("light", true)).toBe("light");
    expect(drawnTheme("dark", false)).toBe("dark");
  });
});
