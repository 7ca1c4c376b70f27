//! How each agent is told about our MCP server (`agent-sessions-cli mcp`): the exact snippet
//! or command, printed by `mcp --print-config AGENT` and shown in the app's Settings, so both
//! say the same thing. Each agent's setup is its folder's (`capability::launch`, `Launch::mcp`).

use serde::Serialize;

use crate::model::ProviderKind;
use crate::provider::capability::launch::McpServer;
use crate::provider::registry;

/// The name the server is registered under in each agent.
pub const SERVER_NAME: &str = "agent-sessions";

/// The agents we print a setup for: every agent of the registry that takes one.
pub fn agents() -> Vec<&'static str> {
    registry::AGENTS
        .iter()
        .filter(|a| a.launch.mcp.get().is_ok())
        .map(|a| a.name())
        .collect()
}

/// One agent's setup: where it goes and what to put there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct McpSetup {
    pub agent: String,
    /// Where the snippet goes, or that it is a command to run.
    pub place: String,
    pub snippet: String,
}

/// The setup for `agent` (one of [`agents`]) running `program mcp [--host ALIAS]`.
pub fn setup(agent: &str, program: &str, host: Option<&str>) -> Option<McpSetup> {
    let mut args = vec!["mcp".to_owned()];
    if let Some(alias) = host {
        args.extend(["--host".to_owned(), alias.to_owned()]);
    }
    let server = McpServer {
        name: SERVER_NAME,
        program,
        args: &args,
    };
    let kind = ProviderKind::parse(agent)?;
    let (place, snippet) = (registry::agent(kind).launch.mcp.get().ok()?)(&server);
    Some(McpSetup {
        agent: agent.to_owned(),
        place: place.to_owned(),
        snippet,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agent_gets_the_program_and_its_arguments() {
        let claude = setup("claude", "/opt/my tools/agent-sessions-cli", Some("box")).unwrap();
        assert_eq!(
            claude.snippet,
            "claude mcp add --scope user agent-sessions -- '/opt/my tools/agent-sessions-cli' mcp --host box\n"
        );
        let codex = setup("codex", "/usr/bin/agent-sessions-cli", None).unwrap();
        assert_eq!(
            codex.snippet,
            "[mcp_servers.agent-sessions]\ncommand = \"/usr/bin/agent-sessions-cli\"\nargs = [\"mcp\"]\n"
        );
        let open: serde_json::Value =
            serde_json::from_str(&setup("opencode", "/x", None).unwrap().snippet).unwrap();
        assert_eq!(
            open["mcp"]["agent-sessions"]["command"],
            serde_json::json!(["/x", "mcp"])
        );
        let gemini: serde_json::Value =
            serde_json::from_str(&setup("gemini", "/x", Some("h")).unwrap().snippet).unwrap();
        assert_eq!(
            gemini["mcpServers"]["agent-sessions"]["args"],
            serde_json::json!(["mcp", "--host", "h"])
        );
        let qwen = setup("qwen", "/x", None).unwrap();
        assert_eq!(qwen.place, "~/.qwen/settings.json: merge into it");
        let qwen: serde_json::Value = serde_json::from_str(&qwen.snippet).unwrap();
        assert_eq!(
            qwen["mcpServers"]["agent-sessions"]["command"],
            serde_json::json!("/x")
        );
        assert!(setup("vim", "/x", None).is_none());
    }
}
