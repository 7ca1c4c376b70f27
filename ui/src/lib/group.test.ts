import { describe, expect, it } from "vitest";
import { PROVIDER_LABEL, buildTree, childrenOf, messageTime, relativeTime, rowDate, sameSession, sessionKey, sessionsUnder, sortSessions, topLevel } from "./group";
import { session } from "./testing";

const s = session;

const list = [
  s("a", { updated_at: "2026-11-03T00:00:00Z" }),
  s("b", { provider: "codex", cwd: "/w/app/" }),
  s("c", { cwd: "/w/cli", updated_at: "2026-11-04T00:00:00Z" }),
  s("child", { parent_id: "a" }),
  s("orphan", { parent_id: "gone", cwd: "/w/cli" }),
];

describe("grouping", () => {
  it("nests children under their parent and keeps orphans visible", () => {
    expect(topLevel(list).map((x) => x.id)).toEqual(["a", "b", "c", "orphan"]);
    expect(childrenOf(list).get(sessionKey(list[0]))!.map((x) => x.id)).toEqual(["child"]);
  });

  it("tells apart sessions of two agents that share an id: a subagent nests under its own agent's parent", () => {
    // A Codex session with the id of a Claude one that has a subagent (ids are unique only per
    // agent): the subagent is the Claude session's alone, and the tree counts two top-level sessions.
    const same = [s("x"), s("x", { provider: "codex", source_path: "/c/x" }), s("x-sub", { parent_id: "x" })];
    expect(topLevel(same).map(sessionKey)).toEqual(["claude:x:/s/x", "codex:x:/c/x"]);
    const kids = childrenOf(same);
    expect([...kids.keys()]).toEqual(["claude:x:/s/x"]);
    expect(kids.get("codex:x:/c/x")).toBeUndefined();
    expect(buildTree(same, "agent-dir").map((n) => [n.label, n.count])).toEqual([["Claude Code", 1], ["Codex CLI", 1]]);
    expect(sameSession(same[0], same[1])).toBe(false);
    expect(sameSession(same[1], { provider: "codex", id: "x" })).toBe(true);
    expect(sameSession(null, same[0])).toBe(false);
  });

  it("tells apart one agent's session held by two files (a project folder copied beside itself)", () => {
    // The same Claude session and subagent in two project folders: two rows, each its own
    // subagent (the one nearest its file), a ref with a file matching that copy only.
    const a = s("x", { source_path: "/p/demo/x.jsonl" });
    const b = s("x", { source_path: "/p/demo-copy/x.jsonl", title: "the copy" });
    const subA = s("agent-1", { parent_id: "x", source_path: "/p/demo/x/subagents/agent-1.jsonl" });
    const subB = s("agent-1", { parent_id: "x", source_path: "/p/demo-copy/x/subagents/agent-1.jsonl" });
    const two = [a, b, subA, subB];
    expect(sessionKey(a)).not.toBe(sessionKey(b));
    expect(topLevel(two)).toEqual([a, b]);
    const kids = childrenOf(two);
    expect(kids.get(sessionKey(a))).toEqual([subA]);
    expect(kids.get(sessionKey(b))).toEqual([subB]);
    expect(sameSession(a, b)).toBe(false);
    expect(sameSession({ provider: "claude", id: "x", source_path: b.source_path }, b)).toBe(true);
    // A search hit names no file: it is either copy.
    expect(sameSession({ provider: "claude", id: "x" }, b)).toBe(true);
  });

  it("groups directory → agent, newest directory first, trailing slashes merged", () => {
    const tree = buildTree(list, "dir-agent", new Set(["/w/cli"]));
    expect(tree.map((n) => [n.label, n.title, n.count, n.missing])).toEqual([["cli", "/w/cli", 2, true], ["app", "/w/app", 2, false]]);
    expect(tree[1].children.map((n) => [n.label, n.count])).toEqual([["Claude Code", 1], ["Codex CLI", 1]]);
  });

  it("names directories that end alike by the folders that tell them apart, the full path as title", () => {
    const demos = ["bob", "alice", "carol"].map((u) => s(u, { cwd: `/home/${u}/projects/demo` }));
    for (const mode of ["dir-agent", "agent-dir"] as const) {
      const tree = buildTree(demos, mode);
      const dirs = mode === "dir-agent" ? tree : tree[0].children;
      expect(dirs.map((n) => [n.label, n.title]).sort()).toEqual([
        ["alice/projects/demo", "/home/alice/projects/demo"], ["bob/projects/demo", "/home/bob/projects/demo"],
        ["carol/projects/demo", "/home/carol/projects/demo"],
      ]);
    }
  });

  it("groups agent → directory and selects sessions under a node", () => {
    const tree = buildTree(list, "agent-dir");
    expect(tree.map((n) => n.label)).toEqual(["Claude Code", "Codex CLI"]);
    expect(tree[0].children.map((n) => n.label)).toEqual(["cli", "app"]);
    expect(sessionsUnder(list, tree[0].children[0].key).map((x) => x.id)).toEqual(["c", "orphan"]);
    expect(sessionsUnder(list, "dir:/w/app/agent:codex").map((x) => x.id)).toEqual(["b"]);
    expect(buildTree(list, "flat")).toEqual([]);
  });

  it("folds directories and worktrees under their repository, and uses core's normalised dir", () => {
    const repo = [
      s("main", { cwd: "/w/app", repo_root: "/w/app" }),
      s("sub", { cwd: "/w/app/src", repo_root: "/w/app" }),
      s("wt", { cwd: "/w/app-feature", repo_root: "/w/app" }),
      s("agent-wt", { cwd: "/w/app/.claude/worktrees/x", repo_root: "/w/app" }),
      s("linked", { cwd: "/home/u/link/../lnk", dir: "/w/other" }),
    ];
    const open = buildTree(repo, "dir-agent");
    expect(open.map((n) => n.title).sort()).toEqual(["/w/app", "/w/app-feature", "/w/app/.claude/worktrees/x", "/w/app/src", "/w/other"]);
    const folded = buildTree(repo, "dir-agent", new Set(), true);
    expect(folded.map((n) => [n.label, n.count]).sort()).toEqual([["app", 4], ["other", 1]]);
    expect(sessionsUnder(repo, "dir:/w/app", true).map((x) => x.id)).toEqual(["main", "sub", "wt", "agent-wt"]);
    expect(sessionsUnder(repo, "dir:/w/app", false).map((x) => x.id)).toEqual(["main"]);
  });

  it("shows a folded repository's directories as its children, each with its agents", () => {
    const repo = [
      s("main", { cwd: "/w/app", repo_root: "/w/app", updated_at: "2026-11-05T00:00:00Z" }),
      s("main2", { cwd: "/w/app/", dir: "/w/app", repo_root: "/w/app", provider: "codex", updated_at: "2026-11-01T00:00:00Z" }),
      s("sub", { cwd: "/w/app/src", repo_root: "/w/app", updated_at: "2026-11-04T00:00:00Z" }),
      s("wt", { cwd: "/w/app-feature", repo_root: "/w/app", updated_at: "2026-11-03T00:00:00Z" }),
      s("alone", { cwd: "/w/lib", repo_root: "/w/lib" }),
    ];
    const folded = buildTree(repo, "dir-agent", new Set(["/w/app-feature"]), true);
    expect(folded.map((n) => [n.key, n.count])).toEqual([["dir:/w/app", 4], ["dir:/w/lib", 1]]);
    const app = folded[0];
    // Named under the repository (the full path is the node's title); a worktree elsewhere by its path's end.
    expect(app.children.map((n) => [n.key, n.label, n.title, n.count, n.missing])).toEqual([
      ["dir:/w/app/in:/w/app", "app", "/w/app", 2, false],
      ["dir:/w/app/in:/w/app/src", "app/src", "/w/app/src", 1, false],
      ["dir:/w/app/in:/w/app-feature", "/w/app-feature", "/w/app-feature", 1, true],
    ]);
    const deep = buildTree([s("d", { cwd: "/h/u/ws/app-wt", repo_root: "/h/u/app" }), s("r", { cwd: "/h/u/app", repo_root: "/h/u/app" })],
      "dir-agent", new Set(), true);
    expect(deep[0].children.map((n) => [n.label, n.title])).toEqual([
      ["…/ws/app-wt", "/h/u/ws/app-wt"], ["app", "/h/u/app"],
    ]);
    expect(app.children[0].children.map((n) => [n.key, n.count])).toEqual([
      ["dir:/w/app/in:/w/app/agent:claude", 1], ["dir:/w/app/in:/w/app/agent:codex", 1],
    ]);
    // A repository that is only its own root has its agents as children, as unfolded.
    expect(folded[1].children.map((n) => n.key)).toEqual(["dir:/w/lib/agent:claude"]);
    // Each node selects what it counts.
    for (const n of [app, ...app.children, ...app.children[0].children]) {
      expect(sessionsUnder(repo, n.key, true).length).toBe(n.count);
    }
    expect(sessionsUnder(repo, "dir:/w/app/in:/w/app-feature", true).map((x) => x.id)).toEqual(["wt"]);
    expect(sessionsUnder(repo, "dir:/w/app/in:/w/app/agent:codex", true).map((x) => x.id)).toEqual(["main2"]);
    // Agent → repository → its directories.
    const byAgent = buildTree(repo, "agent-dir", new Set(), true);
    const claude = byAgent.find((n) => n.key === "agent:claude")!;
    expect(claude.children.map((n) => [n.key, n.count])).toEqual([["agent:claude/dir:/w/app", 3], ["agent:claude/dir:/w/lib", 1]]);
    expect(claude.children[0].children.map((n) => [n.key, n.count])).toEqual([
      ["agent:claude/dir:/w/app/in:/w/app", 1], ["agent:claude/dir:/w/app/in:/w/app/src", 1], ["agent:claude/dir:/w/app/in:/w/app-feature", 1],
    ]);
    expect(sessionsUnder(repo, "agent:claude/dir:/w/app/in:/w/app/src", true).map((x) => x.id)).toEqual(["sub"]);
    // Unfolded, nothing has directory children.
    expect(buildTree(repo, "dir-agent").flatMap((n) => n.children).every((c) => c.key.includes("/agent:"))).toBe(true);
  });

  it("sorts by cost, ties broken by provider then id as core does", () => {
    const a = s("a", { cost_usd: 1 });
    const b = s("b", { cost_usd: 3 });
    const c = s("c", { cost_usd: null, provider: "codex" });
    const d = s("d", { cost_usd: null });
    expect(sortSessions([c, d, a, b], "cost").map((x) => x.id)).toEqual(["b", "a", "d", "c"]);
    // An estimate counts where the agent recorded no cost, as core's sort does.
    const e = s("e", { cost_usd: null, cost_estimate_usd: 2, cost_basis: "estimated" });
    expect(sortSessions([c, d, a, b, e], "cost").map((x) => x.id)).toEqual(["b", "e", "a", "d", "c"]);
  });

  it("sorts by the chosen key", () => {
    const more = s("m", { counts: { user: 9, assistant: 9, tool_calls: 0 } });
    expect(sortSessions([...list, more], "messages")[0].id).toBe("m");
    expect(sortSessions(list, "updated")[0].id).toBe("c");
  });
});

