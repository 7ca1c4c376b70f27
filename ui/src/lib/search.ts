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
