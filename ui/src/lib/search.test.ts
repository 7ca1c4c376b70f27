import { describe, expect, it } from "vitest";
import { groupHits, idHits, searchCompleteness, stepHit } from "./search";
import { session } from "./testing";
import type { Found, Hit, SessionMeta } from "./types";

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

describe("hits grouped per session", () => {
  const h = (session_id: string, message_id: string, source_path = `/${session_id}.jsonl`): Hit =>
    ({ ...hit, provider: "claude", session_id, message_id, source_path, title: `title ${session_id}` });
  const listed = [
    session("a", { updated_at: "2026-11-01T00:00:00Z", source_path: "/a.jsonl" }),
    session("b", { updated_at: "2026-11-03T00:00:00Z", source_path: "/b.jsonl" }),
    session("c", { updated_at: "2026-11-02T00:00:00Z", source_path: "/c.jsonl" }),
  ];
  // Best first, as the backend ranks them: one session three times among the others.
  const ranked = [h("a", "1"), h("b", "1"), h("a", "2"), h("c", "1"), h("a", "3")];

  it("gives each session once, with its hits in order, sessions by their best hit", () => {
    const groups = groupHits(ranked, listed, "relevance");
    expect(groups.map((g) => [g.session_id, g.hits.map((x) => x.message_id)])).toEqual([
      ["a", ["1", "2", "3"]], ["b", ["1"]], ["c", ["1"]],
    ]);
    expect(groups[0].session).toBe(listed[0]);
    expect(groups[0].title).toBe("title a");
  });

  it("by recency, the most recently updated session first", () => {
    expect(groupHits(ranked, listed, "recency").map((g) => g.session_id)).toEqual(["b", "c", "a"]);
  });

  it("keeps two files of one session apart, and a session not listed with no session", () => {
    const groups = groupHits([h("a", "1"), h("a", "2", "/copy/a.jsonl"), h("z", "1")], listed, "relevance");
    expect(groups.map((g) => [g.session_id, g.session?.source_path ?? null])).toEqual([["a", "/a.jsonl"], ["a", null], ["z", null]]);
  });

  it("steps through the hits in the order shown, wrapping at the ends", () => {
    const all = groupHits(ranked, listed, "relevance").flatMap((g) => g.hits);
    expect(stepHit(all, null, 1)).toBe(all[0]);
    expect(stepHit(all, null, -1)).toBe(all[4]);
    expect(stepHit(all, all[0], 1)).toBe(all[1]);
    expect(stepHit(all, all[4], 1)).toBe(all[0]);
    expect(stepHit(all, all[0], -1)).toBe(all[4]);
    expect(stepHit([], null, 1)).toBe(null);
  });
});
