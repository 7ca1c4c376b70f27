//! Where Aider's program is and how it takes a first prompt (`capability::launch`).

use crate::capability::launch::Launch;
use crate::capability::Capability;

pub(super) const LAUNCH: Launch = Launch {
    mcp: Capability::Lacks("Aider has no MCP client (aider --help, 0.86.2)"),
    // `pip install --user` and pipx put it in ~/.local/bin; aider-install's uv tool too.
    installer_dirs: &[".local/bin"],
    mac_app: None,
    editor_extension: None,
    // Tried on 0.86.2: `--message`/`--message-file` exit after the reply; `--load FILE` runs
    // /commands one line each (commands.py `cmd_load`), so a document of many lines cannot be
    // its message either.
    handoff: Capability::Lacks(
        "Aider takes a first message only with --message or --message-file, and then exits \
         after the reply instead of carrying on, and its --load runs /commands one line each, \
         not a document of many lines (aider 0.86.2); open Aider in the directory and paste \
         the handoff document",
    ),
};
