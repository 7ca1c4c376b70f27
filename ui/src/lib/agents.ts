// Generated from the agent registry (crates/providers/src/registry.rs) by src-tauri/src/bindings.rs: do not edit; run `UPDATE_BINDINGS=1 cargo test -p agent-sessions bindings` to regenerate.

import type { ProviderKind } from "./generated";

/** One agent: `colours` are a badge's [background, text], per theme. */
export interface Agent {
  kind: ProviderKind;
  label: string;
  program: string;
  colours: { light: [string, string]; dark: [string, string] };
  /** Why "Continue in…" cannot start this agent; null when it can. */
  handoff_unavailable: string | null;
  /** Why its sessions cannot be moved to the trash; null when they can. */
  trash_unavailable: string | null;
  /** Why its sessions cannot be deleted for good; null when they can. */
  delete_unavailable: string | null;
  /** Whether it keeps sessions where the user works (Aider's history in each project), so its scan also looks in the directories other agents' sessions ran in. */
  looks_near: boolean;
}

/** Every agent, in the order lists show them. */
export const AGENTS: readonly Agent[] = [
  {"colours":{"dark":["#4a3323","#f0c7a4"],"light":["#f3e2d5","#7a4316"]},"delete_unavailable":"Claude Code sessions are only ever moved to the trash, never deleted outright; move it to the trash, then empty the trash","handoff_unavailable":null,"kind":"claude","label":"Claude Code","looks_near":false,"program":"claude","trash_unavailable":null},
  {"colours":{"dark":["#24392a","#b5dcb7"],"light":["#dde8dd","#2f5d2f"]},"delete_unavailable":null,"handoff_unavailable":null,"kind":"codex","label":"Codex CLI","looks_near":false,"program":"codex","trash_unavailable":null},
  {"colours":{"dark":["#2c2e4f","#c5c8f4"],"light":["#dfe0f5","#3b3f8f"]},"delete_unavailable":null,"handoff_unavailable":null,"kind":"opencode","label":"OpenCode","looks_near":false,"program":"opencode","trash_unavailable":"OpenCode has no trash or archive for sessions: an OpenCode session can only be deleted permanently"},
  {"colours":{"dark":["#1f2f4d","#b3cdf7"],"light":["#dbe7fb","#1f4f9c"]},"delete_unavailable":"Gemini CLI deletes a session only by its position in --list-sessions, which can name another session by the time it runs; move it to the trash, then empty the trash","handoff_unavailable":null,"kind":"gemini","label":"Gemini CLI","looks_near":false,"program":"gemini","trash_unavailable":null},
  {"colours":{"dark":["#35254a","#d9c2f2"],"light":["#ece0f7","#5b2a86"]},"delete_unavailable":"Qwen Code sessions are only moved to the trash here, never deleted outright; move it to the trash, then empty the trash","handoff_unavailable":null,"kind":"qwen","label":"Qwen Code","looks_near":false,"program":"qwen","trash_unavailable":null},
  {"colours":{"dark":["#2f2845","#d2c6f2"],"light":["#e6e0f3","#4b3b7a"]},"delete_unavailable":"Cline deletes a session for good only with its own `cline history delete`, which also removes the session's checkpoints from the project's repository; move it to the trash, then empty the trash","handoff_unavailable":null,"kind":"cline","label":"Cline","looks_near":false,"program":"cline","trash_unavailable":null},
  {"colours":{"dark":["#27314d","#b9c8f2"],"light":["#dde4f7","#27408f"]},"delete_unavailable":"GitHub Copilot CLI sessions are only ever moved to the trash, never deleted outright (the CLI has no command that deletes one); move it to the trash, then empty the trash","handoff_unavailable":null,"kind":"copilot","label":"GitHub Copilot CLI","looks_near":false,"program":"copilot","trash_unavailable":null},
  {"colours":{"dark":["#2f2842","#cfc3f0"],"light":["#e6e0f3","#4b3a78"]},"delete_unavailable":null,"handoff_unavailable":null,"kind":"aider","label":"Aider","looks_near":true,"program":"aider","trash_unavailable":null},
];
