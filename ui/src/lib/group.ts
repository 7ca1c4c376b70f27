// Grouping, sorting and time formatting for the three panes. Pure functions, unit-tested.

import { AGENTS } from "./agents";
import { distinctSuffixes } from "./paths";
import type { Provider, SessionMeta, SessionRef, SortBy } from "./types";

export type GroupMode = "dir-agent" | "agent-dir" | "flat";
export type SortKey = SortBy;

export interface TreeNode {
  key: string;
  label: string;
  /** The full path when the label is a shorter name for it (a directory inside a repository). */
  title?: string;
  count: number;
  missing: boolean;
  children: TreeNode[];
}

/** Each agent's one name, the registry's display name (lib/agents.ts): "Claude" and "claude"
 * both showed for one agent. */
export const PROVIDER_LABEL = Object.fromEntries(AGENTS.map((a) => [a.kind, a.label])) as Record<Provider, string>;

/** The directory a session belongs to: core's normalised one (else its cwd without a trailing
 * slash); folded (`fold`), its repository, worktrees under their main one. */
export function dirOf(s: SessionMeta, fold = false): string {
  const d = (fold ? s.repo_root : null) ?? s.dir ?? s.cwd ?? "";
  return d.length > 1 ? d.replace(/\/+$/, "") : d || "(no directory)";
}

/** A session's agent and id: what a subagent names its parent by, and what the backend resolved
 * a session by before files were named. Ids are unique only per agent (a Codex session may
 * have a Claude one's id), so the id alone never names a session. */
export const idKey = (s: SessionRef): string => `${s.provider}:${s.id}`;

/** A session's identity in the window: its agent, id and the file the list gave for it. Ids are
 * unique per agent only in theory: a project folder copied beside itself lists one session
 * from two files, two rows the window must tell apart (open mark, cursor, expanded set). */
export const sessionKey = (s: SessionRef): string => `${idKey(s)}:${s.source_path ?? ""}`;

/** Whether `a` and `b` are the same session: by agent and id, and by file when both name one
 * (a search hit or a subagent link names none: it is the listed session of that agent and id). */
export const sameSession = (a: SessionRef | null | undefined, b: SessionRef): boolean =>
  !!a && a.provider === b.provider && a.id === b.id && (a.source_path == null || b.source_path == null || a.source_path === b.source_path);

/** How many leading path segments `a` and `b` share. */
function sharedDepth(a: string, b: string): number {
  const x = a.split(/[\\/]/), y = b.split(/[\\/]/);
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n]) n++;
  return n;
}

/** Each session's parent's `sessionKey` (none when it has no parent or the parent is not
 * listed). When two files hold the parent (a copy beside it), a subagent is the copy's whose
 * file is nearest its own (Claude keeps them in a folder beside the transcript), as the
 * backend decides what a trash of either copy takes along. */
function parentKeys(sessions: SessionMeta[]): Map<SessionMeta, string> {
  const byId = new Map<string, SessionMeta[]>();
  for (const s of sessions) byId.set(idKey(s), [...(byId.get(idKey(s)) ?? []), s]);
  const out = new Map<SessionMeta, string>();
  for (const s of sessions) {
    if (!s.parent_id) continue;
    const candidates = byId.get(idKey({ provider: s.provider, id: s.parent_id })) ?? [];
    let best: SessionMeta | undefined;
    for (const c of candidates) {
      if (!best || sharedDepth(c.source_path, s.source_path) > sharedDepth(best.source_path, s.source_path)) best = c;
    }
    if (best) out.set(s, sessionKey(best));
  }
  return out;
}

/** Sessions shown at top level: those whose parent is not in the list. */
export function topLevel(sessions: SessionMeta[]): SessionMeta[] {
  const parents = parentKeys(sessions);
  return sessions.filter((s) => !parents.has(s));
}

/** The parent's `sessionKey` → its child sessions, oldest first. */
export function childrenOf(sessions: SessionMeta[]): Map<string, SessionMeta[]> {
  const out = new Map<string, SessionMeta[]>();
  const parents = parentKeys(sessions);
  for (const s of sessions) {
    const p = parents.get(s);
    if (!p) continue;
    const list = out.get(p) ?? [];
    list.push(s);
    out.set(p, list);
  }
  for (const list of out.values()) list.sort((a, b) => time(a.created_at) - time(b.created_at));
  return out;
}

