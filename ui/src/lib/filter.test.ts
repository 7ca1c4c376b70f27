import { describe, expect, it } from "vitest";
import { NO_FILTER, applyFilter, parseDay, chipsOf, filterChanges, mergeChanges, mergeMissing, modelsOf, newestFirst, without, type Filter } from "./filter";
import { session } from "./testing";
import type { SessionMeta } from "./types";

const s = (id: string, over: Partial<SessionMeta> = {}) =>
  session(id, { created_at: "2026-03-01T00:00:00Z", updated_at: "2026-03-02T23:30:00Z", ...over });

// The same sessions as core's filter tests (crates/core/src/filter.rs `fixture`), so both sides
// are held to the same answers.
const all = [
  s("a", { model: "claude-opus" }),
  s("a-child", { parent_id: "a", model: "claude-haiku" }),
  s("b", { provider: "codex", model: "gpt-5", archived: true, updated_at: "2026-03-10T23:30:00Z" }),
  s("c", { provider: "opencode", live: true, model: "claude-opus", updated_at: "2026-03-20T23:30:00Z" }),
  s("undated", { updated_at: null, created_at: null }),
];
const ids = (f: Partial<Filter>) => applyFilter(all, { ...NO_FILTER, ...f }).map((x) => x.id);

describe("filters", () => {
  it("each filter alone, with core's answers", () => {
    expect(ids({})).toEqual(["a", "a-child", "b", "c", "undated"]);
    expect(ids({ agent: "claude" })).toEqual(["a", "a-child", "undated"]);
    expect(ids({ model: "claude-opus" })).toEqual(["a", "c"]);
    expect(ids({ has_subagents: true })).toEqual(["a"]);
    expect(ids({ archived: true })).toEqual(["b"]);
    expect(ids({ live: true })).toEqual(["c"]);
    expect(ids({ since: "2026-03-10" })).toEqual(["b", "c"]);
    expect(ids({ until: "2026-03-10" })).toEqual(["a", "a-child", "b"]);
    expect(ids({ since: "2026-03-10", until: "2026-03-10" })).toEqual(["b"]);
    expect(ids({ since: "2026-03-11", until: "2026-03-19" })).toEqual([]);
  });

  it("days are UTC whatever the offset a time is written with", () => {
    const late = s("late", { updated_at: "2026-03-10T23:30:00-02:00" }); // 2026-03-11 01:30 UTC
    expect(applyFilter([late], { ...NO_FILTER, until: "2026-03-10" })).toEqual([]);
    expect(applyFilter([late], { ...NO_FILTER, since: "2026-03-11" })).toEqual([late]);
  });

  it("a session with no update is on the day it started, as stats count it", () => {
    const started = s("started", { updated_at: null, created_at: "2026-03-05T08:00:00Z" });
    expect(applyFilter([started], { ...NO_FILTER, since: "2026-03-05", until: "2026-03-05" })).toEqual([started]);
    expect(applyFilter([started], { ...NO_FILTER, since: "2026-03-06" })).toEqual([]);
  });

  it("combine with AND", () => {
    expect(ids({ agent: "claude", model: "claude-opus" })).toEqual(["a"]);
    expect(ids({ live: true, archived: true })).toEqual([]);
  });

  it("a parent of another provider is not ours", () => {
    const list = [s("a"), s("x", { provider: "codex", parent_id: "a" })];
    expect(applyFilter(list, { ...NO_FILTER, has_subagents: true })).toEqual([]);
  });

  it("show a chip per filter set, and removing one restores the list", () => {
    const f: Filter = { ...NO_FILTER, agent: "codex", since: "2026-03-01", model: "gpt-5", live: true };
    expect(chipsOf(f).map((c) => c.label)).toEqual(["Agent: Codex CLI", "From 2026-03-01", "Model: gpt-5", "Live"]);
    expect(chipsOf(NO_FILTER)).toEqual([]);
    let g = f;
    for (const chip of chipsOf(f)) g = without(g, chip.key);
    expect(g).toEqual(NO_FILTER);
    expect(applyFilter(all, g)).toBe(all);
    expect(chipsOf(without(f, "live")).map((c) => c.key)).toEqual(["agent", "since", "model"]);
  });

  it("save only the filter keys that changed, '' for not set", () => {
    const next: Filter = { ...NO_FILTER, agent: "codex", live: true };
    expect(filterChanges(NO_FILTER, next)).toEqual([
      { key: "filter.agent", value: "codex" },
      { key: "filter.live", value: true },
    ]);
    expect(filterChanges(next, { ...next, agent: null })).toEqual([{ key: "filter.agent", value: "" }]);
    expect(filterChanges(next, next)).toEqual([]);
  });

  it("offer the models seen, most used first", () => {
    expect(modelsOf(all)).toEqual(["claude-opus", "claude-haiku", "gpt-5"]);
  });
});

