//! Cline CLI 3.x (docs/formats.md, "Cline"): `data/sessions/<id>/<id>.json` (the session's
//! metadata: directory, model, usage and cost, times) and `<id>.messages.json` (the
//! conversation: `{sessionId, messages[]}`, each message `{id, role, content[], ts, modelInfo,
//! metrics, metadata}`); a subagent is `agent_<…>.messages.json` in its parent's folder.

use std::path::Path;

use agent_sessions_model::{
    Diagnostic, Diagnostics, Message, NoticeKind, Part, ProviderKind, Role, Tokens,
};
use serde_json::Value;

use super::parts::{self, str_of, time_of_ms, time_of_text};
use crate::build;

const KIND: ProviderKind = ProviderKind::Cline;

/// A conversation file read into messages, with what the listing needs of it.
#[derive(Debug, Default)]
pub(super) struct Conversation {
    /// The `sessionId` the file names.
    pub id: Option<String>,
    pub messages: Vec<Message>,
    pub tokens: Option<Tokens>,
    pub model: Option<String>,
    pub first_prompt: Option<String>,
    /// The directory the transcript itself names (2.x requests), if any.
    pub cwd: Option<String>,
    pub updated: Option<chrono::DateTime<chrono::Utc>>,
    pub diagnostics: Diagnostics,
}

/// Reads a JSON document of the store, or the diagnostic that says why it cannot be.
pub(super) fn read_json(path: &Path) -> Result<Value, Diagnostic> {
    let problem = |reason: String| Diagnostic {
        provider: KIND,
        path: path.to_path_buf(),
        line: None,
        reason,
    };
    let bytes = crate::files::read_document(path, crate::files::MAX_DOCUMENT)
        .map_err(|e| problem(format!("cannot read: {e}")))?;
    // Invalid UTF-8 is repaired to U+FFFD rather than losing the whole document.
    let text = String::from_utf8_lossy(&bytes);
    serde_json::from_str(&text).map_err(|e| {
        problem(format!(
            "not a JSON document ({e}); a write in progress or a damaged file"
        ))
    })
}

/// A transcript's document, or the empty conversation that says why it could not be read.
pub(super) fn open(path: &Path) -> Result<Value, Box<Conversation>> {
    read_json(path).map_err(|d| {
        let mut out = Conversation::default();
        out.diagnostics.push(d);
        Box::new(out)
    })
}

/// Reads `<…>.messages.json`. `full`: tool outputs whole (a blob's read), not cut to previews.
pub(super) fn read_conversation(path: &Path, full: bool) -> Conversation {
    let (mut out, doc) = match open(path) {
        Ok(doc) => (Conversation::default(), doc),
        Err(empty) => return *empty,
    };
    out.id = str_of(&doc, "sessionId").map(str::to_owned);
    out.updated = time_of_text(doc.get("updated_at"));
    let empty = Vec::new();
    let messages = doc
        .get("messages")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let mut tokens = Tokens::default();
    let mut skipped = 0u64;
    for (n, m) in messages.iter().enumerate() {
        match str_of(m, "role") {
            Some("user") => user(&mut out, m, n, full),
            Some("assistant") => assistant(&mut out, &mut tokens, m, n),
            _ => skipped += 1,
        }
    }
    if skipped > 0 {
        out.diagnostics.push(Diagnostic {
            provider: KIND,
            path: path.to_path_buf(),
            line: None,
            reason: format!("{skipped} message(s) of an unknown role skipped"),
        });
    }
    out.tokens = (!tokens.is_zero()).then_some(tokens);
    out
}

fn id_of(m: &Value, n: usize) -> String {
    str_of(m, "id").map_or_else(|| format!("message-{n}"), str::to_owned)
}

