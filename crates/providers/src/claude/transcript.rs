//! Loads a full Claude Code transcript into the unified model, and its lazy blobs.
//!
//! Records are classified with the same rules as the scan (`records.rs`), so the messages marked
//! `counted` here are exactly the ones the session list counts.

use std::collections::HashMap;
use std::path::Path;

use base64::Engine;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

use super::records::{classify_user, Record, UserKind, SYNTHETIC_MODEL};
use super::side_dir;
use crate::blob::{self, BlobKey};
use crate::build::{self, LineBuilder};
use crate::cut;
use crate::error::Error;
use crate::held::Held;
use crate::jsonl::{parse_line, LineReader};
use crate::tail::{LineStart, Links, Resume, Streamed};
use agent_sessions_model::{
    FileChange, Message, NoticeKind, Part, ProviderKind, Role, SessionMeta, ToolPart, ToolStatus,
    Transcript,
};

/// Tool output longer than this is cut to a preview; the rest is a blob.
pub const INLINE_OUTPUT: usize = 32 << 10;
/// Injected text (attachments, reminders) longer than this is cut.
const INLINE_NOTICE: usize = 4 << 10;

pub fn load(session: &SessionMeta) -> Result<Transcript, Error> {
    load_from(session, LineStart::default())
}

/// Hands each message of the transcript to `each` as soon as nothing later can change it, so a
/// transcript of any size streams with bounded memory (see [`Held`], which tests make small).
/// From `resume` (see [`crate::Provider::load_each_from`]): a Claude builder carries nothing
/// over, since what a record refers to before the resume point is a parent (threading only) or
/// a message handed out already, which reads as unknown either way.
pub fn load_each_from(
    session: &SessionMeta,
    resume: Option<&Resume>,
    held: Held,
    each: &mut dyn FnMut(Message),
) -> Streamed {
    load_each_linked(session, resume, held, &mut Links::default(), each)
}

/// [`load_each_from`] carrying `links` from the read before (see
/// [`crate::Provider::load_each_linked`]): the builder starts with the records it saw before
/// the resume point and their messages, so a parent there is found, and leaves every record it
/// saw in `links` for the next read.
pub fn load_each_linked(
    session: &SessionMeta,
    resume: Option<&Resume>,
    held: Held,
    links: &mut Links,
    each: &mut dyn FnMut(Message),
) -> Streamed {
    let start = build::Start::of(session, resume)?;
    let mut builder = Builder::new(session.parent_id.is_some());
    builder.messages = held;
    if let Some(resume) = resume {
        // Records from the point on are read again, in order, as a whole read meets them.
        builder.owner = std::mem::take(&mut links.owners);
        builder
            .owner
            .retain(|_, (_, line)| *line <= resume.from.line);
    }
    let read = build::stream(ProviderKind::Claude, session, &mut builder, start, each);
    links.owners = builder.owner;
    read
}

/// The transcript from `from` (a line start) to the end. Records whose parent lies before
/// `from` have no `parent_id`; everything else is as [`load`] reads it.
pub fn load_from(session: &SessionMeta, from: LineStart) -> Result<Transcript, Error> {
    let builder = Builder::new(session.parent_id.is_some());
    build::read_from(ProviderKind::Claude, session, builder, from)
}

struct Builder {
    is_agent: bool,
    messages: Held,
    /// Assistant message id → index, to merge split records.
    by_message_id: HashMap<String, usize>,
    /// Tool call id → (message index, part index), to merge results into calls.
    tools: HashMap<String, (usize, usize)>,
    /// Record uuid → the id of the message it went into and the record's line, to thread by
    /// `parentUuid`.
    owner: HashMap<String, (String, u64)>,
    /// The message the current record went into.
    touched: Option<usize>,
    /// Messages below this index were handed out and the maps above forgot them.
    forgot_below: usize,
}

impl LineBuilder for Builder {
    fn add(&mut self, value: &Value, offset: u64, line: u64) {
        self.add_record(value, offset, line);
    }

