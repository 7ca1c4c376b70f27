// Home's tables rendered (Svelte's server renderer): each group's name is a button that says
// what a click does, its tokens are short (12 M) with the exact figure as the tooltip, and its
// cost carries "$" and "≈" for an estimate.

import { describe, expect, it } from "vitest";
import { render } from "svelte/server";
import GroupTable from "./GroupTable.svelte";
import { emptyGroup } from "../lib/figures";

const group = (key: string, sessions: number, input: number, cost: number, estimated: number) => ({
  ...emptyGroup(key), sessions, tokens: { input, output: 0, cache_read: 0, cache_write: 0 }, cost_usd: cost, with_cost: sessions, estimated,
});

describe("GroupTable", () => {
  it("names each group with a button and writes its figures short", () => {
    const { body } = render(GroupTable, {
      props: {
        caption: "Per model", name: "Model", testid: "t", label: (k: string) => k, onpick: () => {},
        rows: [group("gpt-5-codex", 4, 12_345_678, 1.2, 4), group("claude-x", 2, 950, 0.5, 0)], more: "3 more in All stats",
      },
    });
    const rows = body.split('data-testid="t-row"').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('data-key="gpt-5-codex"');
    expect(rows[0]).toContain('title="Show the sessions of gpt-5-codex in the list"');
    expect(rows[0]).toMatch(/title="12,345,678 tokens"[^>]*>12 M</);
    expect(rows[0]).toContain("≈ $1.20");
    expect(rows[1]).toMatch(/title="950 tokens"[^>]*>950</);
    expect(rows[1]).toContain(">$0.50<");
    // The busiest group's bar is full, the other's its share of sessions.
    expect(rows[0]).toContain("width: 100%");
    expect(rows[1]).toContain("width: 50%");
    expect(body).toContain("3 more in All stats");
  });

  it("names the group without a value plainly: there is no filter for it", () => {
    const { body } = render(GroupTable, {
      props: { caption: "Per model", name: "Model", testid: "t", label: (k: string) => k, onpick: () => {}, rows: [group("(none)", 3, 0, 0, 0)] },
    });
    expect(body).toContain("(none)");
    expect(body).not.toContain("<button");
  });
});
