import { describe, expect, it } from "vitest";
import { idHits, searchCompleteness } from "./search";
import type { Found, SessionMeta } from "./types";

const hit = { session_id: "s", provider: "claude", message_id: "m", title: null, snippet: "«parser»", score: 1, source_path: "/s.jsonl" };
const found = (f: Partial<{ read_directly: number; partial: boolean; listing: boolean; hits: (typeof hit)[] }>) =>
  ({ hits: [hit], read_directly: 0, partial: false, listing: false, ...f }) as Found;

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
  it("speaks of no order when nothing matched: only that the sessions not indexed were read too", () => {
    expect(searchCompleteness(found({ read_directly: 206, hits: [] }))).toBe(
      "206 sessions not indexed yet were searched by reading them: none matches either.");
  });
  it("says matches may be missing when they may, the list first", () => {
    expect(searchCompleteness(found({ partial: true, read_directly: 3 }))).toMatch(/could not be read/);
    expect(searchCompleteness(found({ partial: true, listing: true }))).toMatch(/still being listed/);
  });
});

describe("id hits", () => {
  const session = (id: string, title: string) => ({ id, title, provider: "claude", source_path: `/s/${id}.jsonl` }) as unknown as SessionMeta;
  const sessions = [session("9d22e384-6685-4b75-ac35-088162e4c4a9", "fix the parser"), session("9d22e384-0000-4000-8000-000000000000", "other")];
  it("names the sessions whose id the query starts, title hits that open at the top", () => {
    const hits = idHits("9D22E384-6685", sessions);
    expect(hits.map((h) => [h.session_id, h.message_id, h.title, h.snippet])).toEqual([
      ["9d22e384-6685-4b75-ac35-088162e4c4a9", "", "fix the parser", "session «9d22e384-6685-4b75-ac35-088162e4c4a9»"]]);
    expect(idHits("9d22e384", sessions)).toHaveLength(2);
  });
  it("leaves short words, phrases, prefixes and several words to the text search", () => {
    for (const q of ["9d22e38", "\"9d22e384\"", "9d22e384*", "9d22e384 parser"]) expect(idHits(q, sessions)).toEqual([]);
  });
});
