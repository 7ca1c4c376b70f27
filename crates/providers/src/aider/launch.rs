//! Where Aider's program is and how it takes a first prompt (`capability::launch`).

use crate::capability::launch::{Handoff, Launch, Then};
use crate::capability::Capability;

pub(super) const LAUNCH: Launch = Launch {
    mcp: Capability::Lacks("Aider has no MCP client (aider --help, 0.86.2)"),
    // `pip install --user` and pipx put it in ~/.local/bin; aider-install's uv tool too.
    installer_dirs: &[".local/bin"],
    mac_app: None,
    editor_extension: None,
    // Aider 0.86.2 has no option that sends a first message and stays: `--message-file`
    // exits after the reply (main.py). So on Linux and macOS it runs twice: `aider
    // --message-file FILE` sends the document as the first message (it begins "This is a
    // handoff", so `Commands.is_command` never takes it for a /command or a !shell line) and
    // writes the exchange into the directory's `.aider.chat.history.md`; then `aider
    // --restore-chat-history` is interactive with that exchange restored. The file is kept (the
    // sweep removes it). On Windows there is no shell to chain the runs through safely, so
    // `--read FILE` makes the file part of every request as a read-only file
    // (`get_read_only_files_content`) and Aider waits for the user. The document's text is
    // only ever the content of our file, never a command or a word of the argv.
    handoff: Capability::Has(Handoff {
        prompt_options: &["--read", Handoff::FILE],
        then: Some(Then {
            first: &["--message-file", Handoff::FILE],
            interactive: "--restore-chat-history",
        }),
    }),
};
