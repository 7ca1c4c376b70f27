//! Where Gemini CLI's program is and how it starts with a prompt (`genai::launch`, shared
//! with Qwen Code): npm `@google/gemini-cli` or Homebrew; MCP servers in its settings.

use crate::capability::launch::Launch;
use crate::genai::launch::{launch, mcp_setup};

pub(super) const LAUNCH: Launch =
    launch(|server| mcp_setup("~/.gemini/settings.json: merge into it", server));
