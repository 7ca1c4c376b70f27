//! Loads a Codex rollout (any generation) into the unified model.
//!
//! Codex writes one response item per line with no message ids, so model output is grouped into
//! steps: reasoning and tool calls gather into one assistant message, which an assistant text
//! closes. Each assistant text is therefore one counted message, as the scan counts them.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

use super::patch;
use super::records::{user_text_kind, Item, Line, UserText};
use crate::error::Error;
use crate::model::{
    Diagnostics, Message, Part, ProviderKind, Role, SessionMeta, ToolPart, ToolStatus, Transcript,
};
use crate::provider::cut;
use crate::provider::jsonl::{for_each_record, parse_line, LineReader};

/// Tool output longer than this is cut to a preview; the rest is a blob.
const INLINE_OUTPUT: usize = 32 << 10;
/// Injected context longer than this is cut.
const INLINE_NOTICE: usize = 4 << 10;
/// The preamble Codex puts before a compaction summary.
const COMPACTION_PREAMBLE_END: &str =
    "use the information in this summary to assist with your own analysis:\n";

pub fn load(session: &SessionMeta) -> Result<Transcript, Error> {
    let path = &session.source_path;
    let mut b = Builder::default();
    let mut diagnostics = Diagnostics::default();
    if is_single_json(path) {
        for (i, item) in super::legacy_json_items(path)?.iter().enumerate() {
            b.add(item, 0, i as u64 + 1);
        }
    } else {
        diagnostics = for_each_record(ProviderKind::Codex, path, |v, offset, line| {
            b.add(v, offset, line)
        })?;
    }
    let messages = b.finish();
    let mut session = session.clone();
    session.counts = crate::model::Counts::of(&messages);
    Ok(Transcript {
        session,
        messages,
        diagnostics,
    })
}

pub fn is_single_json(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}

#[derive(Default)]
struct Builder {
    messages: Vec<Message>,
    tools: HashMap<String, (usize, usize)>,
    /// The open assistant step that reasoning and tool calls join.
    step: Option<usize>,
    model: Option<String>,
    had_user_items: bool,
    /// `user_message` events, kept hidden unless the rollout has no user items at all.
    user_events: Vec<usize>,
}

struct At {
    offset: u64,
    line: u64,
    timestamp: Option<DateTime<Utc>>,
}

impl Builder {
    fn add(&mut self, value: &Value, offset: u64, line: u64) {
        let Ok(parsed) = Line::deserialize(value) else {
            return;
        };
        let at = At {
            offset,
            line,
            timestamp: parsed
                .timestamp()
                .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                .map(|t| t.with_timezone(&Utc)),
        };
        // The raw payload: envelope lines nest it, bare lines are it.
        let raw = value
            .get("payload")
            .filter(|p| p.is_object())
            .unwrap_or(value);
        match parsed.item() {
            Item::Meta(_) | Item::Other => {}
            Item::TurnContext(p) => {
                if let Some(m) = p.model.as_deref() {
                    self.model = Some(m.to_owned());
                }
                self.step = None;
            }
            Item::Response {
                kind,
                payload,
                compaction_output,
            } => self.add_response(&at, kind, payload.role(), raw, compaction_output),
            Item::Event(p) => self.add_event(&at, p.kind(), raw),
            Item::Compacted(_) => {
                let text = raw["message"].as_str().unwrap_or("");
                let summary = match text.find(COMPACTION_PREAMBLE_END) {
                    Some(i) => &text[i + COMPACTION_PREAMBLE_END.len()..],
                    None => text,
                };
                let part = Part::Compaction {
                    trigger: None,
                    pre_tokens: None,
                    summary: (!summary.is_empty()).then(|| summary.to_owned()),
                };
                self.push(&at, Role::System, false, false, vec![part]);
                self.step = None;
            }
        }
    }

    fn push(&mut self, at: &At, role: Role, counted: bool, meta: bool, parts: Vec<Part>) -> usize {
        self.messages.push(Message {
            id: format!("line-{}", at.line),
            role,
            parent_id: None,
            timestamp: at.timestamp,
            model: (role == Role::Assistant)
                .then(|| self.model.clone())
                .flatten(),
            counted,
            meta,
            sidechain: false,
            parts,
            source_lines: vec![at.line],
        });
        self.messages.len() - 1
    }

    fn notice(&mut self, at: &At, meta: bool, source: &str, text: String) {
        let part = Part::Notice {
            source: source.to_owned(),
            text,
        };
        self.push(at, Role::System, false, meta, vec![part]);
    }

    /// The open assistant step, opened now if there is none.
    fn step(&mut self, at: &At) -> usize {
        match self.step {
            Some(i) => {
                if !self.messages[i].source_lines.contains(&at.line) {
                    self.messages[i].source_lines.push(at.line);
                }
                i
            }
            None => {
                let i = self.push(at, Role::Assistant, false, false, Vec::new());
                self.step = Some(i);
                i
            }
        }
    }

