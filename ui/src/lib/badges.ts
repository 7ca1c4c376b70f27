// Each agent's badge colours as CSS, from the registry (agents.ts, generated): an agent added
// there gets its badge without a CSS edit.
import { AGENTS, type Agent } from "./agents";

export function badgeStyles(agents: readonly Agent[] = AGENTS): string {
  return agents
    .map(({ kind, colours: { light, dark } }) =>
      `.badge.${kind} { background: ${light[0]}; color: ${light[1]}; }\n` +
      `[data-theme="dark"] .badge.${kind} { background: ${dark[0]}; color: ${dark[1]}; }`)
    .join("\n");
}
