// The session list rendered (Svelte's server renderer: the markup a first render makes, no DOM
// needed) over two sessions of different agents that share an id, as the generated bench
// corpus and real stores have them: only the session shown is marked open.

import { describe, expect, it } from "vitest";
import { render } from "svelte/server";
import SessionList from "./SessionList.svelte";
import { childrenOf, topLevel } from "../lib/group";
import type { SessionMeta, SessionRef } from "../lib/types";
import { session } from "../lib/testing";

const ID = "970d7842-0000-4000-8000-000000000001";
const claude = session(ID, { title: "claude one", source_path: `/claude/${ID}.jsonl` });
const codex = session(ID, { provider: "codex", title: "codex one", source_path: `/codex/rollout-${ID}.jsonl` });
const sub = session("agent-1", { parent_id: ID, title: "claude's subagent" });
const all = [claude, codex, sub];

/** Each rendered row: its agent, id, whether it is marked open (aria-selected and the class),
 * and the subagent line under it. */
function rows(open: SessionRef | null, listed: SessionMeta[] = all): { provider: string; id: string; selected: boolean; openClass: boolean; subs: string }[] {
  const { body } = render(SessionList, {
    props: {
      sessions: topLevel(listed), children: childrenOf(listed), open, cursor: -1, showAgent: true,
      onopen: () => {}, menu: [], onmenu: () => {},
    },
  });
  const items = body.split('<div class="item"').slice(1);
  return items.map((item) => {
    const button = item.match(/<button([^>]*)>/)?.[1] ?? "";
    const attr = (name: string) => button.match(new RegExp(`${name}="([^"]*)"`))?.[1] ?? "";
    return {
      provider: attr("data-provider"),
      id: attr("data-id"),
      selected: attr("aria-selected") === "true",
      openClass: /class="[^"]*\bopen\b/.test(button),
      subs: item.match(/class="subs[^>]*>([^<]*)</)?.[1].trim() ?? "",
    };
  });
}

describe("the session list with one id under two agents", () => {
  it("marks only the session that is open, by agent and id", () => {
    const openCodex = rows({ provider: "codex", id: ID });
    expect(openCodex.map((r) => [r.provider, r.id, r.selected, r.openClass])).toEqual([
      ["claude", ID, false, false],
      ["codex", ID, true, true],
    ]);
    const openClaude = rows({ provider: "claude", id: ID });
    expect(openClaude.map((r) => [r.provider, r.selected, r.openClass])).toEqual([
      ["claude", true, true],
      ["codex", false, false],
    ]);
    expect(rows(null).some((r) => r.selected || r.openClass)).toBe(false);
  });

  it("shows the Claude session's subagent under the Claude row only", () => {
    expect(rows(null).map((r) => [r.provider, r.subs])).toEqual([
      ["claude", "▸ 1 subagent"],
      ["codex", ""],
    ]);
  });
});

describe("the session list with one session in two files", () => {
  // A Claude project folder copied beside itself: one agent, one id, two files.
  const original = session(ID, { title: "original", source_path: `/p/demo/${ID}.jsonl` });
  const copy = session(ID, { title: "copy", source_path: `/p/demo-copy/${ID}.jsonl` });
  const subOfCopy = session("agent-1", { parent_id: ID, source_path: `/p/demo-copy/${ID}/subagents/agent-1.jsonl` });
  const two = [original, copy, subOfCopy];

  it("marks only the copy that is open, by its file", () => {
    const marks = (open: SessionRef) => rows(open, two).map((r) => [r.selected, r.openClass]);
    expect(marks(copy)).toEqual([[false, false], [true, true]]);
    expect(marks(original)).toEqual([[true, true], [false, false]]);
  });

  it("shows the copy's subagent under the copy's row only", () => {
    expect(rows(null, two).map((r) => r.subs)).toEqual(["", "▸ 1 subagent"]);
  });
});
