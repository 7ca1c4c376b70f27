//! Where Qwen Code's program is and how it starts with a prompt (`genai::launch`, shared
//! with Gemini CLI): npm `@qwen-code/qwen-code` or Homebrew; MCP servers in its settings.

use crate::capability::launch::Launch;
use crate::genai::launch::{launch, mcp_setup};

pub(super) const LAUNCH: Launch =
    launch(|server| mcp_setup("~/.qwen/settings.json: merge into it", server));
