//! `agents`: the agents this build reads (the provider registry) and the roots each reads now,
//! so scripts and the e2e can list agents without naming them.

use agent_sessions_core::paths::Resolved;
use agent_sessions_core::provider::registry::AGENTS;
use serde_json::json;

use crate::envelope::Envelope;

pub fn run(resolved: &Resolved) -> Envelope {
    let mut text = String::new();
    let rows: Vec<_> = AGENTS
        .iter()
        .map(|agent| {
            let roots = resolved.get(agent.kind);
            let shown: Vec<String> = roots
                .roots
                .iter()
                .map(|r| r.display().to_string())
                .collect();
            text.push_str(&format!(
                "{:<10} {:<12} {}{}\n",
                agent.name(),
                agent.label,
                shown.join(", "),
                if roots.enabled { "" } else { " (disabled)" }
            ));
            json!({
                "name": agent.name(),
                "label": agent.label,
                "program": agent.program,
                "env_var": agent.env_var,
                "enabled": roots.enabled,
                "roots": roots.roots,
            })
        })
        .collect();
    Envelope::ok(json!({ "agents": rows }), text)
}
