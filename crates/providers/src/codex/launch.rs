//! Where Codex CLI's program is and how it starts with a prompt (`capability::launch`).

use crate::capability::launch::{Handoff, Launch, MacApp};
use crate::capability::Capability;

pub(super) const LAUNCH: Launch = Launch {
    // Installed by npm or Homebrew, whose folders every agent is looked for in.
    installer_dirs: &[],
    // The desktop app carries the CLI in its resources.
    mac_app: Some(MacApp::InApplications {
        prefix: "Codex.app",
    }),
    editor_extension: Some("openai.chatgpt-"),
    // The prompt is the positional argument (`codex --help`, 0.171.0).
    handoff: Capability::Has(Handoff {
        prompt_options: &[],
    }),
};