    fn add_response(
        &mut self,
        at: &At,
        kind: &str,
        role: &str,
        raw: &Value,
        compaction_output: bool,
    ) {
        match (kind, role) {
            ("message", "user") => self.add_user(at, raw),
            ("message", "assistant") if compaction_output => {
                self.notice(at, true, "compaction_output", texts(raw).join("\n"));
            }
            ("message", "assistant") => {
                let i = self.step(at);
                for text in texts(raw) {
                    self.messages[i].parts.push(Part::Text { text });
                }
                self.messages[i].counted = true;
                self.step = None;
            }
            ("message", other) => {
                let source = if other.is_empty() { "system" } else { other };
                self.notice(at, true, source, cut(texts(raw).join("\n"), INLINE_NOTICE));
            }
            ("reasoning", _) => {
                let mut text: Vec<String> = raw["summary"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s["text"].as_str().map(str::to_owned))
                    .collect();
                text.extend(
                    raw["content"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|s| s["text"].as_str().map(str::to_owned)),
                );
                let part = Part::Reasoning {
                    text: text.join("\n\n"),
                    encrypted: raw["encrypted_content"].is_string(),
                };
                let i = self.step(at);
                self.messages[i].parts.push(part);
            }
            ("function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call", _) => {
                let tool = tool_call(kind, raw);
                let i = self.step(at);
                let pi = self.messages[i].parts.len();
                if !tool.call_id.is_empty() {
                    self.tools.insert(tool.call_id.clone(), (i, pi));
                }
                self.messages[i].parts.push(Part::Tool(tool));
            }
            ("function_call_output" | "custom_tool_call_output" | "local_shell_call_output", _) => {
                self.add_output(at, raw);
            }
            ("ghost_snapshot", _) => {}
            (other, _) => self.notice(at, true, &format!("item:{other}"), String::new()),
        }
    }