fn content(m: &Value) -> &[Value] {
    m.get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A user message: a prompt (its text parts), and tool results joined to their calls.
fn user(out: &mut Conversation, m: &Value, n: usize, full: bool) {
    let mut texts = Vec::new();
    for block in content(m) {
        match str_of(block, "type") {
            Some("text") => texts.push(parts::unwrap_prompt(str_of(block, "text").unwrap_or(""))),
            Some("tool_result") => tool_result(out, block, full),
            _ => {}
        }
    }
    if texts.is_empty() {
        return;
    }
    let text = texts.join("\n");
    if out.first_prompt.is_none() {
        out.first_prompt = Some(text.clone());
    }
    let mut msg = build::message(id_of(m, n), Role::User, time_of_ms(m.get("ts")), None);
    msg.counted = true;
    msg.parts.push(Part::Text { text });
    out.messages.push(msg);
}

/// A tool result: its output on the call's part (the latest call of that id).
fn tool_result(out: &mut Conversation, block: &Value, full: bool) {
    let Some(call) = str_of(block, "tool_use_id") else {
        return;
    };
    let (text, ok) = output_of(block.get("content").unwrap_or(&Value::Null));
    let ok = ok && block.get("is_error").and_then(Value::as_bool) != Some(true);
    let found = out
        .messages
        .iter_mut()
        .rev()
        .find_map(|msg| parts::find_tool(&mut msg.parts, call));
    if let Some(tool) = found {
        parts::set_output(tool, text, ok, full);
    }
}

/// A result's text and whether it succeeded: an array of `{query, result, success, error}`
/// (one per file or command), a JSON text of one such object, or plain text.
fn output_of(content: &Value) -> (String, bool) {
    match content {
        Value::Array(items) => {
            let mut ok = true;
            let texts: Vec<String> = items
                .iter()
                .map(|item| {
                    let (text, good) = one_output(item);
                    ok &= good;
                    text
                })
                .collect();
            (texts.join("\n"), ok)
        }
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => one_output(&v),
            _ => (s.clone(), true),
        },
        other => one_output(other),
    }
}

fn one_output(item: &Value) -> (String, bool) {
    let ok = item.get("success").and_then(Value::as_bool) != Some(false);
    let text = str_of(item, "result")
        .or_else(|| str_of(item, "error"))
        .or_else(|| str_of(item, "text"))
        .map(str::to_owned)
        .unwrap_or_else(|| match item {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
    (text, ok)
}

/// An assistant message: its reasoning, text and tool calls; or, marked `displayRole: error`,
/// a failed model call shown as an error notice (never sent to the model).
fn assistant(out: &mut Conversation, tokens: &mut Tokens, m: &Value, n: usize) {
    let info = m.get("metadata").unwrap_or(&Value::Null);
    let mut msg = build::message(id_of(m, n), Role::Assistant, time_of_ms(m.get("ts")), None);
    msg.model = m
        .get("modelInfo")
        .and_then(|i| str_of(i, "id"))
        .map(str::to_owned);
    if str_of(info, "displayRole") == Some("error")
        || info.get("displayOnly").and_then(Value::as_bool) == Some(true)
    {
        let text = content(m)
            .iter()
            .filter_map(|b| str_of(b, "text"))
            .collect::<Vec<_>>()
            .join("\n");
        msg.role = Role::System;
        msg.parts.push(build::notice(NoticeKind::Error, text));
        out.messages.push(msg);
        return;
    }
    for block in content(m) {
        match str_of(block, "type") {
            Some("text") => msg.parts.push(Part::Text {
                text: str_of(block, "text").unwrap_or("").to_owned(),
            }),
            Some("thinking") => msg.parts.push(Part::Reasoning {
                text: str_of(block, "thinking").unwrap_or("").to_owned(),
                encrypted: false,
            }),
            Some("redacted_thinking") => msg.parts.push(Part::Reasoning {
                text: String::new(),
                encrypted: true,
            }),
            Some("tool_use") => msg.parts.push(Part::Tool(tool_call(block))),
            Some(other) => msg.parts.push(build::notice(
                NoticeKind::Block(other.to_owned()),
                block.to_string(),
            )),
            None => {}
        }
    }
    if let Some(metrics) = m.get("metrics") {
        tokens.add(&parts::tokens_of(metrics, parts::V3_TOKENS));
    }
    msg.counted = msg.parts.iter().any(|p| {
        matches!(
            p,
            Part::Text { .. } | Part::Reasoning { .. } | Part::Tool(_)
        )
    });
    if msg.model.is_some() {
        out.model.clone_from(&msg.model);
    }
    out.messages.push(msg);
}

/// A `tool_use` block; `editor` calls carry the edit they make.
fn tool_call(block: &Value) -> agent_sessions_model::ToolPart {
    let input = block.get("input").cloned().unwrap_or(Value::Null);
    let name = str_of(block, "name").unwrap_or("tool").to_owned();
    let id = str_of(block, "id").unwrap_or("").to_owned();
    let mut tool = parts::tool(id, name, input);
    if tool.name == "editor" {
        let i = &tool.input;
        if let Some(path) = str_of(i, "path") {
            let old = str_of(i, "old_text").unwrap_or("");
            let new = str_of(i, "new_text").or_else(|| str_of(i, "content"));
            if let Some(new) = new {
                tool.changes.push(parts::change(path, old, new));
            }
        }
    }
    tool
}
