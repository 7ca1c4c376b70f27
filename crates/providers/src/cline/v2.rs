//! Cline CLI 2.x and the VS Code extension (docs/formats.md, "Cline"): a task is
//! `tasks/<id>/` with `ui_messages.json` (what Cline shows: `say`/`ask` messages),
//! `api_conversation_history.json` (what the model got: tools are XML in its replies) and
//! `task_metadata.json`; `state/taskHistory.json` lists the tasks with their directory, tokens
//! and cost. The transcript is read from `ui_messages.json`, which names each tool, command and
//! error the way Cline shows them; each `api_req_started` starts one model reply, and the tool
//! result Cline sent next (the head of the next request) is the output of the reply's tool.

use std::path::Path;

use agent_sessions_model::{Diagnostic, Message, NoticeKind, Part, ProviderKind, Role, Tokens};
use serde_json::Value;

use super::parts::{self, str_of, time_of_ms};
use super::v3::Conversation;
use crate::build;

const KIND: ProviderKind = ProviderKind::Cline;

/// `say`/`ask` kinds that are bookkeeping: retries, resume offers, checkpoints, the request
/// and its result (read with `api_req_started`).
const QUIET: &[&str] = &[
    "api_req_retried",
    "api_req_finished",
    "error_retry",
    "resume_task",
    "resume_completed_task",
    "checkpoint_created",
    "task_progress",
    "shell_integration_warning",
    "deleted_api_reqs",
    "api_req_deleted",
    "clineignore_error",
    "condense",
    "load_mcp_documentation",
    "info",
];

/// `ask` kinds that wait for the user's answer: a question, an approval of a command, a tool,
/// an MCP call or a browser, a failed request's retry, too many mistakes. A task that ends in
/// one (not still streaming) needs the user; `completion_result` and the resume offers do not
/// (the turn is over).
const NEEDS_ANSWER: &[&str] = &[
    "followup",
    "command",
    "command_output",
    "tool",
    "use_mcp_server",
    "browser_action_launch",
    "api_req_failed",
    "mistake_limit_reached",
];

/// Reads `tasks/<id>/ui_messages.json`. `full`: tool outputs whole (a blob's read).
pub(super) fn read_task(path: &Path, full: bool) -> Conversation {
    let (mut out, doc) = match super::v3::open(path) {
        Ok(doc) => (Conversation::default(), doc),
        Err(empty) => return *empty,
    };
    let Some(items) = doc.as_array() else {
        out.diagnostics.push(Diagnostic {
            provider: KIND,
            path: path.to_path_buf(),
            line: None,
            reason: "not a list of Cline messages; skipped".to_owned(),
        });
        return out;
    };
    let mut b = Builder {
        out,
        reply: None,
        tokens: Tokens::default(),
        full,
        unknown: 0,
        asking: None,
    };
    for (n, item) in items.iter().enumerate() {
        b.add(item, n);
    }
    b.finish(path)
}

struct Builder {
    out: Conversation,
    /// The reply being built (since the last `api_req_started`).
    reply: Option<Message>,
    tokens: Tokens,
    full: bool,
    unknown: u64,
    /// The last message so far, when it is an `ask` waiting for an answer ([`NEEDS_ANSWER`]):
    /// its kind, time and position.
    asking: Option<(String, Option<chrono::DateTime<chrono::Utc>>, usize)>,
}

