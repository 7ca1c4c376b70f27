//! One descriptor per agent: everything the rest of the code needs to know about an agent that
//! is data rather than parsing (its name, label, where its store lives, its colour, how to make
//! its provider). The roots, the provider set, the CLI's root flags, the app's demo store, the
//! UI's agent list (`ui/src/lib/agents.ts`, generated) and the checks of fixtures and bench
//! all read [`AGENTS`], so adding an agent is its module, one line here and its fixtures
//! (docs/architecture.md, "Adding an agent").

use std::path::PathBuf;

use agent_sessions_model::{Os, ProviderKind};

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
    /// Where the store is under the home directory on each system.
    pub home_store: fn(Os) -> &'static [&'static str],
    /// The store's folder inside each version's fixture (`testdata/<name>/<version>/`), which
    /// is also the app's demo store.
    pub fixture_store: &'static str,
    /// Badge colours, `[background, text]`, light then dark theme.
    pub colours: [[&'static str; 2]; 2],
    /// The agent's reader over the given roots.
    pub provider: fn(Vec<PathBuf>) -> Box<dyn Provider>,
}

impl Agent {
    /// The agent's name in flags, config sections, JSON and paths (`claude`).
    pub fn name(&self) -> &'static str {
        self.kind.as_str()
    }
}

/// Every agent, in the order lists show them. One line per agent.
pub static AGENTS: &[&Agent] = &[
    &crate::claude::AGENT,
    &crate::codex::AGENT,
    &crate::opencode::AGENT,
    &crate::gemini::AGENT,
    &crate::qwen::AGENT,
];

/// The descriptor of `kind`.
pub fn agent(kind: ProviderKind) -> &'static Agent {
    AGENTS
        .iter()
        .find(|a| a.kind == kind)
        .expect("every ProviderKind has a line in AGENTS (tests/registry.rs)")
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
}
