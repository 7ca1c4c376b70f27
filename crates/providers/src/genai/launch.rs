//! How Gemini CLI and Qwen Code start (`capability::launch`): the same for both but for where
//! each keeps its `settings.json` (Qwen Code kept Gemini CLI's options and settings shape).

use crate::capability::launch::{Handoff, Launch, McpServer, McpSetup};
use crate::capability::Capability;

/// The launch of either agent, told about an MCP server by `mcp` (its own settings file).
pub(crate) const fn launch(mcp: McpSetup) -> Launch {
    Launch {
        // Installed by npm or Homebrew, whose folders are searched anyway.
        installer_dirs: &[],
        mac_app: None,
        editor_extension: None,
        // `-i, --prompt-interactive`: "Execute the provided prompt and continue in interactive
        // mode" (`gemini --help` 0.61.0, `qwen --help` 0.24.4); a positional prompt runs
        // headless and exits.
        handoff: Capability::Has(Handoff {
            prompt_options: &["--prompt-interactive"],
            then: None,
        }),
        mcp: Capability::Has(mcp),
    }
}

/// A server in the `mcpServers` of the settings file `settings` (`~/.gemini/settings.json`).
pub(crate) fn mcp_setup(settings: &'static str, server: &McpServer) -> (&'static str, String) {
    (settings, super::mcp_servers(server))
}
