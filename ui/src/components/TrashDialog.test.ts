// The trash dialog offers what the session's agent can do, from the registry (agents.ts): a
// mode the agent lacks is disabled with its reason shown, and an agent without a trash starts
// on permanent deletion when that is allowed. Rendered with Svelte's server renderer (no plan is
// asked: effects do not run there).

import { describe, expect, it } from "vitest";
import { render } from "svelte/server";
import TrashDialog from "./TrashDialog.svelte";
import { AGENTS } from "../lib/agents";
import type { SessionMeta } from "../lib/types";

const session = (provider: SessionMeta["provider"]) => ({ provider, id: "s1", title: "A session" }) as SessionMeta;
const radio = (body: string, mode: string) => body.match(new RegExp(`<input[^>]*data-testid="trash-mode-${mode}"[^>]*>`))![0];

describe("TrashDialog", () => {
  for (const agent of AGENTS) {
    it(`offers ${agent.label}'s modes as the registry says`, () => {
      const { body } = render(TrashDialog, {
        props: { session: session(agent.kind), allowPermanent: true, onclose: () => {}, ondone: () => {} },
      });
      // The agent by its name, as everywhere else in the window.
      expect(body).toContain(`>${agent.label}</span>`);
      expect(/disabled/.test(radio(body, "trash"))).toBe(!!agent.trash_unavailable);
      expect(/disabled/.test(radio(body, "permanent"))).toBe(!!agent.delete_unavailable);
      const why = agent.trash_unavailable ?? agent.delete_unavailable;
      if (why) expect(body).toContain(why.replace(/&/g, "&amp;").replace(/</g, "&lt;"));
      else expect(body).not.toContain('data-testid="trash-mode-unavailable"');
      // Starts on the mode it has: permanent only when it has no trash.
      expect(/checked/.test(radio(body, "permanent"))).toBe(!!agent.trash_unavailable && !agent.delete_unavailable);
    });
  }

  it("has an agent that lacks a mode to show (the fixtures' agents include one)", () => {
    expect(AGENTS.some((a) => a.trash_unavailable || a.delete_unavailable)).toBe(true);
  });
});
