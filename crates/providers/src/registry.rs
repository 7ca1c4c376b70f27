//! One descriptor per agent: everything the rest of the code needs to know about an agent that
//! is data rather than parsing (its name, label, where its store lives, its colour, how to make
//! its provider). The roots, the provider set, the CLI's root flags, the app's demo store, the
//! UI's agent list (`ui/src/lib/agents.ts`, generated) and the checks of fixtures and bench
//! all read [`AGENTS`], so adding an agent is its module, one line here and its fixtures
//! (docs/architecture.md, "Adding an agent").

use std::path::PathBuf;

use agent_sessions_model::{Os, ProviderKind};

use crate::capability::bundle::{Bundles, WhichCopy};
use crate::Provider;

/// What the code knows about one agent.
pub struct Agent {
    pub kind: ProviderKind,
    /// The agent's name as people know it ("Claude Code").
    pub label: &'static str,
    /// The program that runs the agent (resume commands, "Continue in…").
    pub program: &'static str,
    /// The environment variable that moves the agent's store…
    pub env_var: &'static str,
    /// …to this folder under it (OpenCode's variable is the XDG data dir: `opencode` below it).
    pub env_subdir: Option<&'static str>,
    /// Where the store is under the home directory on each system: its folders' names. An
    /// agent with a second default store (Cline's VS Code extension beside `~/.cline`) gives
    /// its names after [`AND`] (see [`Agent::home_stores`]).
    pub home_store: fn(Os) -> &'static [&'static str],
    /// The store's folder inside each version's fixture (`testdata/<name>/<version>/`), which
    /// is also the app's demo store.
    pub fixture_store: &'static str,
    /// Badge colours, `[background, text]`, light then dark theme.
    pub colours: [[&'static str; 2]; 2],
    /// The agent's reader over the given roots.
    pub provider: fn(Vec<PathBuf>) -> Box<dyn Provider>,

    // Trash and delete (`capability::trash`), and the shape of the agent's ids (`crate::ids`).
    /// Whether a string has the shape of the agent's session ids (`crate::ids::is_uuid`, or
    /// its own in `<agent>/ids.rs`): never a separator, a dot or nothing.
    pub session_id: fn(&str) -> bool,
    /// The shape of a subagent's own id where it is not a session id's (its file stem).
    pub subagent_id: Option<fn(&str) -> bool>,
    /// What makes up a session for trash and delete (`<agent>/trash.rs`).
    pub trash: crate::capability::trash::Trash,
    // Launch (capability::launch): finding the program, starting it with a prompt, and the
    // worktrees it makes.
    /// Where the agent's program is installed and how it takes a first prompt.
    pub launch: crate::capability::launch::Launch,
    /// The worktrees it makes, folded under their repository.
    pub worktrees: crate::capability::launch::Worktrees,
    /// The tools whose input is a session's plan (shown by a handoff from its sessions).
    pub plan_tools: &'static [crate::capability::launch::PlanTool],
    // Bundles (`capability::bundle`).
    /// Its records in a bundle and how a bundle is restored into its store.
    pub bundles: Bundles,
    /// For an agent whose resume names a session by id alone and finds the file itself: which
    /// copy of a session it carries on.
    pub which_copy: Option<WhichCopy>,
}

/// Between two default stores in an [`Agent::home_store`]: an empty name, which no folder has.
pub const AND: &str = "";

impl Agent {
    /// The agent's name in flags, config sections, JSON and paths (`claude`).
    pub fn name(&self) -> &'static str {
        self.kind.as_str()
    }

    /// Each default store's folder names under the home directory on `os`, the agent's own
    /// first; none for an agent without a central store.
    pub fn home_stores(&self, os: Os) -> Vec<&'static [&'static str]> {
        (self.home_store)(os)
            .split(|name| *name == AND)
            .filter(|store| !store.is_empty())
            .collect()
    }
}

/// Every agent, in the order lists show them. One line per agent.
pub static AGENTS: &[&Agent] = &[
    &crate::claude::AGENT,
    &crate::codex::AGENT,
    &crate::opencode::AGENT,
    &crate::gemini::AGENT,
    &crate::qwen::AGENT,
    &crate::cline::AGENT,
    &crate::copilot::AGENT,
    &crate::aider::AGENT,
];

/// The descriptor of `kind`.
pub fn agent(kind: ProviderKind) -> &'static Agent {
    AGENTS
        .iter()
        .find(|a| a.kind == kind)
        .expect("every ProviderKind has a line in AGENTS (tests/registry.rs)")
}

/// Every agent's name for a message that lists the choices: `claude, codex or opencode`.
pub fn names_or() -> String {
    let names: Vec<&str> = AGENTS.iter().map(|a| a.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_descriptor_and_back() {
        assert_eq!(AGENTS.len(), ProviderKind::ALL.len());
        for kind in ProviderKind::ALL {
            assert_eq!(
                AGENTS.iter().filter(|a| a.kind == kind).count(),
                1,
                "{kind}"
            );
            let made = (agent(kind).provider)(Vec::new());
            assert_eq!(
                made.kind(),
                kind,
                "{kind}'s constructor makes its own provider"
            );
        }
    }

    #[test]
    fn the_choices_name_every_agent() {
        assert_eq!(
            names_or(),
            "claude, codex, opencode, gemini, qwen, cline, copilot or aider"
        );
    }
}
