import { describe, expect, it } from "vitest";
import { browserUrl } from "./links";

describe("browserUrl", () => {
  it("offers absolute http(s) links", () => {
    expect(browserUrl("https://example.com/a?b#c")).toBe("https://example.com/a?b#c");
    expect(browserUrl("http://127.0.0.1:8000/x")).toBe("http://127.0.0.1:8000/x");
    expect(browserUrl("HTTPS://EXAMPLE.COM")).toBe("https://example.com/");
  });

  it("drops every other link", () => {
    for (const href of [
      null, undefined, "", "//evil.example/x", "/etc/passwd", "relative/x", "#top", "?q=1",
      "javascript:alert(1)", " javascript:alert(1)", "JaVaScRiPt:alert(1)", "java\tscript:alert(1)",
      "file:///etc/passwd", "mailto:a@b.c", "tauri://localhost/", "data:text/html,x",
      "https://user:pw@example.com/", "https://bank.example@evil.example/", "http://",
    ]) {
      expect(browserUrl(href), String(href)).toBeNull();
    }
  });
});
