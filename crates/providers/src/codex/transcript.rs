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
use super::records::{compaction_summary, user_text_kind, Item, Line, UserText};
use crate::blob::{self, BlobKey};
use crate::build::{self, LineBuilder};
use crate::cut;
use crate::error::Error;
use crate::held::Held;
use crate::jsonl::{parse_line, LineReader};
use crate::tail::{LineStart, Links, Resume, Streamed};
use agent_sessions_model::{
    Diagnostics, Message, NoticeKind, Part, ProviderKind, Role, SessionMeta, ToolPart, ToolStatus,
    Transcript,
};

/// Tool output longer than this is cut to a preview; the rest is a blob.
const INLINE_OUTPUT: usize = 32 << 10;
/// Injected context longer than this is cut.
const INLINE_NOTICE: usize = 4 << 10;

pub fn load(session: &SessionMeta) -> Result<Transcript, Error> {
    let path = &session.source_path;
    if !is_single_json(path) {
        return load_from(session, LineStart::default());
    }
    let mut b = Builder::default();
    for (i, item) in super::legacy_json_items(path)?.iter().enumerate() {
        b.add_record(item, 0, i as u64 + 1);
    }
    Ok(build::transcript(
        session,
        b.finish(),
        Diagnostics::default(),
    ))
}

/// The transcript from `from` (a line start) to the end of a JSONL rollout.
pub fn load_from(session: &SessionMeta, from: LineStart) -> Result<Transcript, Error> {
    build::read_from(ProviderKind::Codex, session, Builder::default(), from)
}

/// What a Codex builder carries over a resume point: the model of the turn, and whether user
/// items came (they decide, for the whole rollout, whether `user_message` events show).
#[derive(serde::Serialize, Deserialize)]
struct Carried {
    model: Option<String>,
    had_user_items: bool,
}

/// Hands each message of a JSONL rollout to `each` as soon as nothing later can change it, so
/// a rollout of any size streams with bounded memory (see [`Held`], which tests make small); a
/// single-document JSON rollout is read whole (its size is bounded when it is read).
/// From `resume` (see [`crate::Provider::load_each_from`]); a state of another format is an
/// error (before anything is read): the caller reads from the start instead.
pub fn load_each_from(
    session: &SessionMeta,
    resume: Option<&Resume>,
    held: Held,
    each: &mut dyn FnMut(Message),
) -> Streamed {
    load_each_linked(session, resume, held, &mut Links::default(), each)
}

/// [`load_each_from`] for a reader that keeps what it read (see
/// [`crate::Provider::load_each_linked`]): Codex messages have no parents, but the rollout's
/// first user item, coming after the point, makes the `user_message` events before it no
/// prompts (a whole read hides them): that read sets [`Links::earlier_changed`].
pub fn load_each_linked(
    session: &SessionMeta,
    resume: Option<&Resume>,
    held: Held,
    links: &mut Links,
    each: &mut dyn FnMut(Message),
) -> Streamed {
    links.earlier_changed = false;
    if is_single_json(&session.source_path) {
        let t = load(session)?;
        t.messages.into_iter().for_each(each);
        return Ok((t.diagnostics, None));
    }
    let start = build::Start::of(session, resume)?;
    let mut b = Builder {
        messages: held,
        ..Builder::default()
    };
    if resume.is_some() {
        let Some(c) = crate::decode_state::<Carried>(&start.carried) else {
            return Err(build::other_version(session));
        };
        b.model = c.model;
        b.had_user_items = c.had_user_items;
    }
    let had_user_items = b.had_user_items;
    let read = build::stream(ProviderKind::Codex, session, &mut b, start, each);
    let first_user_item = !had_user_items && b.had_user_items;
    let event_before = |r: &Resume| links.first_user_event.is_some_and(|l| l <= r.from.line);
    links.earlier_changed = first_user_item && resume.is_some_and(event_before);
    links.first_user_event = links.first_user_event.or(b.first_user_event);
    read
}

/// A `user_message` event (a hidden user message) is the prompt itself when the rollout has no
/// user items at all.
fn shown_event(mut m: Message, visible_events: bool) -> Message {
    if visible_events && m.role == Role::User && m.meta {
        m.counted = true;
        m.meta = false;
    }
    m
}

pub fn is_single_json(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}

#[derive(Default)]
struct Builder {
    messages: Held,
    tools: HashMap<String, (usize, usize)>,
    /// The open assistant step that reasoning and tool calls join.
    step: Option<usize>,
    model: Option<String>,
    had_user_items: bool,
    /// `user_message` events, kept hidden unless the rollout has no user items at all.
    user_events: Vec<usize>,
    /// The line of the first `user_message` event (kept when it is forgotten).
    first_user_event: Option<u64>,
    /// The last assistant reply, while no other response item has followed it: it may turn out
    /// to be a compaction's summary (see [`Builder::take_back_summary`]).
    last_reply: Option<Reply>,
    /// Messages below this index were handed out and the maps above forgot them.
    forgot_below: usize,
}

