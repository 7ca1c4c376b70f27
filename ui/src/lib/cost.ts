// A session's or a group's cost as people read it (core `pricing`): the agent's own figure, an
// estimate from the bundled price table marked "≈", or why there is none — never a silent "–"
// for a model we have no price for.
import type { Figures, SessionMeta } from "./generated";

/** The header's cost of one session, with its tooltip; null when there is nothing to say. */
export function sessionCost(s: SessionMeta): { text: string; title: string } | null {
  switch (s.cost_basis) {
    case "recorded":
      return s.cost_usd === null ? null : { text: `$${s.cost_usd.toFixed(3)}`, title: "Cost recorded by the agent" };
    case "estimated":
      return s.cost_estimate_usd === null
        ? null
        : {
            text: `≈ $${s.cost_estimate_usd.toFixed(3)}`,
            title: `Estimated from the session's tokens at ${s.model}'s list price (bundled price table; config.toml [prices] overrides)`,
          };
    case "unpriced":
      return {
        text: "no price",
        title: s.model
          ? `No price for ${s.model}: add it under [prices] in config.toml to see its cost`
          : "The agent recorded no model, so its tokens cannot be priced",
      };
    default:
      return s.cost_usd === null ? null : { text: `$${s.cost_usd.toFixed(3)}`, title: "Cost recorded by the agent" };
  }
}

/** A stats group's cost: "$1.20", "≈ $1.20" when any of it is estimated, "+?" when sessions
 * with tokens had no price, "–" when there is no cost at all. */
export function figuresCost(f: Pick<Figures, "cost_usd" | "with_cost" | "estimated" | "unpriced">): string {
  if (f.with_cost === 0) return f.unpriced > 0 ? "no price" : "–";
  return `${f.estimated > 0 ? "≈ " : ""}$${f.cost_usd.toFixed(2)}${f.unpriced > 0 ? " +?" : ""}`;
}

/** The tooltip saying what a group's cost is made of. */
export function figuresCostTitle(f: Pick<Figures, "sessions" | "with_cost" | "estimated" | "unpriced">): string {
  const parts = [`${f.with_cost - f.estimated} of ${f.sessions} sessions recorded a cost`];
  if (f.estimated > 0) parts.push(`${f.estimated} estimated from their tokens (bundled price table)`);
  if (f.unpriced > 0) parts.push(`${f.unpriced} have no price for their model and are left out (config.toml [prices])`);
  return parts.join("; ");
}