function time(iso: string | null): number {
  return iso ? Date.parse(iso) : 0;
}

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = out.get(k) ?? [];
    list.push(it);
    out.set(k, list);
  }
  return out;
}

/** The left pane: directories then agents, agents then directories, or nothing (flat).
 * Folded (`fold`), a directory node is a repository; when sessions ran in more than its root
 * (subdirectories, worktrees), its children are those directories (key part `in:`), each with
 * its agents in directory → agent order. */
export function buildTree(sessions: SessionMeta[], mode: GroupMode, missing: Set<string> = new Set(), fold = false): TreeNode[] {
  const top = topLevel(sessions);
  if (mode === "flat") return [];
  const node = (key: string, label: string, list: SessionMeta[], children: TreeNode[], gone = false): TreeNode => ({
    key, label, count: list.length, missing: gone, children,
  });
  const agents = (list: SessionMeta[], prefix: string): TreeNode[] =>
    recentFirst(groupBy(list, (s) => s.provider))
      .map(([p, l]) => node(`${prefix}agent:${p}`, PROVIDER_LABEL[p as Provider], l, []));
  // A place's own directories, when folding gathered more than the one directory it is.
  const inner = (place: string, list: SessionMeta[], prefix: string, withAgents: boolean): TreeNode[] | null => {
    if (!fold) return null;
    const dirs = recentFirst(groupBy(list, (s) => dirOf(s)));
    if (dirs.length === 1 && dirs[0][0] === place) return null;
    return dirs.map(([d, l]) => {
      const key = `${prefix}in:${d}`;
      return { ...node(key, inside(place, d), l, withAgents ? agents(l, `${key}/`) : [], missing.has(d)), title: d };
    });
  };
  // A directory is named by the fewest trailing folders that tell it from the others listed,
  // the same name wherever it shows; its full path is the title.
  const names = distinctSuffixes(top.map((s) => dirOf(s, fold)));
  const dirNode = (key: string, dir: string, list: SessionMeta[], children: TreeNode[]): TreeNode =>
    ({ ...node(key, names.get(dir) ?? dir, list, children, missing.has(dir)), title: dir });
  if (mode === "dir-agent") {
    return recentFirst(groupBy(top, (s) => dirOf(s, fold))).map(([dir, list]) => {
      const key = `dir:${dir}`;
      return dirNode(key, dir, list, inner(dir, list, `${key}/`, true) ?? agents(list, `${key}/`));
    });
  }
  return recentFirst(groupBy(top, (s) => s.provider)).map(([p, list]) => {
    const prefix = `agent:${p}/`;
    const dirs = recentFirst(groupBy(list, (s) => dirOf(s, fold))).map(([d, l]) => {
      const key = `${prefix}dir:${d}`;
      return dirNode(key, d, l, inner(d, l, `${key}/`, false) ?? []);
    });
    return node(prefix.slice(0, -1), PROVIDER_LABEL[p as Provider], list, dirs);
  });
}

/** A directory's name under its repository: the repository's own name and the path below it
 * (`app`, `app/src`, `app/.claude/worktrees/x`); a worktree elsewhere by the end of its path
 * (`…/ws/app-wt`: the end is what tells it apart in a narrow pane). */
function inside(repo: string, dir: string): string {
  const name = repo.split("/").filter(Boolean).pop() ?? repo;
  if (dir === repo) return name;
  if (dir.startsWith(`${repo}/`)) return `${name}/${dir.slice(repo.length + 1)}`;
  const parts = dir.split("/").filter(Boolean);
  return parts.length > 2 ? `…/${parts.slice(-2).join("/")}` : dir;
}

/** Groups, the one with the latest update first (each group's latest computed once: a start
 * sorts every directory of the list, and parsing times per comparison showed). */
function recentFirst(groups: Map<string, SessionMeta[]>): [string, SessionMeta[]][] {
  return [...groups].map((g) => ({ g, t: latest(g[1]) })).sort((a, b) => b.t - a.t).map(({ g }) => g);
}

function latest(list: SessionMeta[]): number {
  return Math.max(...list.map((s) => time(s.updated_at)));
}

/** What a tree key selects: its place (a directory, or a repository when folded), the
 * directory inside a folded repository (`in:`), and the agent. */