/// Where an assistant text went: message `message`, its parts from `first_part` on.
struct Reply {
    message: usize,
    first_part: usize,
    /// The message was opened by this text (no reasoning or tool call before it).
    opened: bool,
    at: At,
}

#[derive(Clone, Copy)]
struct At {
    offset: u64,
    line: u64,
    timestamp: Option<DateTime<Utc>>,
}

impl LineBuilder for Builder {
    fn add(&mut self, value: &Value, offset: u64, line: u64) {
        self.add_record(value, offset, line);
    }

    fn release(&mut self, each: &mut dyn FnMut(Message)) {
        self.release_ready(each);
    }

    fn release_rest(&mut self, each: &mut dyn FnMut(Message)) {
        let visible_events = !self.had_user_items;
        for m in std::mem::take(&mut self.messages).into_rest() {
            each(shown_event(m, visible_events));
        }
    }

    fn into_messages(self) -> Vec<Message> {
        self.finish()
    }

    fn held(&self) -> &Held {
        &self.messages
    }

    fn carried(&self) -> Vec<u8> {
        crate::encode_state(&Carried {
            model: self.model.clone(),
            had_user_items: self.had_user_items,
        })
    }
}

impl Builder {
    fn add_record(&mut self, value: &Value, offset: u64, line: u64) {
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
            } => {
                self.last_reply = None;
                self.add_response(&at, kind, payload.role(), raw, compaction_output);
            }
            Item::Event(p) => self.add_event(&at, p.kind(), raw),
            Item::Compacted(_) => {
                let summary = compaction_summary(raw["message"].as_str().unwrap_or(""));
                self.take_back_summary(summary);
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
        let id = format!("line-{}", at.line);
        self.messages.push(Message {
            model: (role == Role::Assistant)
                .then(|| self.model.clone())
                .flatten(),
            counted,
            meta,
            parts,
            ..build::message(id, role, at.timestamp, Some(at.line))
        });
        self.messages.len() - 1
    }

    /// Hands out what nothing can change any more: never the open step or the last reply (a
    /// compaction may take it back). Events released before any user item was seen are taken
    /// for the prompts (a rollout with user items has them in its first lines).
    fn release_ready(&mut self, each: &mut dyn FnMut(Message)) {
        if self.step.is_some() || self.last_reply.is_some() {
            return;
        }
        let visible_events = !self.had_user_items;
        let first_held = self
            .messages
            .release(&mut |m| each(shown_event(m, visible_events)));
        if first_held >= self.forgot_below + 64 {
            self.tools.retain(|_, (mi, _)| *mi >= first_held);
            self.user_events.retain(|i| *i >= first_held);
            self.forgot_below = first_held;
        }
    }

    fn notice(&mut self, at: &At, meta: bool, source: NoticeKind, text: String) {
        let part = build::notice(source, text);
        self.push(at, Role::System, false, meta, vec![part]);
    }