describe("merging changes", () => {
  const list = [...all].sort(newestFirst);
  it("keeps core's order: newest first, undated last, ties by provider then id", () => {
    expect(list.map((x) => x.id)).toEqual(["c", "b", "a", "a-child", "undated"]);
  });

  it("replaces changed sessions, adds new ones in order, drops removed ones", () => {
    const changed = [s("a", { title: "renamed", updated_at: "2026-03-30T00:00:00Z" }), s("new", { updated_at: "2026-03-15T00:00:00Z" })];
    const merged = mergeChanges(list, changed, [{ provider: "codex", id: "b" }]);
    expect(merged.map((x) => x.id)).toEqual(["a", "c", "new", "a-child", "undated"]);
    expect(merged[0].title).toBe("renamed");
    expect(merged.filter((x) => x.id === "a")).toHaveLength(1);
  });

  it("drops only the removed copy when two files hold one session", () => {
    const copy = s("a", { source_path: "/s/copy/a" });
    const two = [...list, copy].sort(newestFirst);
    const merged = mergeChanges(two, [], [{ provider: "claude", id: "a", source_path: "/s/copy/a" }]);
    expect(merged.filter((x) => x.id === "a").map((x) => x.source_path)).toEqual(["/s/a"]);
  });

  it("is a no-op without changes, and a removal of another provider's id leaves ours", () => {
    expect(mergeChanges(list, [], [])).toBe(list);
    expect(mergeChanges(list, [], [{ provider: "opencode", id: "a" }]).map((x) => x.id)).toEqual(list.map((x) => x.id));
  });

  it("missing directories are re-said for changed sessions only", () => {
    const missing = new Set(["/gone", "/w/app"]);
    const out = mergeMissing(missing, [s("a", { dir: "/w/app" })], []);
    expect([...out]).toEqual(["/gone"]);
    expect([...mergeMissing(out, [s("z", { cwd: "/new-gone" })], ["/new-gone"])]).toEqual(["/gone", "/new-gone"]);
  });

  it("a directory that came back is no longer missing, whatever trailing slash its session's cwd has", () => {
    // The backend says missing directories without the slash (core paths::missing_dirs).
    const out = mergeMissing(new Set(["/w/app"]), [s("a", { cwd: "/w/app/" })], []);
    expect([...out]).toEqual([]);
  });
});

describe("a day typed into a date filter", () => {
  it("is no filter when empty, the day when YYYY-MM-DD of a real day, else says how to write it", () => {
    expect(parseDay("")).toEqual({ day: null });
    expect(parseDay(" 2026-11-30 ")).toEqual({ day: "2026-11-30" });
    expect(parseDay("2024-02-29")).toEqual({ day: "2024-02-29" });
    for (const bad of ["2026-02-30", "30/11/2026", "2026-1-3", "yesterday"]) {
      expect(parseDay(bad)).toHaveProperty("error");
    }
  });
});
