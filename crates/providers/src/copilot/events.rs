//! Copilot CLI's event logs (`session-state/<id>/events.jsonl` since 0.0.378, flat
//! `session-state/<id>.jsonl` before): one event a line, `{type, data, id, timestamp,
//! parentId}`. What an event is ([`Event::of`]) is decided once here, for the scan's running
//! totals ([`Acc`]) and the transcript ([`Builder`]), so the two count alike.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::history;
use crate::blob::BlobKey;
use crate::build::{self, LineBuilder};
use crate::held::Held;
use agent_sessions_model::{
    Counts, Diagnostic, Diagnostics, FileChange, Message, NoticeKind, Part, ProviderKind, Role,
    Tokens, ToolStatus,
};

/// A tool result kept inline; a longer one keeps this much and a blob key to the rest.
pub const INLINE_OUTPUT: usize = 32 << 10;

/// Events that carry nothing shown: turn marks, the shutdown summary, subagent bookkeeping,
/// hooks, the start of a tool whose request the assistant message already holds.
const BOOKKEEPING: &[&str] = &[
    "assistant.turn_start",
    "assistant.turn_end",
    "assistant.intent",
    "assistant.reasoning",
    "session.shutdown",
    "session.idle",
    "session.workspace_file_changed",
    "subagent.started",
    "subagent.selected",
    "subagent.configured",
    "subagent.completed",
    "subagent.failed",
    "custom_agent.started",
    "custom_agent.completed",
    "custom_agent.failed",
    "custom_agent.selected",
    "hook.start",
    "hook.end",
    "tool.execution_start",
    "tool.execution_partial_result",
    "tool.user_requested",
    "pending_messages.modified",
];

