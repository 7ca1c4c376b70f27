//! Where Qwen Code's program is and how it starts with a prompt (`capability::launch`).

use crate::capability::launch::{Handoff, Launch, McpServer};
use crate::capability::Capability;

pub(super) const LAUNCH: Launch = Launch {
    // Installed by npm (`@qwen-code/qwen-code`) or Homebrew, whose folders are searched anyway.
    installer_dirs: &[],
    mac_app: None,
    editor_extension: None,
    // `-i, --prompt-interactive`: "Execute the provided prompt and continue in interactive
    // mode" (`qwen --help`, 0.24.4); a positional prompt runs headless and exits.
    handoff: Capability::Has(Handoff {
        prompt_options: &["--prompt-interactive"],
    }),
    mcp: Capability::Has(mcp_setup),
};

/// A server in `settings.json`'s `mcpServers` (the shape Gemini CLI and Qwen Code share).
fn mcp_setup(server: &McpServer) -> (&'static str, String) {
    (
        "~/.qwen/settings.json: merge into it",
        crate::genai::mcp_servers(server),
    )
}
