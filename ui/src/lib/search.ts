// What the search results say of their own completeness (see the backend's `Found`): nothing
// when every session was searched through the index.

import type { Found, Hit, SessionMeta } from "./types";

export function searchCompleteness(found: Found): string {
  if (found.listing) return "Sessions are still being listed: those not listed yet were not searched.";
  if (found.partial) return "Some sessions could not be read: matches may be missing.";
  const n = found.read_directly;
  if (n > 0) {
    const sessions = n === 1 ? "1 session" : `${n.toLocaleString("en-US")} sessions`;
    const read = `${sessions} not indexed yet ${n === 1 ? "was" : "were"} searched by reading ${n === 1 ? "it" : "them"}`;
    // No hit has an order to change: that every session was searched is the news.
    return found.hits.length === 0 ? `${read}: none matches either.` : `${read}: the order may change once indexing ends.`;
  }
  return "";
}

/** The shortest id prefix a query names a session by (a uuid's first group is 8). */
const ID_PREFIX = 8;

/**
 * The sessions whose id the query is, or starts (one word of at least 8 characters), as title
 * hits first: a pasted session id names its session, though no message text holds it.
 */
export function idHits(query: string, sessions: SessionMeta[]): Hit[] {
  const q = query.trim().toLowerCase();
  if (q.length < ID_PREFIX || /[\s"*]/.test(q)) return [];
  return sessions
    .filter((s) => s.id.toLowerCase().startsWith(q))
    .slice(0, 20)
    .map((s) => ({ session_id: s.id, provider: s.provider, message_id: "", title: s.title, snippet: `session «${s.id}»`, score: 0, source_path: s.source_path }));
}

/** The hits of one session, as the search palette lists them. */
export interface HitGroup {
  /** The session as listed (null: not in the list, e.g. filtered out meanwhile). */
  session: SessionMeta | null;
  provider: Hit["provider"];
  session_id: string;
  title: string;
  hits: Hit[];
}

export type HitOrder = "relevance" | "recency";

/** A hit's session: by its file when it names one (one id can be in two files), else by id. */
const hitKey = (h: Hit) => `${h.provider}:${h.session_id}:${h.source_path}`;

/**
 * The hits grouped per session: by relevance, the sessions in the order of their best hit (the
 * backend ranks hits best first); by recency, the most recently updated session first. Hits
 * keep their order within a session.
 */
export function groupHits(hits: Hit[], sessions: SessionMeta[], order: HitOrder): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const h of hits) {
    const key = hitKey(h);
    let g = groups.get(key);
    if (!g) {
      const session = sessions.find((s) => s.provider === h.provider && s.id === h.session_id
        && (!h.source_path || s.source_path === h.source_path)) ?? null;
      g = { session, provider: h.provider, session_id: h.session_id, title: h.title ?? session?.title ?? h.session_id, hits: [] };
      groups.set(key, g);
    }
    g.hits.push(h);
  }
  const out = [...groups.values()];
  if (order === "recency") {
    const t = (g: HitGroup) => (g.session?.updated_at ? Date.parse(g.session.updated_at) : -Infinity);
    // A stable sort: sessions updated at the same moment stay in relevance order.
    out.sort((a, b) => t(b) - t(a));
  }
  return out;
}

/** The hit `step` (1: next, -1: previous) from `current` among `all`, wrapping at the ends; the
 * first (or last) when none is current. */
export function stepHit(all: Hit[], current: Hit | null, step: 1 | -1): Hit | null {
  if (!all.length) return null;
  const at = current ? all.indexOf(current) : -1;
  if (at < 0) return step === 1 ? all[0] : all[all.length - 1];
  return all[(at + step + all.length) % all.length];
}