    /// The open assistant step, opened now if there is none.
    fn step(&mut self, at: &At) -> usize {
        match self.step.and_then(|i| Some((i, self.messages.get_mut(i)?))) {
            Some((i, m)) => {
                if !m.source_lines.contains(&at.line) {
                    m.source_lines.push(at.line);
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
                self.notice(
                    at,
                    true,
                    NoticeKind::CompactionOutput,
                    texts(raw).join("\n"),
                );
            }
            ("message", "assistant") => {
                let opened = self.step.is_none();
                let i = self.step(at);
                let Some(m) = self.messages.get_mut(i) else {
                    return;
                };
                self.last_reply = Some(Reply {
                    message: i,
                    first_part: m.parts.len(),
                    opened,
                    at: *at,
                });
                for text in texts(raw) {
                    m.parts.push(Part::Text { text });
                }
                m.counted = true;
                self.step = None;
            }
            ("message", other) => {
                let source = NoticeKind::parse(if other.is_empty() { "system" } else { other });
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
                if let Some(m) = self.messages.get_mut(i) {
                    m.parts.push(part);
                }
            }
            ("function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call", _) => {
                let tool = tool_call(kind, raw);
                let i = self.step(at);
                if let Some(m) = self.messages.get_mut(i) {
                    if !tool.call_id.is_empty() {
                        self.tools.insert(tool.call_id.clone(), (i, m.parts.len()));
                    }
                    m.parts.push(Part::Tool(tool));
                }
            }
            ("function_call_output" | "custom_tool_call_output" | "local_shell_call_output", _) => {
                self.add_output(at, raw);
            }
            ("ghost_snapshot", _) => {}
            (other, _) => self.notice(at, true, NoticeKind::Item(other.to_owned()), String::new()),
        }
    }

    /// Codex 0.116–0.158 wrote the summary of a compaction as a plain assistant message right
    /// before the `compacted` line, which repeats it after a preamble. When the last reply is
    /// that summary, it is no reply: it becomes the hidden `compaction_output` notice that later
    /// versions mark in the file, and stops being counted.
    fn take_back_summary(&mut self, summary: &str) {
        let Some(reply) = self.last_reply.take() else {
            return;
        };
        // Only the last message, so no index held elsewhere (tool calls) moves.
        if reply.message + 1 != self.messages.len() {
            return;
        }
        let Some(message) = self.messages.get_mut(reply.message) else {
            return;
        };
        let is_summary =
            matches!(message.parts.last(), Some(Part::Text { text }) if text == summary);
        if !is_summary || reply.first_part > message.parts.len() {
            return;
        }
        let texts: Vec<String> = message
            .parts
            .drain(reply.first_part..)
            .filter_map(|p| match p {
                Part::Text { text } => Some(text),
                _ => None,
            })
            .collect();
        message.counted = false;
        if reply.opened {
            self.messages.pop_last();
        } else {
            message.source_lines.retain(|l| *l != reply.at.line);
        }
        self.notice(
            &reply.at,
            true,
            NoticeKind::CompactionOutput,
            texts.join("\n"),
        );
    }

    fn add_user(&mut self, at: &At, raw: &Value) {
        let all = texts(raw);
        let first = all.first().map(String::as_str).unwrap_or("");
        if let UserText::Injected(tag) = user_text_kind(first) {
            let tag = tag
                .trim_matches(|c| c == '<' || c == '>' || c == '#')
                .trim();
            let source = NoticeKind::InjectedTag(tag.to_owned());
            self.notice(at, true, source, cut(all.join("\n"), INLINE_NOTICE));
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
        parts.extend((0..images).map(|n| build::image(at.offset, n, None)));
        self.push(at, Role::User, true, false, parts);
    }

    fn add_output(&mut self, at: &At, raw: &Value) {
        let call_id = raw["call_id"].as_str().unwrap_or("");
        let (text, exit_code) = output_text(&raw["output"]);
        let call = self.tools.get(call_id).copied();
        let Some((mi, pi)) = call.filter(|&(mi, _)| self.messages.get(mi).is_some()) else {
            self.notice(at, true, NoticeKind::ToolOutput, cut(text, INLINE_NOTICE));
            return;
        };
        let Some(message) = self.messages.get_mut(mi) else {
            return;
        };
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
                tool.output_blob = Some(BlobKey::Output { offset: at.offset }.key());
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
                self.first_user_event = self.first_user_event.or(Some(at.line));
            }
            "turn_aborted" => {
                let reason = raw["reason"].as_str().unwrap_or("interrupted").to_owned();
                self.notice(at, false, NoticeKind::Interrupt, reason);
                self.step = None;
            }
            "error" | "stream_error" => self.notice(at, false, NoticeKind::Error, text),
            "exec_approval_request" | "apply_patch_approval_request" | "request_user_input" => {
                self.notice(at, false, NoticeKind::Ask, kind.to_owned());
            }
            _ => {}
        }
    }

    fn finish(self) -> Vec<Message> {
        let mut messages = self.messages.into_vec();
        if !self.had_user_items {
            for i in self.user_events {
                if let Some(m) = messages.get_mut(i) {
                    m.counted = true;
                    m.meta = false;
                }
            }
        }
        messages
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
    let missing = |reason: &str| blob::not_found(session, key, reason);
    let (offset, image) = match blob::parse(session, key)? {
        BlobKey::Output { offset } => (offset, None),
        BlobKey::Image { offset, index } => (offset, Some(index)),
        _ => return Err(missing("unknown blob kind")),
    };
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
    let Some(n) = image else {
        return Ok(output_text(&raw["output"]).0.into_bytes());
    };
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

    /// Streaming hands out exactly the messages a whole load builds, however early it has to
    /// let go of them: every rollout of every Codex fixture, holding as few as 2 messages.
    #[test]
    fn streaming_equals_a_whole_load() {
        use crate::Provider;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/codex");
        let mut checked = 0;
        for version in std::fs::read_dir(&root).unwrap().flatten() {
            let provider = crate::codex::CodexProvider::new(vec![version.path().join("dot-codex")]);
            let listed = provider.scan(&Vec::new(), &Default::default()).unwrap();
            for s in &listed.changed {
                let whole = load(s).unwrap();
                for keep in [2, 8] {
                    let mut streamed = Vec::new();
                    let held = Held::with_limits(keep, 1000);
                    let (d, _) = load_each_from(s, None, held, &mut |m| streamed.push(m)).unwrap();
                    assert_eq!(d, whole.diagnostics);
                    assert_eq!(streamed, whole.messages, "{} keep {keep}", s.id);
                }
                checked += 1;
            }
        }
        assert!(checked > 10, "{checked}");
    }
}