impl Builder {
    fn add(&mut self, item: &Value, n: usize) {
        let kind = str_of(item, "say").or_else(|| str_of(item, "ask"));
        let text = str_of(item, "text").unwrap_or("");
        let ts = time_of_ms(item.get("ts"));
        let streaming = item.get("partial").and_then(Value::as_bool) == Some(true);
        self.asking = kind
            .filter(|k| str_of(item, "type") == Some("ask") && NEEDS_ANSWER.contains(k))
            .filter(|_| !streaming)
            .map(|k| (k.to_owned(), ts, n));
        match kind.unwrap_or("") {
            "task" | "user_feedback" => self.prompt(text, ts, n),
            "api_req_started" => self.request(text, ts, n),
            "reasoning" => self.part(
                Part::Reasoning {
                    text: text.to_owned(),
                    encrypted: false,
                },
                ts,
                n,
            ),
            "text" | "completion_result" | "followup" | "plan_mode_respond" => {
                if !text.is_empty() {
                    self.part(
                        Part::Text {
                            text: text.to_owned(),
                        },
                        ts,
                        n,
                    );
                }
            }
            "tool" | "use_mcp_server" | "browser_action_launch" => {
                let part = Part::Tool(tool_of(item, n, kind.unwrap_or("tool")));
                self.part(part, ts, n);
            }
            "command" => {
                let mut tool = parts::tool(
                    format!("ui-{n}"),
                    "execute_command".to_owned(),
                    serde_json::json!({ "command": text }),
                );
                tool.status = agent_sessions_model::ToolStatus::Pending;
                self.part(Part::Tool(tool), ts, n);
            }
            "command_output" => self.command_output(text),
            "api_req_failed" | "error" | "mistake_limit_reached" => self.error(text, ts, n),
            k if QUIET.contains(&k) => {}
            _ => self.unknown += 1,
        }
    }

    fn flush(&mut self) {
        if let Some(reply) = self.reply.take() {
            if !reply.parts.is_empty() {
                self.out.messages.push(reply);
            }
        }
    }

    fn prompt(&mut self, text: &str, ts: Option<chrono::DateTime<chrono::Utc>>, n: usize) {
        self.flush();
        if self.out.first_prompt.is_none() {
            self.out.first_prompt = Some(text.to_owned());
        }
        let mut msg = build::message(format!("ui-{n}"), Role::User, ts, None);
        msg.counted = true;
        msg.parts.push(Part::Text {
            text: text.to_owned(),
        });
        self.out.messages.push(msg);
    }

    /// A model request: its head is the result of the previous reply's last tool; its usage
    /// is the reply's.
    fn request(&mut self, text: &str, ts: Option<chrono::DateTime<chrono::Utc>>, n: usize) {
        let req: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        if self.out.cwd.is_none() {
            self.out.cwd = str_of(&req, "request").and_then(cwd_of);
        }
        if let Some((result, ok)) = str_of(&req, "request").and_then(tool_result) {
            let full = self.full;
            let last = self.reply.as_mut().and_then(|r| last_tool(&mut r.parts));
            if let Some(tool) = last.filter(|t| t.output.is_none()) {
                parts::set_output(tool, result, ok, full);
            }
        }
        self.flush();
        self.tokens.add(&parts::tokens_of(&req, parts::V2_TOKENS));
        self.reply = Some(build::message(format!("ui-{n}"), Role::Assistant, ts, None));
    }

    fn part(&mut self, part: Part, ts: Option<chrono::DateTime<chrono::Utc>>, n: usize) {
        let reply = self
            .reply
            .get_or_insert_with(|| build::message(format!("ui-{n}"), Role::Assistant, ts, None));
        reply.counted = true;
        reply.parts.push(part);
    }

    /// A piece of a command's output: Cline shows it in chunks of lines.
    fn command_output(&mut self, text: &str) {
        let full = self.full;
        let Some(tool) = self.reply.as_mut().and_then(|r| last_tool(&mut r.parts)) else {
            return;
        };
        let mut all = tool.output.take().unwrap_or_default();
        if !all.is_empty() {
            all.push('\n');
        }
        all.push_str(text);
        tool.output_truncated = false;
        tool.output_blob = None;
        parts::set_output(tool, all, true, full);
    }

    fn error(&mut self, text: &str, ts: Option<chrono::DateTime<chrono::Utc>>, n: usize) {
        self.flush();
        let text = serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| str_of(&v, "message").map(str::to_owned))
            .unwrap_or_else(|| text.to_owned());
        let mut msg = build::message(format!("ui-{n}"), Role::System, ts, None);
        msg.parts.push(build::notice(NoticeKind::Error, text));
        self.out.messages.push(msg);
    }

    fn finish(mut self, path: &Path) -> Conversation {
        self.flush();
        if let Some((kind, ts, n)) = self.asking.take() {
            // What the live turn state reads: Cline waits for the user's answer.
            let mut msg = build::message(format!("ui-{n}-ask"), Role::System, ts, None);
            let text = format!("Cline waits for the user's answer ({kind})");
            msg.parts.push(build::notice(NoticeKind::Ask, text));
            self.out.messages.push(msg);
        }
        if self.unknown > 0 {
            self.out.diagnostics.push(Diagnostic {
                provider: KIND,
                path: path.to_path_buf(),
                line: None,
                reason: format!("{} message(s) of an unknown kind skipped", self.unknown),
            });
        }
        self.out.tokens = (!self.tokens.is_zero()).then_some(self.tokens);
        self.out
    }
}

