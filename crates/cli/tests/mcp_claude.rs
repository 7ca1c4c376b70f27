//! The real client: Claude Code (pinned, from the npm registry) offline against the scripted
//! model, configured with our MCP server by `--mcp-config`. The model answers the first turn
//! with a call of our search tool; the agent runs `agent-sessions-cli mcp`, calls the tool over
//! stdio and sends its result back in its next request, which must carry the hit from the
//! fixture session (its id and the marked snippet).

mod agents;
mod common;

use common::{testdata, BIN};
use serde_json::{json, Value};

/// The fixture session the scripted search finds (`mock_model.py`'s MCP_QUERY).
const DEMO: &str = "ceefe47d-84be-4483-8ce5-5f829cfd22c9";

/// The text of the tool results in a request body's last message.
fn tool_results(body: &Value) -> Vec<String> {
    let Some(last) = body["messages"].as_array().and_then(|m| m.last()) else {
        return Vec::new();
    };
    let Some(content) = last["content"].as_array() else {
        return Vec::new();
    };
    content
        .iter()
        .filter(|c| c["type"] == "tool_result")
        .map(|c| match &c["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            other => other.to_string(),
        })
        .collect()
}

#[test]
#[cfg_attr(
    windows,
    ignore = "runs the real agents, installed from npm as Linux builds"
)]
fn claude_code_calls_our_search_tool_and_gets_the_hit() {
    let claude = agents::claude(agents::CLAUDE);
    let work = agents::Work::new();
    let tmp = work.path();
    let (home, claude_root, project) = (tmp.join("home"), tmp.join("claude"), tmp.join("project"));
    for dir in [&home, &claude_root, &project] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let store = testdata("claude/2.1.332/dot-claude");
    // Our server reads the fixture store (not the agent's own), with a cache of its own.
    let config = json!({
        "mcpServers": {
            "agent-sessions": {
                "command": BIN,
                "args": ["mcp", "--claude-root", store],
                "env": {
                    "AGENT_SESSIONS_CACHE_DIR": tmp.join("cache"),
                    "AGENT_SESSIONS_CONFIG": tmp.join("config.toml"),
                }
            }
        }
    });
    let config_path = tmp.join("mcp.json");
    std::fs::write(&config_path, config.to_string()).unwrap();
    let mock = agents::Mock::start_with(tmp, "mcp-search");
    let mut env = agents::claude_env(&home, &claude_root, &mock);
    // Claude Code 2.1 offers MCP tools through its ToolSearch tool unless told not to; the
    // scripted model calls ours straight away, so they are offered as they are.
    env.push(("ENABLE_TOOL_SEARCH", "false".to_owned()));
    let path = std::env::var("PATH").unwrap_or_default();
    let said = agents::run_agent(
        &claude,
        &[
            "-p",
            // Our server's tools, allowed without asking (root may not skip permissions).
            "--allowedTools",
            "mcp__agent-sessions",
            "--strict-mcp-config",
            // --mcp-config takes several files: the prompt comes after `--`.
            "--mcp-config",
            config_path.to_str().unwrap(),
            "--",
            "How did we name the demo session?",
        ],
        &project,
        &path,
        &env,
    );
    let calls = mock.calls();
    let offered = calls.iter().position(|b| {
        b["tools"].as_array().is_some_and(|t| {
            t.iter().any(|t| {
                t["name"]
                    .as_str()
                    .is_some_and(|n| n.ends_with("search_sessions"))
            })
        })
    });
    let offered = offered.unwrap_or_else(|| {
        panic!("Claude Code offered the model no search_sessions tool of ours; it said: {said}")
    });
    let results: Vec<String> = calls[offered..].iter().flat_map(tool_results).collect();
    let result = results
        .iter()
        .find(|r| r.contains(DEMO))
        .unwrap_or_else(|| panic!("no request carried our tool's result: {results:?}\n{said}"));
    assert!(result.contains("«my-demo-session»"), "{result}");
    assert!(
        result.contains("1 hits for \"my-demo-session\""),
        "{result}"
    );
    assert!(
        said.contains("restored-session-reply"),
        "the turn ended: {said}"
    );
}
