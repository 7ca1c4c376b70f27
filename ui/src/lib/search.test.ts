import { describe, expect, it } from "vitest";
import { searchCompleteness } from "./search";

const found = (f: Partial<{ read_directly: number; partial: boolean; listing: boolean }>) =>
  ({ hits: [], read_directly: 0, partial: false, listing: false, ...f });

describe("search completeness", () => {
  it("says nothing when the index answered alone", () => {
    expect(searchCompleteness(found({}))).toBe("");
  });
  it("says how many sessions were read directly, and that the order may change", () => {
    expect(searchCompleteness(found({ read_directly: 1 }))).toBe(
      "1 session not indexed yet was searched by reading it: the order may change once indexing ends.");
    expect(searchCompleteness(found({ read_directly: 1200 }))).toBe(
      "1,200 sessions not indexed yet were searched by reading them: the order may change once indexing ends.");
  });
  it("says matches may be missing when they may, the list first", () => {
    expect(searchCompleteness(found({ partial: true, read_directly: 3 }))).toMatch(/could not be read/);
    expect(searchCompleteness(found({ partial: true, listing: true }))).toMatch(/still being listed/);
  });
});
