//! `agents`: the agents this build reads (the provider registry), the roots each reads now and
//! the actions each has (or why not), so scripts and the e2e can list agents without naming them.
//! The same actions make the table of docs/agents.md, which a test keeps equal to the registry.

use agent_sessions_core::paths::Resolved;
use agent_sessions_core::provider::capability::bundle::Writes;
use agent_sessions_core::provider::capability::launch::Handoff;
use agent_sessions_core::provider::capability::Capability;
use agent_sessions_core::provider::registry::{Agent, AGENTS};
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
                // Its sessions are found where the user works: the scan also looks in the
                // directories other agents' sessions ran in and the current directory.
                "looks_near": (agent.provider)(Vec::new()).looks_near(),
                "actions": actions(agent)
                    .into_iter()
                    .map(|(action, can)| match can {
                        Ok(how) => json!({ "action": action, "has": true, "how": how }),
                        Err(why) => json!({ "action": action, "has": false, "why": why }),
                    })
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    Envelope::ok(json!({ "agents": rows }), text)
}

/// How the agent is handed the document: as its first prompt, or as a file it reads.
fn handoff_how(program: &str, handoff: &Handoff) -> String {
    if let Some(then) = handoff.then {
        let (first, windows) = (then.first_with("FILE"), handoff.options_with("FILE"));
        format!(
            "`{program} {}` sends the document, then `{program} {}` stays with it \
             (Windows: `{program} {}`, a file it reads on every turn)",
            first.join(" "),
            then.interactive,
            windows.join(" ")
        )
    } else if handoff.reads_file() {
        let words = handoff.options_with("FILE").join(" ");
        format!("`{program} {words}`: the document a file it reads on every turn")
    } else {
        format!("`{program}` started with the document")
    }
}

/// Each action whose availability is the agent's (its descriptor's capabilities), with how it
/// is done or why the agent lacks it. Reading, search, export, stats, live state and the
/// handoff *from* an agent are every agent's and are not listed.
pub fn actions(agent: &Agent) -> Vec<(&'static str, Result<String, &'static str>)> {
    let has = |c: Result<(), &'static str>, how: &str| c.map(|()| how.to_string());
    let restore = match &agent.bundles.restore.writes {
        Writes::Files(_) => "its files written into its store".to_string(),
        Writes::Documents(d) => format!("{} imported into its store", d.what),
        Writes::Append(a) => format!("{} appended to the directory's {}", a.what, a.file),
    };
    vec![
        (
            "handoff into",
            agent
                .launch
                .handoff
                .get()
                .map(|h| handoff_how(agent.program, h)),
        ),
        (
            "bundle restore",
            match agent.bundles.restore.lacks {
                Some(why) => Err(why),
                None => Ok(restore),
            },
        ),
        (
            "restore as a copy",
            has(agent.bundles.restore.copy.get().map(|_| ()), "a new id"),
        ),
        (
            "trash",
            has(
                lacks(&agent.trash.trash),
                match (agent.trash.own_commands, agent.trash.archive_rows.is_some()) {
                    (true, _) => "its own archive command, else its archive made by us",
                    (false, true) => "into its archive",
                    (false, false) => "to the OS trash",
                },
            ),
        ),
        (
            "delete",
            has(
                lacks(&agent.trash.permanent),
                if agent.trash.own_commands {
                    "by its own command, where the installed version has one"
                } else {
                    "for good"
                },
            ),
        ),
        (
            "MCP setup",
            has(
                agent.launch.mcp.get().map(|_| ()),
                "a snippet for its config",
            ),
        ),
    ]
}

fn lacks<T>(c: &Capability<T>) -> Result<(), &'static str> {
    c.get().map(|_| ())
}

#[cfg(test)]
/// The Markdown table of agents × actions in docs/agents.md (details: docs/trash.md,
/// docs/bundle-format.md, docs/handoff.md, docs/mcp.md).
pub fn table() -> String {
    let first = actions(AGENTS[0]);
    let mut out = String::from("| Agent | Program |");
    for (action, _) in &first {
        out.push_str(&format!(" {action} |"));
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---|".repeat(first.len()));
    out.push('\n');
    for agent in AGENTS {
        out.push_str(&format!("| {} | `{}` |", agent.label, agent.program));
        for (_, can) in actions(agent) {
            let cell = match can {
                Ok(how) => format!("yes: {how}"),
                Err(why) => format!("no: {}", why.replace('|', "\\|")),
            };
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    /// docs/agents.md holds the table the registry makes, between its markers; run with
    /// `UPDATE_DOCS=1` to write it after adding an agent or changing a capability.
    #[test]
    fn docs_table_is_the_registrys() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/agents.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let (start, end) = (
            "<!-- agents table: generated -->\n",
            "<!-- end of table -->",
        );
        let a = doc
            .find(start)
            .expect("docs/agents.md has the start marker")
            + start.len();
        let b = doc.find(end).expect("docs/agents.md has the end marker");
        let table = super::table();
        if std::env::var_os("UPDATE_DOCS").is_some() {
            let new = format!("{}{table}{}", &doc[..a], &doc[b..]);
            std::fs::write(path, new).unwrap();
            return;
        }
        assert_eq!(
            doc[a..b],
            table,
            "docs/agents.md is not the registry's table: run UPDATE_DOCS=1 cargo test -p \
             agent-sessions-cli docs_table"
        );
    }
}
