// The list's filters as chips, and merging the backend's changes into the list. The filter
// rules are core's (crates/core/src/filter.rs, the CLI's `scan` flags): every set filter must
// pass; days are UTC and inclusive, compared with the day of the last activity (the last
// update, else the start: the day stats and Home's heatmap count it under); the model is matched
// exactly; a subagent session is judged by itself. Pure functions, unit-tested (on the same
// cases as core's tests).

import { PROVIDER_LABEL, dirOf, idKey, sessionKey as keyOf } from "./group";
import type { ListFilter, SessionMeta, SessionRef, SettingChange } from "./types";

/** Days are YYYY-MM-DD. */
export type Filter = ListFilter;

export const NO_FILTER: Filter = {
  agent: null, since: null, until: null, model: null, has_subagents: false, archived: false, live: false,
};

export type FilterKey = keyof Filter;

/** provider:id of every session another names as its parent. */
function parents(sessions: SessionMeta[]): Set<string> {
  const out = new Set<string>();
  for (const s of sessions) if (s.parent_id) out.add(`${s.provider}:${s.parent_id}`);
  return out;
}

export function matches(s: SessionMeta, f: Filter, hasSubagents: boolean): boolean {
  // The UTC day of an RFC 3339 "…Z" time is its first ten characters.
  const active = s.updated_at ?? s.created_at;
  const day = active ? new Date(active).toISOString().slice(0, 10) : null;
  const inRange = (!f.since && !f.until) || (day !== null && (!f.since || day >= f.since) && (!f.until || day <= f.until));
  return (!f.agent || s.provider === f.agent)
    && inRange
    && (!f.model || s.model === f.model)
    && (!f.has_subagents || hasSubagents)
    && (!f.archived || s.archived)
    && (!f.live || s.live);
}

export const isEmpty = (f: Filter): boolean => chipsOf(f).length === 0;

/** The sessions that pass `f`, in their order. */
export function applyFilter(sessions: SessionMeta[], f: Filter): SessionMeta[] {
  if (isEmpty(f)) return sessions;
  const p = parents(sessions);
  return sessions.filter((s) => matches(s, f, p.has(idKey(s))));
}

export interface Chip { key: FilterKey; label: string }

/** One removable chip per filter that is set, in a fixed order. */
export function chipsOf(f: Filter): Chip[] {
  const out: Chip[] = [];
  if (f.agent) out.push({ key: "agent", label: `Agent: ${PROVIDER_LABEL[f.agent]}` });
  if (f.since) out.push({ key: "since", label: `From ${f.since}` });
  if (f.until) out.push({ key: "until", label: `Until ${f.until}` });
  if (f.model) out.push({ key: "model", label: `Model: ${f.model}` });
  if (f.has_subagents) out.push({ key: "has_subagents", label: "Has subagents" });
  if (f.archived) out.push({ key: "archived", label: "Archived" });
  if (f.live) out.push({ key: "live", label: "Live" });
  return out;
}

/** `f` with one filter back to its default (a chip removed). */
export function without(f: Filter, key: FilterKey): Filter {
  return { ...f, [key]: NO_FILTER[key] };
}

/** The settings keys to save for a filter that changed from `saved` (only those that differ). */
export function filterChanges(saved: Filter, next: Filter): SettingChange[] {
  const keys = Object.keys(NO_FILTER) as FilterKey[];
  return keys.filter((k) => (saved[k] ?? null) !== (next[k] ?? null)).map((k) => ({
    key: `filter.${k}`,
    // The file keeps "" for "not set".
    value: typeof NO_FILTER[k] === "boolean" ? next[k] : (next[k] ?? ""),
  }));
}

/** The models seen, most used first: what the model filter offers. */
export function modelsOf(sessions: SessionMeta[]): string[] {
  const n = new Map<string, number>();
  for (const s of sessions) if (s.model) n.set(s.model, (n.get(s.model) ?? 0) + 1);
  return [...n].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([m]) => m);
}

/** The list in core's order (SessionMeta::newest_first): newest update first, then provider, id. */
export function newestFirst(a: SessionMeta, b: SessionMeta): number {
  const ta = a.updated_at ? Date.parse(a.updated_at) : -Infinity;
  const tb = b.updated_at ? Date.parse(b.updated_at) : -Infinity;
  if (ta !== tb) return tb > ta ? 1 : -1;
  return a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The list with the backend's changes applied: changed sessions replace (or join) theirs,
 * removed ones go; the order stays core's. */
export function mergeChanges(list: SessionMeta[], changed: SessionMeta[], removed: SessionRef[]): SessionMeta[] {
  if (!changed.length && !removed.length) return list;
  const drop = new Set([...changed, ...removed].map(keyOf));
  // A removal without a file (an older host's feed) names every copy of that agent and id.
  const dropAll = new Set(removed.filter((r) => r.source_path == null).map(idKey));
  return [...list.filter((s) => !drop.has(keyOf(s)) && !dropAll.has(idKey(s))), ...changed].sort(newestFirst);
}

/** The missing directories after a change: the changed sessions' directories say again whether
 * they exist; others keep what the last listing said. */
export function mergeMissing(missing: Set<string>, changed: SessionMeta[], nowMissing: string[]): Set<string> {
  const out = new Set(missing);
  // Named as the backend names them (no trailing slash): a cwd kept its slash, and a
  // directory that came back stayed marked missing.
  for (const s of changed) if (s.dir ?? s.cwd) out.delete(dirOf(s));
  for (const d of nowMissing) out.add(d);
  return out;
}

/** A day typed into a date filter: "" is no filter; else YYYY-MM-DD of a real day. (The
 * filters were date pickers, which WebKit shows with today's date when empty, as if set.) */
export function parseDay(text: string): { day: string | null } | { error: string } {
  const t = text.trim();
  if (!t) return { day: null };
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  const date = m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])) : null;
  if (!date || date.toISOString().slice(0, 10) !== t) return { error: `“${t}” is not a day: write it as YYYY-MM-DD, e.g. 2026-11-30` };
  return { day: t };
}
