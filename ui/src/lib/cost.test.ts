import { describe, expect, it } from "vitest";
import { figuresCost, figuresCostTitle, sessionCost } from "./cost";
import { session } from "./testing";

describe("cost", () => {
  it("shows the agent's figure, an estimate marked ≈, or why there is none", () => {
    expect(sessionCost(session("a", { cost_usd: 0.5, cost_basis: "recorded" }))?.text).toBe("$0.500");
    const est = sessionCost(session("b", { cost_estimate_usd: 1.25, cost_basis: "estimated", model: "gpt-5-codex" }));
    expect(est?.text).toBe("≈ $1.250");
    expect(est?.title).toContain("gpt-5-codex");
    const none = sessionCost(session("c", { cost_basis: "unpriced", model: "mock-model" }));
    expect(none?.text).toBe("no price");
    expect(none?.title).toContain("mock-model");
    expect(none?.title).toContain("[prices]");
    expect(sessionCost(session("d", { cost_basis: "none" }))).toBeNull();
  });

  it("marks groups with estimates and unpriced sessions", () => {
    const f = { sessions: 5, cost_usd: 3.456, with_cost: 3, estimated: 2, unpriced: 1 };
    expect(figuresCost(f)).toBe("≈ $3.46 +?");
    expect(figuresCostTitle(f)).toBe(
      "1 of 5 sessions recorded a cost; 2 estimated from their tokens (bundled price table); 1 have no price for their model and are left out (config.toml [prices])",
    );
    expect(figuresCost({ cost_usd: 2, with_cost: 2, estimated: 0, unpriced: 0 })).toBe("$2.00");
    expect(figuresCost({ cost_usd: 0, with_cost: 0, estimated: 0, unpriced: 4 })).toBe("no price");
    expect(figuresCost({ cost_usd: 0, with_cost: 0, estimated: 0, unpriced: 0 })).toBe("–");
  });
});