    fn add_user(&mut self, at: &At, raw: &Value) {
        let all = texts(raw);
        let first = all.first().map(String::as_str).unwrap_or("");
        if let UserText::Injected(tag) = user_text_kind(first) {
            let source = format!(
                "injected:{}",
                tag.trim_matches(|c| c == '<' || c == '>' || c == '#')
                    .trim()
            );
            self.notice(at, true, &source, cut(all.join("\n"), INLINE_NOTICE));
            return;
        }
        self.step = None;
        self.had_user_items = true;
        let mut parts: Vec<Part> = all.into_iter().map(|text| Part::Text { text }).collect();
        let images = raw["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["type"] == "input_image")
            .count();
        parts.extend((0..images).map(|n| Part::File {
            path: None,
            mime: None,
            blob: Some(format!("line:{}:image:{n}", at.offset)),
        }));
        self.push(at, Role::User, true, false, parts);
    }

    fn add_output(&mut self, at: &At, raw: &Value) {
        let call_id = raw["call_id"].as_str().unwrap_or("");
        let (text, exit_code) = output_text(&raw["output"]);
        let Some(&(mi, pi)) = self.tools.get(call_id) else {
            self.notice(at, true, "tool_output", cut(text, INLINE_NOTICE));
            return;
        };
        let message = &mut self.messages[mi];
        if !message.source_lines.contains(&at.line) {
            message.source_lines.push(at.line);
        }
        if let Some(Part::Tool(tool)) = message.parts.get_mut(pi) {
            tool.status = match exit_code {
                Some(0) | None => ToolStatus::Ok,
                Some(_) => ToolStatus::Error,
            };
            if tool.name == "spawn_agent" {
                tool.subagent_id = serde_json::from_str::<Value>(&text)
                    .ok()
                    .and_then(|v| v["agent_id"].as_str().map(str::to_owned));
            }
            if text.len() > INLINE_OUTPUT {
                tool.output_blob = Some(format!("line:{}:output", at.offset));
                tool.output_truncated = true;
                tool.output = Some(cut(text, INLINE_OUTPUT));
            } else {
                tool.output = Some(text);
            }
        }
    }

    fn add_event(&mut self, at: &At, kind: &str, raw: &Value) {
        let text = raw["message"].as_str().unwrap_or("").to_owned();
        match kind {
            "user_message" => {
                let i = self.push(at, Role::User, false, true, vec![Part::Text { text }]);
                self.user_events.push(i);
            }
            "turn_aborted" => {
                let reason = raw["reason"].as_str().unwrap_or("interrupted").to_owned();
                self.notice(at, false, "interrupt", reason);
                self.step = None;
            }
            "error" | "stream_error" => self.notice(at, false, "error", text),
            "exec_approval_request" | "apply_patch_approval_request" | "request_user_input" => {
                self.notice(at, false, "ask", kind.to_owned());
            }
            _ => {}
        }
    }

    fn finish(mut self) -> Vec<Message> {
        if !self.had_user_items {
            for i in self.user_events {
                self.messages[i].counted = true;
                self.messages[i].meta = false;
            }
        }
        self.messages
    }
}

/// The texts of a message's content items.
fn texts(raw: &Value) -> Vec<String> {
    raw["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str().map(str::to_owned))
        .collect()
}

fn tool_call(kind: &str, raw: &Value) -> ToolPart {
    let call_id = raw["call_id"]
        .as_str()
        .or_else(|| raw["id"].as_str())
        .unwrap_or("")
        .to_owned();
    let (name, input) = match kind {
        "function_call" => {
            let args = raw["arguments"].as_str().unwrap_or("");
            let input =
                serde_json::from_str(args).unwrap_or_else(|_| Value::String(args.to_owned()));
            (raw["name"].as_str().unwrap_or("function").to_owned(), input)
        }
        "custom_tool_call" => (
            raw["name"].as_str().unwrap_or("custom").to_owned(),
            raw["input"].clone(),
        ),
        "local_shell_call" => ("local_shell".to_owned(), raw["action"].clone()),
        _ => ("web_search".to_owned(), raw["action"].clone()),
    };
    let changes = match (&input, name.as_str()) {
        (Value::String(p), "apply_patch") => patch::parse(p),
        _ => shell_command(&input)
            .and_then(patch::from_shell)
            .map(patch::parse)
            .unwrap_or_default(),
    };
    let status = match raw["status"].as_str() {
        Some("completed") => ToolStatus::Ok,
        Some("failed") => ToolStatus::Error,
        _ => ToolStatus::Pending,
    };
    ToolPart {
        call_id,
        name,
        input,
        status,
        output: None,
        output_truncated: false,
        output_blob: None,
        changes,
        subagent_id: None,
    }
}

/// The command string of a shell-like call (`cmd`, `command` as string or argv).
fn shell_command(input: &Value) -> Option<&str> {
    if let Some(cmd) = input["cmd"].as_str().or_else(|| input["command"].as_str()) {
        return Some(cmd);
    }
    input["command"].as_array()?.last()?.as_str()
}

/// A tool output: old versions wrap it as JSON `{"output": …, "metadata": {"exit_code": n}}`;
/// newer ones write text with an `Exit code: n` / `Process exited with code n` line.
fn output_text(output: &Value) -> (String, Option<i64>) {
    let text = match output {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    if let Ok(Value::Object(wrapped)) = serde_json::from_str::<Value>(&text) {
        if let Some(inner) = wrapped.get("output").and_then(Value::as_str) {
            let code = wrapped
                .get("metadata")
                .and_then(|m| m["exit_code"].as_i64());
            return (inner.to_owned(), code);
        }
    }
    let code = text.lines().take(8).find_map(|l| {
        l.strip_prefix("Exit code: ")
            .or_else(|| l.strip_prefix("Process exited with code "))
            .and_then(|n| n.trim().parse().ok())
    });
    (text, code)
}

/// The bytes behind a blob key of a Codex transcript.
pub fn blob(session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error> {
    let missing = |reason: &str| Error::BlobNotFound {
        session: session.id.clone(),
        key: key.to_owned(),
        reason: reason.to_owned(),
    };
    let mut fields = key.split(':');
    let (Some("line"), Some(offset), Some(kind)) = (fields.next(), fields.next(), fields.next())
    else {
        return Err(missing("unknown key form"));
    };
    let offset: u64 = offset.parse().map_err(|_| missing("bad offset"))?;
    let path = &session.source_path;
    let mut reader = LineReader::open_at(path, offset, 0).map_err(|e| Error::io(path, e))?;
    let line = reader
        .next_line()
        .map_err(|e| Error::io(path, e))?
        .ok_or_else(|| missing("no record"))?;
    let value: Value = parse_line(line.bytes).map_err(|_| missing("record does not decode"))?;
    let raw = value
        .get("payload")
        .filter(|p| p.is_object())
        .unwrap_or(&value);
    match kind {
        "output" => Ok(output_text(&raw["output"]).0.into_bytes()),
        "image" => {
            let n: usize = fields
                .next()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| missing("bad image index"))?;
            let url = raw["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["type"] == "input_image")
                .nth(n)
                .and_then(|c| c["image_url"].as_str())
                .ok_or_else(|| missing("no such image"))?;
            let data = url
                .split_once(";base64,")
                .map(|(_, d)| d)
                .ok_or_else(|| missing("not an inline image"))?;
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .decode(data)
                .map_err(|_| missing("image data is not base64"))
        }
        _ => Err(missing("unknown blob kind")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_output_shapes() {
        let wrapped = Value::String(r#"{"output":"hi\n","metadata":{"exit_code":2}}"#.into());
        assert_eq!(output_text(&wrapped), ("hi\n".into(), Some(2)));
        let text = Value::String(
            "Chunk ID: 1\nWall time: 0\nProcess exited with code 0\nOutput:\nx".into(),
        );
        assert_eq!(output_text(&text).1, Some(0));
        assert_eq!(
            output_text(&Value::String("Exit code: 1\nboom".into())).1,
            Some(1)
        );
    }
}
