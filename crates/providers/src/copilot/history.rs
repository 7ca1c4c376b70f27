//! Copilot CLI's first store (≤ 0.0.341): one JSON document a session,
//! `history-session-state/session_<id>_<ms>.json`, `{sessionId, startTime, chatMessages,
//! timeline, selectedModel}` (the writer is `saveHistorySession` in 0.0.340's bundle).
//! `chatMessages` is the conversation as the model was sent it (OpenAI chat messages: the
//! CLI's own instructions among them), `timeline` what the CLI showed (`user`, `copilot`,
//! `info`, `error`, `tool_call_requested`, `tool_call_completed`, each with `id` and
//! `timestamp`). No field records the working directory; the system prompt kept in
//! `chatMessages` states it ([`cwd`]).
//!
//! The transcript is `chatMessages`; a user message counts as a prompt when it holds what the
//! user typed (a timeline `user` entry: the CLI wraps the first one in its instructions), the
//! others are the CLI's own (meta). A tool's status comes from its `tool_call_completed`.

use std::collections::HashMap;

use serde_json::Value;

use crate::build;
use agent_sessions_model::{Message, NoticeKind, Part, Role, ToolStatus};

/// The session id and start time in a file name `session_<id>_<ms>.json`.
pub fn parse_name(name: &str) -> Option<(&str, i64)> {
    let rest = name.strip_prefix("session_")?.strip_suffix(".json")?;
    let (id, ms) = rest.rsplit_once('_')?;
    let ms = ms.parse().ok()?;
    (!id.is_empty()).then_some((id, ms))
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A message's text: a string, or its `text` parts joined.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| str_at(p, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// What the user typed, by the timeline.
fn typed(doc: &Value) -> Vec<&str> {
    list(doc, "timeline")
        .iter()
        .filter(|e| str_at(e, "type") == Some("user"))
        .filter_map(|e| str_at(e, "text"))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect()
}

/// Each tool call's status by the timeline's `tool_call_completed` (`success`, `failure`,
/// `rejected`, `denied`).
fn statuses(doc: &Value) -> HashMap<&str, ToolStatus> {
    list(doc, "timeline")
        .iter()
        .filter(|e| str_at(e, "type") == Some("tool_call_completed"))
        .filter_map(|e| {
            let ok = e.get("result").and_then(|r| str_at(r, "type")) == Some("success");
            let status = if ok {
                ToolStatus::Ok
            } else {
                ToolStatus::Error
            };
            Some((str_at(e, "callId")?, status))
        })
        .collect()
}

/// The transcript of a history document (or of one carried into an event log by
/// `session.import_legacy`).
pub fn messages(doc: &Value) -> Vec<Message> {
    let typed = typed(doc);
    let statuses = statuses(doc);
    let mut out: Vec<Message> = Vec::new();
    for (i, chat) in list(doc, "chatMessages").iter().enumerate() {
        let id = format!("chat-{i}");
        let text = text_of(chat.get("content").unwrap_or(&Value::Null));
        match str_at(chat, "role") {
            Some("user") => {
                let mut m = build::message(id, Role::User, None, None);
                m.counted = typed.iter().any(|t| text.contains(t));
                m.meta = !m.counted;
                m.parts.push(Part::Text { text });
                out.push(m);
            }
            Some("assistant") => out.push(reply(id, chat, text, &statuses)),
            Some("tool") | Some("function") => {
                let call = str_at(chat, "tool_call_id").unwrap_or_default();
                if !join_result(&mut out, call, &text) {
                    let mut m = build::message(id, Role::System, None, None);
                    m.parts.push(build::notice(NoticeKind::ToolResult, text));
                    out.push(m);
                }
            }
            _ => {
                let mut m = build::message(id, Role::System, None, None);
                m.meta = true;
                m.parts.push(Part::Text { text });
                out.push(m);
            }
        }
    }
    out.extend(errors(doc));
    out
}

/// An assistant message: its text and its tool calls (OpenAI `function` or `custom`).
fn reply(id: String, chat: &Value, text: String, statuses: &HashMap<&str, ToolStatus>) -> Message {
    let mut m = build::message(id, Role::Assistant, None, None);
    if !text.trim().is_empty() {
        m.parts.push(Part::Text { text });
    }
    for call in list(chat, "tool_calls") {
        let call_id = str_at(call, "id").unwrap_or_default().to_owned();
        let (name, input) = match call.get("function").or_else(|| call.get("custom")) {
            Some(f) => {
                let raw = str_at(f, "arguments").or_else(|| str_at(f, "input"));
                let input = raw.map_or(Value::Null, |r| {
                    serde_json::from_str(r).unwrap_or_else(|_| Value::String(r.to_owned()))
                });
                (str_at(f, "name").unwrap_or_default().to_owned(), input)
            }
            None => (String::new(), Value::Null),
        };
        let status = statuses
            .get(call_id.as_str())
            .copied()
            .unwrap_or(ToolStatus::Pending);
        let mut tool = build::tool(call_id, name, input);
        tool.status = status;
        m.parts.push(Part::Tool(tool));
    }
    m.counted = !m.parts.is_empty();
    m
}

/// Puts a tool message's text on the call it answers; false when no call is found.
fn join_result(out: &mut [Message], call: &str, text: &str) -> bool {
    let tool = out
        .iter_mut()
        .rev()
        .flat_map(|m| m.parts.iter_mut())
        .find_map(|p| match p {
            Part::Tool(t) if t.call_id == call && t.output.is_none() => Some(t),
            _ => None,
        });
    let Some(tool) = tool else { return false };
    if tool.status == ToolStatus::Pending {
        tool.status = ToolStatus::Ok;
    }
    tool.output = Some(crate::cut(text.to_owned(), super::events::INLINE_OUTPUT));
    tool.output_truncated = text.len() > super::events::INLINE_OUTPUT;
    true
}

/// The errors the CLI showed (a failed model call never reaches `chatMessages`).
fn errors(doc: &Value) -> Vec<Message> {
    list(doc, "timeline")
        .iter()
        .filter(|e| str_at(e, "type") == Some("error"))
        .map(|e| {
            let time = str_at(e, "timestamp").and_then(super::parse_time);
            let id = str_at(e, "id").unwrap_or("error").to_owned();
            let mut m = build::message(id, Role::System, time, None);
            let text = str_at(e, "text").unwrap_or_default().to_owned();
            m.parts.push(build::notice(NoticeKind::Error, text));
            m
        })
        .collect()
}

/// The title: the first thing the user typed.
pub fn title(doc: &Value) -> Option<String> {
    typed(doc)
        .first()
        .and_then(|t| crate::title_from_text(t, crate::TITLE_CHARS))
}

/// The directory the session ran in, as its system prompt states it (see
/// [`super::events::stated_cwd`]): the document has no field for it.
pub fn cwd(doc: &Value) -> Option<String> {
    list(doc, "chatMessages")
        .iter()
        .filter(|m| str_at(m, "role") == Some("system"))
        .find_map(|m| {
            let text = text_of(m.get("content").unwrap_or(&Value::Null));
            super::events::stated_cwd(&text).map(str::to_owned)
        })
}

/// The timeline's last timestamp: when the session was last written to.
pub fn last_time(doc: &Value) -> Option<&str> {
    list(doc, "timeline")
        .iter()
        .rev()
        .find_map(|e| str_at(e, "timestamp"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_give_id_and_start() {
        assert_eq!(
            parse_name("session_0b9d4a4e-1f7e-4a51-9d2e-3f0c1c2b5a10_1760000000000.json"),
            Some(("0b9d4a4e-1f7e-4a51-9d2e-3f0c1c2b5a10", 1760000000000))
        );
        assert_eq!(parse_name("session__1.json"), None);
        assert_eq!(parse_name("session_x_y.json"), None);
        assert_eq!(parse_name("other.json"), None);
    }
}