function keyParts(key: string): { dir?: string; in?: string; agent?: string } {
  const want: { dir?: string; in?: string; agent?: string } = {};
  for (const part of key.split(/\/(?=dir:|agent:|in:)/)) {
    if (part.startsWith("dir:")) want.dir = part.slice(4);
    if (part.startsWith("in:")) want.in = part.slice(3);
    if (part.startsWith("agent:")) want.agent = part.slice(6);
  }
  return want;
}

/** The sessions under a tree node (all of them for no selection), top level only. */
export function sessionsUnder(sessions: SessionMeta[], key: string | null, fold = false): SessionMeta[] {
  const top = topLevel(sessions);
  if (!key) return top;
  const want = keyParts(key);
  return top.filter((s) => (want.dir === undefined || dirOf(s, fold) === want.dir)
    && (want.in === undefined || dirOf(s) === want.in)
    && (want.agent === undefined || s.provider === want.agent));
}

export function messageCount(s: SessionMeta): number {
  return s.counts.user + s.counts.assistant;
}

function tokenTotal(s: SessionMeta): number {
  const t = s.tokens;
  return t ? t.input + t.output + t.cache_read + t.cache_write : 0;
}

export function sortSessions(list: SessionMeta[], by: SortKey): SessionMeta[] {
  const key: Record<SortKey, (s: SessionMeta) => number> = {
    updated: (s) => time(s.updated_at),
    created: (s) => time(s.created_at),
    messages: messageCount,
    tokens: tokenTotal,
    cost: (s) => s.cost_usd ?? s.cost_estimate_usd ?? 0,
  };
  // Ties as core breaks them (filter::SortKey): provider, then id.
  const tie = (a: SessionMeta, b: SessionMeta) =>
    a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  // Each session's key computed once, not per comparison (times are parsed).
  return list.map((s) => ({ s, k: key[by](s) })).sort((a, b) => b.k - a.k || tie(a.s, b.s)).map(({ s }) => s);
}

/** "now", "5m", "3h", "2d", "3w", "4mo", "2y" — how long ago `iso` was. */
export function relativeTime(iso: string | null, now: number = Date.now()): string {
  if (!iso) return "";
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 45) return "now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h}h`;
  const d = Math.round(h / 24);
  if (d < 14) return `${d}d`;
  if (d < 60) return `${Math.round(d / 7)}w`;
  if (d < 365) return `${Math.round(d / 30)}mo`;
  return `${Math.round(d / 365)}y`;
}

// toLocaleString's own format, made once: each call of toLocaleString builds a formatter, which
// cost a scrolling list milliseconds per row it brought into view.
const FULL_TIME = new Intl.DateTimeFormat(undefined, {
  year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric",
});

const DAY_MONTH = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric" });
const DAY_MONTH_YEAR = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric" });

/** A row's date: how long ago within the last week ("5m ago", "3h ago", "2d ago"), else the day
 * ("Nov 3"; "Nov 3, 2024" in another year). The full time is the row's tooltip. A relative age
 * alone ("6d", "3w") told six rows of a busy week nothing. */
export function rowDate(iso: string | null, now: number = Date.now()): string {
  if (!iso) return "";
  const t = Date.parse(iso);
  if (now - t < 7 * 86_400_000) {
    const age = relativeTime(iso, now);
    return age === "now" ? "just now" : `${age} ago`;
  }
  return (new Date(t).getFullYear() === new Date(now).getFullYear() ? DAY_MONTH : DAY_MONTH_YEAR).format(t);
}

const CLOCK = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit" });

/** A message's time, short: the clock today ("9:22 AM"), with the day this year ("Nov 30,
 * 9:22 AM"), with the year before; the full time is its tooltip (every message carried a full
 * date and time). */
export function messageTime(iso: string | null, now: number = Date.now()): string {
  if (!iso) return "";
  const t = new Date(iso), n = new Date(now);
  const clock = CLOCK.format(t);
  if (t.toDateString() === n.toDateString()) return clock;
  return `${(t.getFullYear() === n.getFullYear() ? DAY_MONTH : DAY_MONTH_YEAR).format(t)}, ${clock}`;
}

/** The full time, as tooltips give it. */
export function fullTime(iso: string | null): string {
  return iso ? FULL_TIME.format(new Date(iso)) : "unknown time";
}

/** The hover text of a session row: full time and the count breakdown. */
export function rowTooltip(s: SessionMeta): string {
  const when = fullTime(s.updated_at);
  return `${when}\nuser ${s.counts.user} · assistant ${s.counts.assistant} · tool calls ${s.counts.tool_calls}`;
}