/// The directory Cline names in a request's environment details: what a task without its
/// line in `taskHistory.json` (a damaged history, a restored task) is known by.
fn cwd_of(request: &str) -> Option<String> {
    let (_, rest) = request.split_once(CWD_MARKER)?;
    let (dir, _) = rest.split_once(") Files")?;
    (!dir.is_empty() && !dir.contains('\n')).then(|| dir.to_owned())
}

/// What comes right before the directory in a request's environment details.
pub(super) const CWD_MARKER: &str = "# Current Working Directory (";

fn last_tool(parts: &mut [Part]) -> Option<&mut agent_sessions_model::ToolPart> {
    parts.iter_mut().rev().find_map(|p| match p {
        Part::Tool(t) => Some(t),
        _ => None,
    })
}

/// A `tool` message (`{"tool": "readFile", "path": …, "content": …}`): named by its `tool`;
/// an edit or a new file carries its change.
fn tool_of(item: &Value, n: usize, kind: &str) -> agent_sessions_model::ToolPart {
    let text = str_of(item, "text").unwrap_or("");
    let input: Value = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.into()));
    let name = str_of(&input, "tool").unwrap_or(kind).to_owned();
    let mut tool = parts::tool(format!("ui-{n}"), name, input);
    let path = str_of(&tool.input, "path").map(str::to_owned);
    let content = str_of(&tool.input, "content").unwrap_or("");
    match (tool.name.as_str(), path) {
        ("editedExistingFile", Some(path)) => {
            for (old, new) in search_replace(content) {
                tool.changes.push(parts::change(&path, old, new));
            }
        }
        ("newFileCreated", Some(path)) => tool.changes.push(parts::change(&path, "", content)),
        _ => {}
    }
    tool
}

/// The blocks of a `replace_in_file` diff: `------- SEARCH\nold\n=======\nnew\n+++++++ REPLACE`.
fn search_replace(diff: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = diff;
    while let Some((_, after)) = rest.split_once("------- SEARCH\n") {
        let Some((old, after)) = after.split_once("\n=======\n") else {
            break;
        };
        let (new, after) = after.split_once("\n+++++++ REPLACE").unwrap_or((after, ""));
        out.push((old, new));
        rest = after;
    }
    out
}

/// The tool result at the head of a request: `[read_file for '…'] Result:\n<output>` up to the
/// reminders Cline appends; whether it reads as a failure.
fn tool_result(request: &str) -> Option<(String, bool)> {
    let rest = request.strip_prefix('[')?;
    let (head, body) = rest.split_once("] Result:")?;
    let body = body.strip_prefix('\n').unwrap_or(body);
    let end = ["\n\n\n# task_progress", "\n\n<environment_details>"]
        .iter()
        .filter_map(|m| body.find(m))
        .min()
        .unwrap_or(body.len());
    let text = body.get(..end).unwrap_or(body).trim_end().to_owned();
    let failed = text.starts_with("The tool execution failed") || text.starts_with("Error");
    (!head.is_empty()).then_some((text, !failed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_replace_blocks_are_read() {
        let d = "------- SEARCH\nalpha\n=======\nbeta\n+++++++ REPLACE\n------- SEARCH\nx\ny\n=======\nz\n+++++++ REPLACE";
        assert_eq!(search_replace(d), vec![("alpha", "beta"), ("x\ny", "z")]);
        assert!(search_replace("no blocks").is_empty());
    }

    #[test]
    fn tool_results_stop_at_the_reminders() {
        let r = "[read_file for 'a'] Result:\n1 | alpha\n\n\n# task_progress RECOMMENDED\nx";
        assert_eq!(tool_result(r), Some(("1 | alpha".to_owned(), true)));
        assert_eq!(tool_result("<task>\nhi\n</task>"), None);
    }
}