/// One event, classified.
pub enum Event<'a> {
    /// `session.start`: the session's id, directory (1.0.x only), model and CLI version.
    Start {
        id: Option<&'a str>,
        cwd: Option<&'a str>,
        model: Option<&'a str>,
        version: Option<&'a str>,
    },
    /// `user.message`; `sidechain` for a subagent's prompt.
    User {
        text: &'a str,
        sidechain: bool,
    },
    /// `system.message`: the system prompt the model (or a subagent's) was given.
    System {
        text: &'a str,
        sidechain: bool,
    },
    /// `assistant.message`.
    Assistant(&'a Value),
    /// `tool.execution_complete`.
    ToolDone(&'a Value),
    /// A notice: an error, a resume, a model change, an info or truncation line.
    Notice {
        kind: NoticeKind,
        text: String,
    },
    /// A model call's usage (`session.usage_record` 1.0.x; `assistant.usage` when written).
    Usage(Tokens),
    /// `session.import_legacy`: a ≤ 0.0.341 history session carried into this log.
    Legacy(&'a Value),
    Skip,
    /// A type we do not know (counted in the diagnostics).
    Unknown(String),
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Whether the event belongs to a subagent running inside the session (its events carry the
/// subagent's `agentId`, its prompt a `source` of `agent-…`, its replies the call that started
/// it).
fn is_sidechain(event: &Value, data: &Value) -> bool {
    event.get("agentId").is_some_and(Value::is_string)
        || str_at(data, "parentToolCallId").is_some()
        || str_at(data, "source").is_some_and(|s| s.starts_with("agent-"))
}

impl<'a> Event<'a> {
    pub fn of(event: &'a Value) -> Event<'a> {
        let Some(kind) = str_at(event, "type") else {
            return Event::Unknown("an event without a type".into());
        };
        let data = event.get("data").unwrap_or(&Value::Null);
        let text = |key| str_at(data, key).unwrap_or_default().to_owned();
        match kind {
            "session.start" => Event::Start {
                id: str_at(data, "sessionId"),
                cwd: data.get("context").and_then(|c| str_at(c, "cwd")),
                model: str_at(data, "selectedModel"),
                version: str_at(data, "copilotVersion"),
            },
            "user.message" => Event::User {
                text: str_at(data, "content").unwrap_or_default(),
                sidechain: is_sidechain(event, data),
            },
            "system.message" => Event::System {
                text: str_at(data, "content").unwrap_or_default(),
                sidechain: is_sidechain(event, data),
            },
            "assistant.message" => Event::Assistant(event),
            "tool.execution_complete" => Event::ToolDone(event),
            "session.error" => Event::Notice {
                kind: NoticeKind::Error,
                text: match str_at(data, "errorType") {
                    Some(t) => format!("{t}: {}", text("message")),
                    None => text("message"),
                },
            },
            "session.resume" => Event::Notice {
                kind: NoticeKind::Agent(kind.into()),
                text: format!("resumed at {}", text("resumeTime")),
            },
            "session.model_change" => Event::Notice {
                kind: NoticeKind::Agent(kind.into()),
                text: format!("model: {}", text("newModel")),
            },
            "session.info" | "session.warning" => Event::Notice {
                kind: NoticeKind::Agent(kind.into()),
                text: text("message"),
            },
            "session.truncation" | "session.compaction_complete" | "abort" => Event::Notice {
                kind: NoticeKind::Agent(kind.into()),
                text: serde_json::to_string(data).unwrap_or_default(),
            },
            "session.usage_record" => Event::Usage(tokens(data.get("usage").unwrap_or(data))),
            "assistant.usage" => Event::Usage(tokens(data)),
            "session.import_legacy" => data.get("legacySession").map_or(Event::Skip, Event::Legacy),
            k if BOOKKEEPING.contains(&k) => Event::Skip,
            k => Event::Unknown(format!("unknown event type {k} skipped")),
        }
    }
}

/// What the CLI's system prompt puts before the session's directory, in its
/// `<environment_context>` (every version read, 0.0.340 to 1.0.x).
const STATED_CWD: &str = "* Current working directory: ";

/// The directory a system prompt states: the flat logs and the history documents have no
/// field for it, but the prompt the CLI built, and keeps, names the directory it ran in. A
/// tool's path is not taken (it names a file, anywhere).
pub fn stated_cwd(prompt: &str) -> Option<&str> {
    prompt
        .lines()
        .find_map(|l| l.strip_prefix(STATED_CWD))
        .map(str::trim)
        .filter(|d| agent_sessions_model::path::absolute_on_any_os(d))
}

fn tokens(usage: &Value) -> Tokens {
    let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    Tokens {
        input: n("inputTokens"),
        output: n("outputTokens"),
        cache_read: n("cacheReadTokens"),
        cache_write: n("cacheWriteTokens"),
    }
}

/// An assistant message's tool requests.
fn tool_requests(data: &Value) -> &[Value] {
    data.get("toolRequests")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A reply is counted when it is the main agent's and says something or calls a tool (a
/// message with only reasoning is not a turn).
fn counted_reply(event: &Value) -> bool {
    let data = event.get("data").unwrap_or(&Value::Null);
    let said = str_at(data, "content").is_some_and(|t| !t.trim().is_empty());
    !is_sidechain(event, data) && (said || !tool_requests(data).is_empty())
}

/// What the scan keeps of a session file between scans (its running totals).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Acc {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub first_prompt: Option<String>,
    pub model: Option<String>,
    pub version: Option<String>,
    pub first_timestamp: Option<String>,
    pub last_timestamp: Option<String>,
    pub counts: Counts,
    pub tokens: Tokens,
    pub saw_usage: bool,
    /// Events read (any type): a file with none is no session.
    pub events: u64,
}

impl Acc {
    /// Folds one line: Err for a line that is not an event (a diagnostic).
    pub fn add_line(&mut self, bytes: &[u8]) -> Result<(), String> {
        let value: Value = crate::jsonl::parse_line(bytes)?;
        if !value.is_object() {
            return Err("not a JSON object".into());
        }
        self.add(&value)
    }

    pub fn add(&mut self, value: &Value) -> Result<(), String> {
        let event = Event::of(value);
        if let Event::Unknown(reason) = event {
            return Err(reason);
        }
        self.events += 1;
        if let Some(t) = str_at(value, "timestamp") {
            self.first_timestamp.get_or_insert_with(|| t.to_owned());
            self.last_timestamp = Some(t.to_owned());
        }
        match event {
            Event::Start {
                id,
                cwd,
                model,
                version,
            } => {
                self.session_id = self.session_id.take().or(id.map(str::to_owned));
                self.cwd = self.cwd.take().or(cwd.map(str::to_owned));
                self.model = self.model.take().or(model.map(str::to_owned));
                self.version = version.map(str::to_owned).or(self.version.take());
            }
            Event::System {
                text,
                sidechain: false,
            } => {
                self.cwd = self.cwd.take().or(stated_cwd(text).map(str::to_owned));
            }
            Event::User {
                text,
                sidechain: false,
            } => {
                self.counts.user += 1;
                if self.first_prompt.is_none() {
                    self.first_prompt = crate::title_from_text(text, crate::TITLE_CHARS);
                }
            }
            Event::Assistant(event) => {
                let data = &event["data"];
                if !is_sidechain(event, data) {
                    self.counts.assistant += u64::from(counted_reply(event));
                    self.counts.tool_calls += tool_requests(data).len() as u64;
                    if let Some(m) = str_at(data, "model") {
                        self.model = Some(m.to_owned());
                    }
                }
            }
            Event::Usage(t) => {
                self.tokens.add(&t);
                self.saw_usage = true;
            }
            Event::Legacy(doc) => {
                let messages = history::messages(doc);
                let c = Counts::of(&messages);
                self.counts.user += c.user;
                self.counts.assistant += c.assistant;
                self.counts.tool_calls += c.tool_calls;
                if self.first_prompt.is_none() {
                    self.first_prompt = history::title(doc);
                }
                if self.cwd.is_none() {
                    self.cwd = history::cwd(doc);
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Builds a transcript from the events of one file, handing out the messages nothing later
/// can change ([`Held`]) so a log of any size streams, and a read resumed after an append
/// reads only what is held.
#[derive(Default)]
pub struct Builder {
    messages: Held,
    /// Tool call id → (message index, part index) of each call of that id, oldest first.
    calls: HashMap<String, Vec<(usize, usize)>>,
    /// Messages below this index were handed out and `calls` forgot them.
    forgot_below: usize,
    /// Events skipped, with why: (line, reason).
    skipped: Vec<(u64, String)>,
}

impl LineBuilder for Builder {
    fn add(&mut self, value: &Value, offset: u64, line: u64) {
        if let Err(reason) = self.add_event(value, offset, line) {
            self.skipped.push((line, reason));
        }
    }

    fn release(&mut self, each: &mut dyn FnMut(Message)) {
        let first_held = self.messages.release(each);
        // Forgets the calls of messages handed out, in batches (the map stays about as small
        // as what is held).
        if first_held >= self.forgot_below + 64 {
            self.calls.retain(|_, at| {
                at.retain(|(m, _)| *m >= first_held);
                !at.is_empty()
            });
            self.forgot_below = first_held;
        }
    }

    fn release_rest(&mut self, each: &mut dyn FnMut(Message)) {
        std::mem::take(&mut self.messages)
            .into_rest()
            .for_each(each);
    }

    fn into_messages(self) -> Vec<Message> {
        self.messages.into_vec()
    }

    fn held(&self) -> &Held {
        &self.messages
    }
}

impl Builder {
    /// A builder holding messages as `held` says.
    pub fn new(held: Held) -> Self {
        Builder {
            messages: held,
            ..Builder::default()
        }
    }

    /// The events skipped so far, as diagnostics of the file at `path`.
    pub fn skipped(&self, path: &Path) -> Diagnostics {
        let mut out = Diagnostics::default();
        for (line, reason) in &self.skipped {
            out.push(Diagnostic {
                provider: ProviderKind::Copilot,
                path: path.to_path_buf(),
                line: Some(*line),
                reason: reason.clone(),
            });
        }
        out
    }

    /// One event at byte `offset`, line `line`; Err says why it was skipped (a diagnostic).
    fn add_event(&mut self, value: &Value, offset: u64, line: u64) -> Result<(), String> {
        let id = str_at(value, "id").map_or_else(|| format!("line-{line}"), str::to_owned);
        let time = str_at(value, "timestamp").and_then(super::parse_time);
        let start = |role| build::message(id.clone(), role, time, Some(line));
        match Event::of(value) {
            Event::User { text, sidechain } => {
                let mut m = start(Role::User);
                m.counted = !sidechain;
                m.sidechain = sidechain;
                m.parts.push(Part::Text {
                    text: text.to_owned(),
                });
                self.messages.push(m);
            }
            Event::System { text, sidechain } => {
                let mut m = start(Role::System);
                m.meta = true;
                m.sidechain = sidechain;
                m.parts.push(Part::Text {
                    text: text.to_owned(),
                });
                self.messages.push(m);
            }
            Event::Assistant(event) => self.reply(event, start(Role::Assistant)),
            Event::ToolDone(event) => self.tool_done(event, start(Role::System), offset, line),
            Event::Notice { kind, text } => {
                let mut m = start(Role::System);
                m.parts.push(build::notice(kind, text));
                self.messages.push(m);
            }
            // The carried session's messages are all of this one line.
            Event::Legacy(doc) => {
                for mut m in history::messages(doc) {
                    m.source_lines = vec![line];
                    self.messages.push(m);
                }
            }
            Event::Unknown(reason) => return Err(reason),
            Event::Start { .. } | Event::Usage(_) | Event::Skip => {}
        }
        Ok(())
    }

    fn reply(&mut self, event: &Value, mut m: Message) {
        let data = &event["data"];
        m.counted = counted_reply(event);
        m.sidechain = is_sidechain(event, data);
        m.model = str_at(data, "model").map(str::to_owned);
        if let Some(thought) = str_at(data, "reasoningText").filter(|t| !t.is_empty()) {
            m.parts.push(Part::Reasoning {
                text: thought.to_owned(),
                encrypted: false,
            });
        }
        if let Some(text) = str_at(data, "content").filter(|t| !t.is_empty()) {
            m.parts.push(Part::Text {
                text: text.to_owned(),
            });
        }
        let index = self.messages.len();
        for request in tool_requests(data) {
            let call = str_at(request, "toolCallId").unwrap_or_default().to_owned();
            let at = (index, m.parts.len());
            self.calls.entry(call.clone()).or_default().push(at);
            m.parts.push(Part::Tool(build::tool(
                call,
                str_at(request, "name").unwrap_or_default().to_owned(),
                request.get("arguments").cloned().unwrap_or(Value::Null),
            )));
        }
        self.messages.push(m);
    }

    /// Joins a tool's result to the latest call of that id still waiting for one (its line
    /// joins the call's message); a result without one is a notice of its own (`notice`).
    fn tool_done(&mut self, event: &Value, mut notice: Message, offset: u64, line: u64) {
        let data = &event["data"];
        let call = str_at(data, "toolCallId").unwrap_or_default();
        let Some((index, part)) = self.pending_call(call) else {
            notice.parts.push(build::notice(
                NoticeKind::ToolResult,
                result_text(data).unwrap_or_default(),
            ));
            self.messages.push(notice);
            return;
        };
        let Some(message) = self.messages.get_mut(index) else {
            return;
        };
        if !message.source_lines.contains(&line) {
            message.source_lines.push(line);
        }
        let Some(Part::Tool(tool)) = message.parts.get_mut(part) else {
            return;
        };
        let ok = data.get("success").and_then(Value::as_bool).unwrap_or(true);
        tool.status = if ok {
            ToolStatus::Ok
        } else {
            ToolStatus::Error
        };
        if let Some(text) = result_text(data) {
            if text.len() > INLINE_OUTPUT {
                tool.output_truncated = true;
                tool.output_blob = Some(
                    BlobKey::ToolResult {
                        offset,
                        call: call.to_owned(),
                    }
                    .key(),
                );
                tool.output = Some(crate::cut(text, INLINE_OUTPUT));
            } else {
                tool.output = Some(text);
            }
        }
        tool.changes = file_changes(data);
    }

    /// Where the latest call of id `call` still waiting for its result is, among the
    /// messages held: (message index, part index).
    fn pending_call(&self, call: &str) -> Option<(usize, usize)> {
        self.calls.get(call)?.iter().rev().copied().find(|&(m, p)| {
            let part = self.messages.get(m).and_then(|m| m.parts.get(p));
            matches!(part, Some(Part::Tool(t)) if t.status == ToolStatus::Pending)
        })
    }
}

/// A tool's result text: its content, or its error's message.
pub fn result_text(data: &Value) -> Option<String> {
    let content = data.get("result").and_then(|r| str_at(r, "content"));
    let error = data.get("error").and_then(|e| str_at(e, "message"));
    content.or(error).map(str::to_owned)
}

/// The files an edit changed (`fileEdits`), with the diff the tool showed
/// (`result.detailedContent`) when it edited one file.
fn file_changes(data: &Value) -> Vec<FileChange> {
    let edits = data
        .get("fileEdits")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let diff = data
        .get("result")
        .and_then(|r| str_at(r, "detailedContent"))
        .filter(|d| d.contains("\n@@ ") && edits.len() == 1);
    edits
        .iter()
        .filter_map(|e| {
            let path = str_at(e, "path")?.to_owned();
            let change = match str_at(e, "kind") {
                Some("create") => "add",
                Some("delete") => "delete",
                _ => "update",
            };
            let lines = |sign: char, other: &str| {
                diff.map_or(0, |d| {
                    d.lines()
                        .filter(|l| l.starts_with(sign) && !l.starts_with(other))
                        .count() as u64
                })
            };
            Some(FileChange {
                path,
                change: change.to_owned(),
                diff: diff.map(|d| d.trim_start().to_owned()),
                additions: lines('+', "+++"),
                deletions: lines('-', "---"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The directory line of the `<environment_context>` every version's prompt has (here as
    /// 1.0.102 wrote it); a Windows directory too; not a relative or empty one.
    #[test]
    fn the_system_prompt_states_the_directory() {
        let prompt = "<environment_context>\nYou are working in the following environment. \
            You do not need to make additional tool calls to verify this.\n\
            * Current working directory: /tmp/agent-rec/copilot-1.0.102/home/projects/naïve-проект\n\
            * Git repository root: Not a git repository\n</environment_context>";
        assert_eq!(
            stated_cwd(prompt),
            Some("/tmp/agent-rec/copilot-1.0.102/home/projects/naïve-проект")
        );
        let windows = "* Current working directory: C:\\Users\\bob\\p\r\n* Operating System: win32";
        assert_eq!(stated_cwd(windows), Some("C:\\Users\\bob\\p"));
        assert_eq!(
            stated_cwd("* Current working directory: \\\\srv\\share"),
            Some("\\\\srv\\share")
        );
        assert_eq!(stated_cwd("* Current working directory: projects/p"), None);
        assert_eq!(stated_cwd("* Current working directory: "), None);
        assert_eq!(stated_cwd("You are the GitHub Copilot CLI."), None);
    }
}
