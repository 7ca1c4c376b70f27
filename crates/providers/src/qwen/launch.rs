//! Where Qwen Code's program is and how it starts with a prompt (`capability::launch`).

use crate::capability::launch::{Handoff, Launch};
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
};