describe("relative time", () => {
  const now = Date.parse("2026-11-30T12:00:00Z");
  it.each([
    ["2026-11-30T11:59:50Z", "now"],
    ["2026-11-30T11:55:00Z", "5m"],
    ["2026-11-30T09:00:00Z", "3h"],
    ["2026-11-28T12:00:00Z", "2d"],
    ["2026-11-09T12:00:00Z", "3w"],
    ["2026-07-30T12:00:00Z", "4mo"],
    ["2024-11-30T12:00:00Z", "2y"],
  ])("%s is %s", (iso, want) => {
    expect(relativeTime(iso, now)).toBe(want);
  });
  it("is empty without a time", () => expect(relativeTime(null, now)).toBe(""));
});

describe("a row's date", () => {
  const now = Date.parse("2026-11-30T12:00:00Z");
  it.each([
    ["2026-11-30T11:59:50Z", "just now"],
    ["2026-11-30T09:00:00Z", "3h ago"],
    ["2026-11-28T12:00:00Z", "2d ago"],
    ["2026-11-20T12:00:00Z", "Nov 20"],
    ["2026-03-02T12:00:00Z", "Mar 2"],
    ["2024-11-30T12:00:00Z", "Nov 30, 2024"],
  ])("%s reads %s", (iso, want) => {
    expect(rowDate(iso, now)).toBe(want);
  });
  it("is empty without a time", () => expect(rowDate(null, now)).toBe(""));
});

describe("one name per agent", () => {
  it("is the registry's display name everywhere", () => {
    expect(PROVIDER_LABEL).toEqual({
      claude: "Claude Code",
      codex: "Codex CLI",
      opencode: "OpenCode",
      gemini: "Gemini CLI",
      qwen: "Qwen Code",
      cline: "Cline",
      copilot: "GitHub Copilot CLI",
      aider: "Aider",
    });
  });
});

describe("a message's time", () => {
  const now = Date.parse("2026-11-30T18:00:00");
  it("is the clock today, the day and clock this year, with the year before", () => {
    const clock = (iso: string) => new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit" }).format(new Date(iso));
    expect(messageTime("2026-11-30T09:22:04", now)).toBe(clock("2026-11-30T09:22:04"));
    expect(messageTime("2026-11-02T09:22:04", now)).toBe(`Nov 2, ${clock("2026-11-02T09:22:04")}`);
    expect(messageTime("2025-11-02T09:22:04", now)).toBe(`Nov 2, 2025, ${clock("2025-11-02T09:22:04")}`);
    expect(messageTime(null, now)).toBe("");
  });
});
