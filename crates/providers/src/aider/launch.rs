//! Where Aider's program is and how it takes a first prompt (`capability::launch`).

use crate::capability::launch::{Handoff, Launch};
use crate::capability::Capability;

pub(super) const LAUNCH: Launch = Launch {
    mcp: Capability::Lacks("Aider has no MCP client (aider --help, 0.86.2)"),
    // `pip install --user` and pipx put it in ~/.local/bin; aider-install's uv tool too.
    installer_dirs: &[".local/bin"],
    mac_app: None,
    editor_extension: None,
    // Aider 0.86.2 has no first message that leaves it running: `--message`/`--message-file`
    // exit after the reply (main.py), and `--load` runs each line as a command, a `!` line as a
    // shell line (commands.py `cmd_load`, `run`). `--read FILE` makes a file of ours part of
    // every request as a read-only file (`get_read_only_files_content`), and Aider waits for
    // the user: the handoff is in the first request whatever they type, and its text is only
    // ever the content of our file, never a command or a word of the argv.
    handoff: Capability::Has(Handoff {
        prompt_options: &["--read", Handoff::FILE],
    }),
};
