//! Where Claude Code's program is, how it starts with a prompt, the worktrees it makes and its
//! plan tools (`capability::launch`).

use serde_json::Value;

use crate::capability::launch::{todos, Handoff, Launch, MacApp, Plan, PlanTool, Worktrees};
use crate::capability::Capability;

pub(super) const LAUNCH: Launch = Launch {
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
