//! Where GitHub Copilot CLI's program is, how it starts with a prompt and where its MCP servers
//! are set up (`capability::launch`).

use serde_json::json;

use crate::capability::launch::{pretty_json, Handoff, Launch, McpServer, PlanTool, Worktrees};
use crate::capability::Capability;

pub(super) const LAUNCH: Launch = Launch {
    mcp: Capability::Has(mcp_setup),
    // Installed by npm (or Homebrew/WinGet), whose folders every agent is looked for in.
    installer_dirs: &[],
    mac_app: None,
    editor_extension: None,
    // `-i, --interactive <prompt>`: start interactive and run this prompt (`copilot --help`,
    // 1.0.102); a positional argument is not a prompt.
    handoff: Capability::Has(Handoff {
        prompt_options: &["-i"],
        then: None,
    }),
};

/// It makes no worktrees of its own.
pub(super) const WORKTREES: Worktrees = Worktrees {
    in_repo: &[],
    recorded: None,
};

/// No tool of its takes a plan as input.
pub(super) const PLAN_TOOLS: &[PlanTool] = &[];

/// A local server in `~/.copilot/mcp-config.json`'s `mcpServers`.
fn mcp_setup(server: &McpServer) -> (&'static str, String) {
    let entry = json!({
        "mcpServers": {
            server.name: {
                "type": "local",
                "command": server.program,
                "args": server.args,
                "tools": ["*"],
            }
        }
    });
    ("~/.copilot/mcp-config.json", pretty_json(&entry))
}
