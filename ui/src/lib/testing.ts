// Test data shared by the unit tests: a session with every field, overridable.

import type { SessionMeta } from "./types";

export function session(id: string, over: Partial<SessionMeta> = {}): SessionMeta {
  return {
    provider: "claude", id, parent_id: null, forked_from: null, cwd: "/w/app", dir: null, repo_root: null, git_branch: null,
    title: id, model: null, agent: null, created_at: "2026-11-01T00:00:00Z", updated_at: "2026-11-01T00:00:00Z",
    counts: { user: 1, assistant: 1, tool_calls: 0 }, changes: null, tokens: null, cost_usd: null, cost_estimate_usd: null, cost_basis: "none", archived: false, live: false, turn: null,
    source_path: `/s/${id}`, format_version: null, ...over,
  };
}