    fn release(&mut self, each: &mut dyn FnMut(Message)) {
        let kept_from = self.messages.release(each);
        self.forget_below(kept_from);
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
    fn new(is_agent: bool) -> Self {
        Builder {
            is_agent,
            messages: Held::default(),
            by_message_id: HashMap::new(),
            tools: HashMap::new(),
            owner: HashMap::new(),
            touched: None,
            forgot_below: 0,
        }
    }

    /// Forgets the calls and answers of messages handed out already (in batches: the maps stay
    /// about as small as what is held). Record uuids are kept: a parent may be anywhere.
    fn forget_below(&mut self, first_held: usize) {
        if first_held < self.forgot_below + 64 {
            return;
        }
        self.tools.retain(|_, (mi, _)| *mi >= first_held);
        self.by_message_id.retain(|_, i| *i >= first_held);
        self.forgot_below = first_held;
    }

    fn add_record(&mut self, value: &Value, offset: u64, line: u64) {
        let Ok(rec) = Record::deserialize(value) else {
            return;
        };
        let at = RecordAt {
            value,
            offset,
            line,
            timestamp: rec
                .timestamp
                .as_deref()
                .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                .map(|t| t.with_timezone(&Utc)),
            sidechain: rec.sidechain() && !self.is_agent,
            uuid: rec.uuid.as_deref().map(str::to_owned),
            parent: rec
                .parent_uuid
                .as_deref()
                .or(rec.logical_parent_uuid.as_deref())
                .and_then(|p| self.owner.get(p).map(|(id, _)| id.clone())),
        };
        self.touched = None;
        match rec.kind() {
            "user" => {
                let kind = classify_user(&rec.user_facts());
                self.add_user(
                    &at,
                    kind,
                    rec.origin.as_ref().and_then(|o| o.kind.as_deref()),
                );
            }
            "assistant" => self.add_assistant(&at),
            "system" => self.add_system(&at, rec.subtype.as_deref().unwrap_or("")),
            "attachment" => self.add_attachment(&at),
            _ => {}
        }
        if let (Some(uuid), Some(i)) = (at.uuid, self.touched) {
            if let Some(m) = self.messages.get(i) {
                self.owner.insert(uuid, (m.id.clone(), line));
            }
        }
    }

    fn push(&mut self, at: &RecordAt, role: Role, counted: bool, meta: bool, parts: Vec<Part>) {
        let id = at
            .uuid
            .clone()
            .unwrap_or_else(|| format!("line-{}", at.line));
        self.messages.push(Message {
            parent_id: at.parent.clone(),
            counted,
            meta,
            sidechain: at.sidechain,
            parts,
            ..build::message(id, role, at.timestamp, Some(at.line))
        });
        self.touched = Some(self.messages.len() - 1);
    }

    fn notice(&mut self, at: &RecordAt, meta: bool, source: NoticeKind, text: String) {
        let part = build::notice(source, text);
        self.push(at, Role::System, false, meta, vec![part]);
    }

    fn add_user(&mut self, at: &RecordAt, kind: UserKind, origin: Option<&str>) {
        let content = &at.value["message"]["content"];
        match kind {
            UserKind::Prompt => {
                let parts = prompt_parts(content, at.offset);
                self.push(at, Role::User, !at.sidechain, false, parts);
            }
            UserKind::ToolResult => self.add_tool_results(at, content),
            UserKind::Command => self.notice(
                at,
                true,
                NoticeKind::Command,
                command_text(&first_text(content)),
            ),
            UserKind::Interrupt => {
                self.notice(at, false, NoticeKind::Interrupt, first_text(content))
            }
            UserKind::CompactSummary => self.add_compact_summary(at, first_text(content)),
            UserKind::Injected => {
                let source = origin.filter(|o| *o != "human").map(NoticeKind::parse);
                let source = source.unwrap_or(NoticeKind::Injected);
                self.notice(at, true, source, cut(first_text(content), INLINE_NOTICE));
            }
        }
    }

    fn add_assistant(&mut self, at: &RecordAt) {
        let msg = &at.value["message"];
        // A record without a message object is no reply: the scan counts none, so none is shown
        // (found by the robustness property test: listed 0 answers, loaded 1).
        if !msg.is_object() {
            return;
        }
        let model = msg["model"].as_str();
        let synthetic = model == Some(SYNTHETIC_MODEL);
        let msg_id = msg["id"].as_str();
        let known = msg_id.and_then(|id| self.by_message_id.get(id).copied());
        let index = match known.filter(|&i| self.messages.get(i).is_some()) {
            Some(i) => i,
            None => {
                let id = msg_id
                    .map(str::to_owned)
                    .or_else(|| at.uuid.clone())
                    .unwrap_or_else(|| format!("line-{}", at.line));
                self.messages.push(Message {
                    parent_id: at.parent.clone(),
                    model: model.map(str::to_owned),
                    counted: !synthetic && !at.sidechain,
                    sidechain: at.sidechain,
                    ..build::message(id.clone(), Role::Assistant, at.timestamp, None)
                });
                let i = self.messages.len() - 1;
                if msg_id.is_some() {
                    self.by_message_id.insert(id, i);
                }
                i
            }
        };
        let Some(message) = self.messages.get_mut(index) else {
            return;
        };
        message.source_lines.push(at.line);
        self.touched = Some(index);
        let blocks: Vec<&Value> = match &msg["content"] {
            Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        for block in blocks {
            let Some(part) = assistant_part(block) else {
                continue;
            };
            if let Part::Tool(tool) = &part {
                let at_part = (index, message.parts.len());
                self.tools.insert(tool.call_id.clone(), at_part);
            }
            message.parts.push(part);
        }
    }

    fn add_tool_results(&mut self, at: &RecordAt, content: &Value) {
        let Value::Array(blocks) = content else {
            return;
        };
        let details = &at.value["toolUseResult"];
        for block in blocks.iter().filter(|b| b["type"] == "tool_result") {
            let call_id = block["tool_use_id"].as_str().unwrap_or("");
            let (text, images) = result_text(&block["content"]);
            let is_error = block["is_error"].as_bool().unwrap_or(false);
            let call = self.tools.get(call_id).copied();
            let Some((mi, pi)) = call.filter(|&(mi, _)| self.messages.get(mi).is_some()) else {
                // A result whose call is not in this file (e.g. before a compaction copy).
                self.notice(at, true, NoticeKind::ToolResult, cut(text, INLINE_NOTICE));
                continue;
            };
            let image_parts: Vec<Part> = (0..images)
                .map(|n| build::image(at.offset, n, None))
                .collect();
            self.touched = Some(mi);
            let Some(message) = self.messages.get_mut(mi) else {
                continue;
            };
            message.source_lines.push(at.line);
            if let Some(Part::Tool(tool)) = message.parts.get_mut(pi) {
                tool.status = if is_error {
                    ToolStatus::Error
                } else {
                    ToolStatus::Ok
                };
                set_output(tool, text, at.offset);
                tool.changes = file_changes(details);
                if let Some(agent) = details["agentId"].as_str() {
                    tool.subagent_id = Some(format!("agent-{agent}"));
                }
            }
            // Images go right after their call, shifting later tool indexes of this message.
            let insert_at = pi + 1;
            let n = image_parts.len();
            message.parts.splice(insert_at..insert_at, image_parts);
            if n > 0 {
                for pos in self.tools.values_mut() {
                    if pos.0 == mi && pos.1 >= insert_at {
                        pos.1 += n;
                    }
                }
            }
        }
    }

    fn add_compact_summary(&mut self, at: &RecordAt, text: String) {
        if let Some(last) = self.messages.last_mut() {
            if let Some(Part::Compaction {
                summary: s @ None, ..
            }) = last.parts.last_mut()
            {
                *s = Some(text);
                last.source_lines.push(at.line);
                self.touched = Some(self.messages.len() - 1);
                return;
            }
        }
        let part = Part::Compaction {
            trigger: None,
            pre_tokens: None,
            summary: Some(text),
        };
        self.push(at, Role::System, false, false, vec![part]);
    }

    fn add_system(&mut self, at: &RecordAt, subtype: &str) {
        let content = at.value["content"].as_str().unwrap_or("").to_owned();
        match subtype {
            "compact_boundary" => {
                let meta = &at.value["compactMetadata"];
                let part = Part::Compaction {
                    trigger: meta["trigger"].as_str().map(str::to_owned),
                    pre_tokens: meta["preTokens"].as_u64(),
                    summary: None,
                };
                self.push(at, Role::System, false, false, vec![part]);
            }
            "local_command" => self.notice(at, true, NoticeKind::Command, command_text(&content)),
            other => self.notice(
                at,
                true,
                NoticeKind::System(other.to_owned()),
                cut(content, INLINE_NOTICE),
            ),
        }
    }

    fn add_attachment(&mut self, at: &RecordAt) {
        let kind = at.value["attachment"]["type"].as_str().unwrap_or("unknown");
        let text = match &at.value["rendered"] {
            Value::Array(items) => items
                .iter()
                .filter_map(|i| i["content"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        self.notice(
            at,
            true,
            NoticeKind::Attachment(kind.to_owned()),
            cut(text, INLINE_NOTICE),
        );
    }
}

struct RecordAt<'a> {
    value: &'a Value,
    offset: u64,
    line: u64,
    timestamp: Option<DateTime<Utc>>,
    sidechain: bool,
    uuid: Option<String>,
    /// The message holding this record's `parentUuid` (or `logicalParentUuid`).
    parent: Option<String>,
}

fn prompt_parts(content: &Value, offset: u64) -> Vec<Part> {
    match content {
        Value::String(s) => vec![Part::Text { text: s.clone() }],
        Value::Array(blocks) => {
            let mut images = 0;
            let mut parts = Vec::new();
            for b in blocks {
                match b["type"].as_str() {
                    Some("text") => parts.push(Part::Text {
                        text: b["text"].as_str().unwrap_or("").to_owned(),
                    }),
                    Some("image") => {
                        let mime = b["source"]["media_type"].as_str().map(str::to_owned);
                        parts.push(build::image(offset, images, mime));
                        images += 1;
                    }
                    _ => {}
                }
            }
            parts
        }
        _ => Vec::new(),
    }
}

fn assistant_part(block: &Value) -> Option<Part> {
    if let Value::String(s) = block {
        return Some(Part::Text { text: s.clone() });
    }
    let kind = block["type"].as_str()?;
    Some(match kind {
        "text" => Part::Text {
            text: block["text"].as_str().unwrap_or("").to_owned(),
        },
        "thinking" => {
            let text = block["thinking"].as_str().unwrap_or("").to_owned();
            Part::Reasoning {
                encrypted: text.is_empty() && block["signature"].is_string(),
                text,
            }
        }
        "redacted_thinking" => Part::Reasoning {
            text: String::new(),
            encrypted: true,
        },
        "tool_use" | "server_tool_use" => Part::Tool(ToolPart {
            call_id: block["id"].as_str().unwrap_or("").to_owned(),
            name: block["name"].as_str().unwrap_or("").to_owned(),
            input: block["input"].clone(),
            status: ToolStatus::Pending,
            output: None,
            output_truncated: false,
            output_blob: None,
            changes: Vec::new(),
            subagent_id: None,
        }),
        other => build::notice(NoticeKind::Block(other.to_owned()), String::new()),
    })
}

/// The text of a tool result (string or text blocks) and how many images it holds.
fn result_text(content: &Value) -> (String, usize) {
    match content {
        Value::String(s) => (s.clone(), 0),
        Value::Array(items) => {
            let mut texts = Vec::new();
            let mut images = 0;
            for item in items {
                match item["type"].as_str() {
                    Some("text") => texts.push(item["text"].as_str().unwrap_or("")),
                    Some("image") => images += 1,
                    _ => {}
                }
            }
            (texts.join("\n"), images)
        }
        _ => (String::new(), 0),
    }
}

fn set_output(tool: &mut ToolPart, text: String, offset: u64) {
    if let Some(name) = persisted_output_name(&text) {
        tool.output_blob = Some(BlobKey::SpilledFile(name.to_owned()).key());
        tool.output_truncated = true;
        tool.output = Some(text);
        return;
    }
    if text.len() > INLINE_OUTPUT {
        let call = tool.call_id.clone();
        tool.output_blob = Some(BlobKey::ToolResult { offset, call }.key());
        tool.output_truncated = true;
        tool.output = Some(cut(text, INLINE_OUTPUT));
    } else {
        tool.output = Some(text);
    }
}

/// `<persisted-output>… Full output saved to: /…/tool-results/<name>` → `<name>`.
fn persisted_output_name(text: &str) -> Option<&str> {
    if !text.starts_with("<persisted-output>") {
        return None;
    }
    let after = text.split("Full output saved to: ").nth(1)?;
    let path = after.lines().next()?.trim();
    let name = path.rsplit('/').next()?;
    path.contains("/tool-results/").then_some(name)
}

/// Edit/Write/MultiEdit results carry the change as `structuredPatch` or the created content.
fn file_changes(details: &Value) -> Vec<FileChange> {
    let Some(path) = details["filePath"].as_str() else {
        return Vec::new();
    };
    let hunks = details["structuredPatch"].as_array();
    if let Some(hunks) = hunks.filter(|h| !h.is_empty()) {
        let mut diff = String::new();
        let (mut additions, mut deletions) = (0, 0);
        for h in hunks {
            diff.push_str(&format!(
                "@@ -{},{} +{},{} @@\n",
                h["oldStart"], h["oldLines"], h["newStart"], h["newLines"]
            ));
            for l in h["lines"].as_array().into_iter().flatten() {
                let l = l.as_str().unwrap_or("");
                additions += u64::from(l.starts_with('+'));
                deletions += u64::from(l.starts_with('-'));
                diff.push_str(l);
                diff.push('\n');
            }
        }
        return vec![FileChange {
            path: path.to_owned(),
            change: "update".into(),
            diff: Some(diff),
            additions,
            deletions,
        }];
    }
    if details["type"] == "create" {
        let content = details["content"].as_str().unwrap_or("");
        let lines: Vec<&str> = content.lines().collect();
        let mut diff = format!("@@ -0,0 +1,{} @@\n", lines.len());
        for l in &lines {
            diff.push('+');
            diff.push_str(l);
            diff.push('\n');
        }
        return vec![FileChange {
            path: path.to_owned(),
            change: "add".into(),
            diff: Some(diff),
            additions: lines.len() as u64,
            deletions: 0,
        }];
    }
    Vec::new()
}

fn first_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .find_map(|b| b["text"].as_str())
            .unwrap_or("")
            .to_owned(),
        _ => String::new(),
    }
}

/// `<command-name>/x</command-name>…<command-args>a</command-args>` → `/x a`;
/// `<local-command-stdout>out</local-command-stdout>` → `out`.
fn command_text(text: &str) -> String {
    if let Some(name) = tag(text, "command-name") {
        let args = tag(text, "command-args").unwrap_or("");
        return format!("{name} {args}").trim_end().to_owned();
    }
    for t in [
        "local-command-stdout",
        "local-command-stderr",
        "bash-input",
        "bash-stdout",
    ] {
        if let Some(inner) = tag(text, t) {
            return inner.to_owned();
        }
    }
    text.to_owned()
}

fn tag<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let (_, rest) = text.split_once(&open)?;
    let (inside, _) = rest.split_once(&close)?;
    Some(inside.trim())
}

/// The bytes behind a blob key of a Claude transcript.
pub fn blob(session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error> {
    let missing = |reason: &str| blob::not_found(session, key, reason);
    let (offset, which) = match blob::parse(session, key)? {
        BlobKey::SpilledFile(name) => {
            return read_spilled(session, &name, u64::MAX).map(|(bytes, _)| bytes);
        }
        BlobKey::ToolResult { offset, call } => (offset, Ok(call)),
        BlobKey::Image { offset, index } => (offset, Err(index)),
        _ => return Err(missing("unknown blob kind")),
    };
    let record = record_at(&session.source_path, offset)?.ok_or_else(|| missing("no record"))?;
    let content = &record["message"]["content"];
    match which {
        Ok(call) => {
            let block = content
                .as_array()
                .and_then(|b| b.iter().find(|b| b["tool_use_id"] == call.as_str()))
                .ok_or_else(|| missing("no such tool result"))?;
            Ok(result_text(&block["content"]).0.into_bytes())
        }
        Err(n) => {
            let mut images = Vec::new();
            collect_images(content, &mut images);
            let data = images.get(n).ok_or_else(|| missing("no such image"))?;
            base64::engine::general_purpose::STANDARD
                .decode(data)
                .map_err(|_| missing("image data is not base64"))
        }
    }
}

/// [`blob`] cut at `max` bytes, and its whole size: a spilled file is read only up to `max`.
pub fn blob_head(session: &SessionMeta, key: &str, max: usize) -> Result<(Vec<u8>, u64), Error> {
    if let BlobKey::SpilledFile(name) = blob::parse(session, key)? {
        return read_spilled(session, &name, max as u64);
    }
    let mut bytes = blob(session, key)?;
    let size = bytes.len() as u64;
    bytes.truncate(max);
    Ok((bytes, size))
}

/// At most `max` bytes of the spilled tool result `name` (a file beside the transcript, never a
/// link or a device), and the file's size.
fn read_spilled(session: &SessionMeta, name: &str, max: u64) -> Result<(Vec<u8>, u64), Error> {
    use std::io::Read;
    let path = side_dir(&session.source_path)
        .join("tool-results")
        .join(name);
    let read = |path: &Path| -> std::io::Result<(Vec<u8>, u64)> {
        let file = crate::files::open_regular(path)?;
        let size = file.metadata()?.len();
        let mut bytes = Vec::with_capacity(size.min(max).min(64 << 20) as usize);
        file.take(max).read_to_end(&mut bytes)?;
        Ok((bytes, size))
    };
    read(&path).map_err(|e| Error::io(path, e))
}

fn collect_images<'a>(content: &'a Value, out: &mut Vec<&'a str>) {
    let Value::Array(items) = content else {
        return;
    };
    for item in items {
        match item["type"].as_str() {
            Some("image") => {
                if let Some(data) = item["source"]["data"].as_str() {
                    out.push(data);
                }
            }
            Some("tool_result") => collect_images(&item["content"], out),
            _ => {}
        }
    }
}

fn record_at(path: &Path, offset: u64) -> Result<Option<Value>, Error> {
    let mut reader = LineReader::open_at(path, offset, 0).map_err(|e| Error::io(path, e))?;
    let Some(line) = reader.next_line().map_err(|e| Error::io(path, e))? else {
        return Ok(None);
    };
    Ok(parse_line(line.bytes).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_wrappers_read_as_commands() {
        let t = "<command-name>/rename</command-name>\n <command-message>rename</command-message>\n <command-args>my name</command-args>";
        assert_eq!(command_text(t), "/rename my name");
        assert_eq!(
            command_text("<local-command-stdout>Done</local-command-stdout>"),
            "Done"
        );
    }

    #[test]
    fn finds_persisted_output_names() {
        let t = "<persisted-output>\nOutput too large (340.7KB). Full output saved to: /h/.claude/projects/p/s/tool-results/x1.txt\n\nPreview";
        assert_eq!(persisted_output_name(t), Some("x1.txt"));
        assert_eq!(persisted_output_name("plain"), None);
    }

    /// Streaming hands out exactly the messages a whole load builds, however early it has to
    /// let go of them: every session of every Claude fixture, holding as few as 2 messages.
    #[test]
    fn streaming_equals_a_whole_load() {
        use crate::Provider;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/claude");
        let mut checked = 0;
        for version in std::fs::read_dir(&root).unwrap().flatten() {
            let provider =
                crate::claude::ClaudeProvider::new(vec![version.path().join("dot-claude")]);
            let sessions = provider
                .scan(&Vec::new(), &Default::default())
                .unwrap()
                .changed;
            for s in &sessions {
                let whole = load(s).unwrap();
                for (keep, at_most) in [(2, 4), (2, 1000), (8, 8)] {
                    let mut streamed = Vec::new();
                    let held = Held::with_limits(keep, at_most);
                    let (d, _) = load_each_from(s, None, held, &mut |m| streamed.push(m)).unwrap();
                    assert_eq!(d, whole.diagnostics);
                    // Only a call released before its result arrives reads differently (its
                    // result becomes a notice): with room for pending calls, all is equal.
                    if at_most >= 1000 {
                        assert_eq!(streamed, whole.messages, "{}", s.id);
                    } else {
                        assert!(streamed.len() >= whole.messages.len(), "{}", s.id);
                    }
                }
                checked += 1;
            }
        }
        assert!(checked > 20, "{checked}");
    }
}
