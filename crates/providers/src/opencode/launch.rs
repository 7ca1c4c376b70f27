//! Where OpenCode's program is, how it starts with a prompt, the worktrees it records and its
//! plan tool (`capability::launch`).

use std::collections::BTreeMap;
use std::path::Path;

use crate::capability::launch::{
    pretty_json, todos, Handoff, Launch, McpServer, PlanTool, Recorded, Worktrees,
};
use crate::capability::Capability;

pub(super) const LAUNCH: Launch = Launch {
    mcp: Capability::Has(mcp_setup),
    // Its install script's folder.
    installer_dirs: &[".opencode/bin"],
    mac_app: None,
    editor_extension: Some("sst-dev.opencode-"),
    // The prompt is `--prompt`, which its TUI submits on its home screen (`opencode --help`,
    // 1.18.33); a positional argument would be a project directory.
    handoff: Capability::Has(Handoff {
        prompt_options: &["--prompt"],
        then: None,
    }),
};

/// OpenCode makes worktrees wherever it likes and records them in its store
/// ([`super::worktrees`]).
pub(super) const WORKTREES: Worktrees = Worktrees {
    in_repo: &[],
    recorded: Some(Recorded {
        sources: super::worktrees::sources,
        read: recorded,
    }),
};

/// The record of a store; one that cannot be read records none (its scan says why).
fn recorded(root: &Path) -> Option<BTreeMap<String, String>> {
    super::worktrees::read(root).ok()
}

/// `todowrite` (`todos`, each `content` and `status`).
pub(super) const PLAN_TOOLS: &[PlanTool] = &[PlanTool {
    name: "todowrite",
    read: todos,
}];

/// A local server in `opencode.json`'s `mcp`, its command one array.
fn mcp_setup(server: &McpServer) -> (&'static str, String) {
    let mut command = vec![server.program.to_owned()];
    command.extend(server.args.iter().cloned());
    let mut servers = serde_json::Map::new();
    servers.insert(
        server.name.to_owned(),
        serde_json::json!({ "type": "local", "command": command, "enabled": true }),
    );
    (
        "opencode.json (~/.config/opencode/opencode.json for every project): merge into it",
        pretty_json(&serde_json::json!({ "mcp": servers })),
    )
}
