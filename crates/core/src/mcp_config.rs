//! How each agent is told about our MCP server (`agent-sessions-cli mcp`): the exact snippet
//! or command, printed by `mcp --print-config AGENT` and shown in the app's Settings, so both
//! say the same thing.

use serde::Serialize;

/// The agents we print a setup for.
pub const AGENTS: [&str; 4] = ["claude", "codex", "opencode", "gemini"];

/// The name the server is registered under in each agent.
pub const SERVER_NAME: &str = "agent-sessions";

/// One agent's setup: where it goes and what to put there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct McpSetup {
    pub agent: String,
    /// Where the snippet goes, or that it is a command to run.
    pub place: String,
    pub snippet: String,
}

/// The setup for `agent` (one of [`AGENTS`]) running `program mcp [--host ALIAS]`.
pub fn setup(agent: &str, program: &str, host: Option<&str>) -> Option<McpSetup> {
    let mut args = vec!["mcp".to_owned()];
    if let Some(alias) = host {
        args.extend(["--host".to_owned(), alias.to_owned()]);
    }
    let json_args = serde_json::to_string(&args).unwrap_or_default();
    let json_program = serde_json::to_string(program).unwrap_or_default();
    let (place, snippet) = match agent {
        "claude" => (
            "run once (user scope: every project); or the same server in a .mcp.json's \"mcpServers\"",
            format!(
                "claude mcp add --scope user {SERVER_NAME} -- {} {}\n",
                shell_word(program),
                args.iter().map(|a| shell_word(a)).collect::<Vec<_>>().join(" ")
            ),
        ),
        "codex" => (
            "~/.codex/config.toml",
            format!(
                "[mcp_servers.{SERVER_NAME}]\ncommand = {json_program}\nargs = {}\n",
                json_args.replace(',', ", ")
            ),
        ),
        "opencode" => {
            let mut command = vec![program.to_owned()];
            command.extend(args.iter().cloned());
            let value = serde_json::json!({
                "mcp": { SERVER_NAME: { "type": "local", "command": command, "enabled": true } }
            });
            (
                "opencode.json (~/.config/opencode/opencode.json for every project): merge into it",
                pretty(&value),
            )
        }
        "gemini" => {
            let value = serde_json::json!({
                "mcpServers": { SERVER_NAME: { "command": program, "args": args } }
            });
            ("~/.gemini/settings.json: merge into it", pretty(&value))
        }
        _ => return None,
    };
    Some(McpSetup {
        agent: agent.to_owned(),
        place: place.to_owned(),
        snippet,
    })
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default() + "\n"
}

/// `word` as one POSIX shell word: as it is when plain, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
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
        assert!(setup("vim", "/x", None).is_none());
    }
}
