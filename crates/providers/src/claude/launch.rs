//! Where Claude Code's program is, how it starts with a prompt, the worktrees it makes and its
//! plan tools (`capability::launch`).

use serde_json::Value;

use crate::capability::launch::{
    todos, Handoff, Launch, MacApp, McpServer, Plan, PlanTool, Worktrees,
};
use crate::capability::Capability;

pub(super) const LAUNCH: Launch = Launch {
    mcp: Capability::Has(mcp_setup),
    // The native installer's link, then the older local install.
    installer_dirs: &[".local/bin", ".claude/local"],
    // The desktop app keeps its copies of the CLI by version.
    mac_app: Some(MacApp::InHome {
        dir: "Library/Application Support/Claude",
        prefix: "claude-code",
    }),
    editor_extension: Some("anthropic.claude-code-"),
    // The prompt is the positional argument (`claude --help`, 2.1.332).
    handoff: Capability::Has(Handoff {
        prompt_options: &[],
        then: None,
    }),
};

/// Claude Code makes its worktrees in `<repo>/.claude/worktrees/<name>`.
pub(super) const WORKTREES: Worktrees = Worktrees {
    in_repo: &[&[".claude", "worktrees"]],
    recorded: None,
};

/// `TodoWrite` (`todos`, each `content` and `status`) and `ExitPlanMode` (`plan`, its text).
pub(super) const PLAN_TOOLS: &[PlanTool] = &[
    PlanTool {
        name: "todowrite",
        read: todos,
    },
    PlanTool {
        name: "exitplanmode",
        read: plan_text,
    },
];

fn plan_text(input: &Value) -> Option<Plan> {
    input["plan"].as_str().map(|t| Plan::Text(t.to_owned()))
}

/// `claude mcp add` in user scope (every project), the server's words quoted for a POSIX shell.
fn mcp_setup(server: &McpServer) -> (&'static str, String) {
    let words: Vec<String> = std::iter::once(server.program)
        .chain(server.args.iter().map(String::as_str))
        .map(shell_word)
        .collect();
    (
        "run once (user scope: every project); or the same server in a .mcp.json's \"mcpServers\"",
        format!(
            "claude mcp add --scope user {} -- {}\n",
            server.name,
            words.join(" ")
        ),
    )
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
