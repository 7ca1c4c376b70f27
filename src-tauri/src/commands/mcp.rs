//! Settings → "Use from coding agents (MCP)": how each agent is told about our MCP server,
//! the same snippets as `agent-sessions-cli mcp --print-config AGENT` (core's `mcp_config`),
//! naming the CLI that ships beside the app.

use std::path::PathBuf;

use agent_sessions_core::mcp_config::{self, McpSetup};
use tauri::AppHandle;

use super::{off_main, CmdResult};

/// One setup per agent (claude, codex, opencode, gemini), for this computer's sessions.
#[tauri::command]
pub async fn mcp_setup(app: AppHandle) -> CmdResult<Vec<McpSetup>> {
    off_main(app, |_| {
        let program = cli().to_string_lossy().into_owned();
        Ok(mcp_config::agents()
            .into_iter()
            .filter_map(|agent| mcp_config::setup(agent, &program, None))
            .collect())
    })
    .await
}

/// `agent-sessions-cli` beside the app (the packages put it there), else the name alone for
/// `PATH` to find.
fn cli() -> PathBuf {
    let name = format!("agent-sessions-cli{}", std::env::consts::EXE_SUFFIX);
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join(&name)))
        .filter(|beside| beside.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}
