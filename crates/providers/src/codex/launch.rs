//! Where Codex CLI's program is, how it starts with a prompt and its plan tool
//! (`capability::launch`).

use serde_json::Value;

use crate::capability::launch::{steps, Handoff, Launch, MacApp, McpServer, Plan, PlanTool};
use crate::capability::Capability;

pub(super) const LAUNCH: Launch = Launch {
    mcp: Capability::Has(mcp_setup),
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
        then: None,
    }),
};

/// `update_plan`: `plan` steps (each `step` and `status`) and an `explanation`.
pub(super) const PLAN_TOOLS: &[PlanTool] = &[PlanTool {
    name: "update_plan",
    read: update_plan,
}];

fn update_plan(input: &Value) -> Option<Plan> {
    Some(Plan::Steps {
        why: input["explanation"].as_str().map(str::to_owned),
        steps: steps(&input["plan"], "step"),
    })
}

/// A `[mcp_servers.<name>]` table of `config.toml`.
fn mcp_setup(server: &McpServer) -> (&'static str, String) {
    let program = serde_json::to_string(server.program).unwrap_or_default();
    let args = serde_json::to_string(server.args).unwrap_or_default();
    (
        "~/.codex/config.toml",
        format!(
            "[mcp_servers.{}]\ncommand = {program}\nargs = {}\n",
            server.name,
            args.replace(',', ", ")
        ),
    )
}
