// What the search results say of their own completeness (see the backend's `Found`): nothing
// when every session was searched through the index.

import type { Found } from "./types";

export function searchCompleteness(found: Found): string {
  if (found.listing) return "Sessions are still being listed: those not listed yet were not searched.";
  if (found.partial) return "Some sessions could not be read: matches may be missing.";
  const n = found.read_directly;
  if (n > 0) {
    const sessions = n === 1 ? "1 session" : `${n.toLocaleString("en-US")} sessions`;
    return `${sessions} not indexed yet ${n === 1 ? "was" : "were"} searched by reading ${n === 1 ? "it" : "them"}: the order may change once indexing ends.`;
  }
  return "";
}
