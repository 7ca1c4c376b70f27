//! Where Aider's program is and how it takes a first prompt (`capability::launch`).

use crate::capability::launch::Launch;
use crate::capability::Capability;

pub(super) const LAUNCH: Launch = Launch {
    mcp: Capability::Lacks("Aider has no MCP client (aider --help, 0.86.2)"),
    // `pip install --user` and pipx put it in ~/.local/bin; aider-install's uv tool too.
    installer_dirs: &[".local/bin"],
    mac_app: None,
    editor_extension: None,
    handoff: Capability::Lacks(
        "Aider takes a first message only with --message, and then exits after the reply \
         instead of carrying on (aider --help, 0.86.2); open Aider in the directory and paste \
         the handoff document",
    ),
};
