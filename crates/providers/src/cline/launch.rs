//! Where Cline's program is, how it starts with a prompt and resumes a session
//! (`capability::launch`).

use agent_sessions_model::{ProviderKind, ResumeCommand, SessionMeta};

use crate::capability::launch::{pretty_json, Handoff, Launch, McpServer};
use crate::capability::Capability;
use crate::error::Error;

pub(super) const LAUNCH: Launch = Launch {
    mcp: Capability::Has(mcp_setup),
    // Installed by npm (`cline`), whose folders every agent is looked for in.
    installer_dirs: &[],
    mac_app: None,
    editor_extension: Some("saoudrizwan.claude-dev-"),
    // The prompt is the positional argument (`cline "…"`, 2.18.0 and 3.0.65: run.log).
    handoff: Capability::Has(Handoff {
        prompt_options: &[],
        then: None,
    }),
};

/// `cline --id <id>` for a 3.x session (its TUI, in the session's directory); `cline -T <id>`
/// for a CLI 2.x task (the flag 2.18.0 resumes a task with: run.log). A subagent resumes its
/// parent. A task of the VS Code extension (no `data/` folder above it) is not the CLI's.
pub(super) fn resume(session: &SessionMeta) -> Result<ResumeCommand, Error> {
    let id = session.parent_id.as_deref().unwrap_or(&session.id);
    if !super::ids::is_session_id(id) {
        return Err(crate::ids::invalid_id(ProviderKind::Cline, id));
    }
    let up = |n| {
        session
            .source_path
            .ancestors()
            .nth(n)
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
    };
    let flag = match (up(2), up(3)) {
        (Some("sessions"), _) => "--id",
        (Some("tasks"), Some("data")) => "-T",
        _ => {
            return Err(Error::ResumeUnavailable(format!(
                "the Cline task {id} is the VS Code extension's: open it from Cline's task \
                 history in VS Code"
            )))
        }
    };
    ResumeCommand::new(super::AGENT.program, &[flag, id], session.cwd.as_deref())
        .map_err(Error::from)
}

/// A server in `~/.cline/data/settings/cline_mcp_settings.json`'s `mcpServers`.
fn mcp_setup(server: &McpServer) -> (&'static str, String) {
    let mut servers = serde_json::Map::new();
    servers.insert(
        server.name.to_owned(),
        serde_json::json!({ "command": server.program, "args": server.args }),
    );
    (
        "~/.cline/data/settings/cline_mcp_settings.json: merge into it",
        pretty_json(&serde_json::json!({ "mcpServers": servers })),
    )
}
