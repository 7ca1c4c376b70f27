//! Builds the unified transcript from the record shapes both agents share, with the counting
//! conventions of docs/formats.md ("Gemini CLI" / "Qwen Code", Reading rules), and the summary a
//! scan lists (title, model, tokens, times). A scan builds the same messages a load does, so
//! the two cannot disagree on counts.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::conversation::{Rec, Replayed};
use super::parts::{pieces, response_failed, response_text, text_of, Piece};
use crate::blob::BlobKey;
use crate::build;
use agent_sessions_model::{
    FileChange, Message, NoticeKind, Part, Role, Tokens, ToolPart, ToolStatus,
};

/// Longest tool output kept inline; the rest is a blob.
pub(crate) const INLINE_OUTPUT: usize = 32 << 10;

/// A transcript and what a scan lists of it.
#[derive(Debug, Default)]
pub(crate) struct Built {
    pub messages: Vec<Message>,
    pub tokens: Option<Tokens>,
    /// The model of the last response that names one.
    pub model: Option<String>,
    pub first_prompt: Option<String>,
    pub first_time: Option<DateTime<Utc>>,
    pub last_time: Option<DateTime<Utc>>,
    /// Absolute paths named by tool calls: the candidates a hashed project folder is matched
    /// against ([`super::dir_of_hash`]).
    pub paths: Vec<String>,
    /// The whole output a [`Builder::for_blob`] looked for, where it was found.
    pub blob: Option<String>,
}

/// The tool result a blob key names: (offset of its record, call id).
type Wanted = Option<(u64, String)>;

pub(crate) fn parse_time(raw: Option<&str>) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(raw?)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Where a message's record is: its line (1-based) and the byte offset of that line.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct At {
    pub line: Option<u64>,
    pub offset: u64,
}

/// What a prompt's text is, by the agents' own rules (Gemini's `isIgnoredUserContent`).
fn prompt_kind(text: &str) -> Option<NoticeKind> {
    let t = text.trim_start();
    for tag in ["session_context", "hook_context"] {
        if t.starts_with(&format!("<{tag}>")) {
            return Some(NoticeKind::InjectedTag(tag.to_owned()));
        }
    }
    (t.starts_with('/') || t.starts_with('?')).then_some(NoticeKind::Command)
}

/// A tool call read from a record, before it becomes a part.
pub(crate) struct Call<'a> {
    pub id: String,
    pub name: &'a str,
    pub args: &'a Value,
    /// The response, where the record holds it (Gemini's `toolCalls[].result`).
    pub result: Option<&'a Value>,
    pub status: Option<&'a str>,
    pub subagent: Option<String>,
    /// What the agent showed of the result (`resultDisplay`): an edit's diff.
    pub display: Option<&'a Value>,
}

/// The transcript being built, message by message.
#[derive(Default)]
pub(crate) struct Builder {
    built: Built,
    tokens: Tokens,
    saw_tokens: bool,
    wanted: Wanted,
}

impl Builder {
    /// A builder that also keeps the whole output behind the blob key `line:<offset>:tool:<call>`
    /// (in [`Built::blob`]): the output a normal build cut to [`INLINE_OUTPUT`].
    pub fn for_blob(offset: u64, call: String) -> Self {
        Builder {
            wanted: Some((offset, call)),
            ..Builder::default()
        }
    }

    fn push(&mut self, m: Message) {
        if let Some(t) = m.timestamp {
            self.built.first_time = Some(self.built.first_time.map_or(t, |f| f.min(t)));
            self.built.last_time = Some(self.built.last_time.map_or(t, |l| l.max(t)));
        }
        self.built.messages.push(m);
    }

    /// A user record: a prompt, a command, injected context, and any tool responses in it.
    pub fn user(&mut self, id: &str, time: Option<DateTime<Utc>>, at: At, content: &Value) {
        let pieces = pieces(content);
        for p in &pieces {
            if let Piece::Response {
                id: call, response, ..
            } = p
            {
                self.result(call.unwrap_or_default(), response, None, at);
            }
        }
        let text = text_of(&pieces);
        let mut m = build::message(id.to_owned(), Role::User, time, at.line);
        match prompt_kind(&text) {
            _ if text.trim().is_empty() => {}
            Some(kind @ NoticeKind::Command) => m.parts.push(build::notice(kind, text)),
            Some(kind) => {
                m.meta = true;
                m.parts.push(build::notice(kind, text));
            }
            None => {
                if self.built.first_prompt.is_none() {
                    self.built.first_prompt = Some(text.clone());
                }
                m.counted = true;
                m.parts.push(Part::Text { text });
            }
        }
        m.parts.extend(others(&pieces));
        if !m.parts.is_empty() {
            self.push(m);
        }
    }

    /// A notification the agent wrote into the conversation for the model (Qwen's
    /// `<task-notification>`): shown as injected, never a prompt.
    pub fn injected(&mut self, id: &str, time: Option<DateTime<Utc>>, at: At, content: &Value) {
        let text = text_of(&pieces(content));
        let mut m = build::message(id.to_owned(), Role::User, time, at.line);
        m.meta = true;
        m.parts.push(build::notice(NoticeKind::Injected, text));
        self.push(m);
    }

    /// A model response: reasoning (`thoughts` where given, else `thought` parts), text, tool
    /// calls (`calls` where given, else `functionCall` parts).
    #[allow(clippy::too_many_arguments)]
    pub fn assistant(
        &mut self,
        id: &str,
        time: Option<DateTime<Utc>>,
        at: At,
        content: &Value,
        thoughts: Vec<String>,
        calls: Vec<Call<'_>>,
        model: Option<&str>,
    ) {
        let pieces = pieces(content);
        let mut m = build::message(id.to_owned(), Role::Assistant, time, at.line);
        m.model = model.map(str::to_owned);
        let thoughts = if thoughts.is_empty() {
            pieces
                .iter()
                .filter_map(|p| match p {
                    Piece::Thought(t) => Some((*t).to_owned()),
                    _ => None,
                })
                .collect()
        } else {
            thoughts
        };
        m.parts
            .extend(thoughts.into_iter().map(|text| Part::Reasoning {
                text,
                encrypted: false,
            }));
        let text = text_of(&pieces);
        if !text.trim().is_empty() {
            m.parts.push(Part::Text { text });
        }
        let calls = if calls.is_empty() {
            pieces.iter().filter_map(call_of_piece).collect()
        } else {
            calls
        };
        for call in calls {
            self.built.paths.extend(paths_in(call.args));
            let mut part = tool_part(&call, at);
            part.changes = call.display.map(changes_of).unwrap_or_default();
            if let Some(result) = call.result {
                let whole = fill(&mut part, result, call.status, at, &self.wanted);
                self.built.blob = self.built.blob.take().or(whole);
            }
            m.parts.push(Part::Tool(part));
        }
        m.parts.extend(others(&pieces));
        m.counted = m.parts.iter().any(|p| {
            matches!(
                p,
                Part::Text { .. } | Part::Reasoning { .. } | Part::Tool(_)
            )
        });
        if m.model.is_some() && m.counted {
            self.built.model.clone_from(&m.model);
        }
        if !m.parts.is_empty() {
            self.push(m);
        }
    }

    /// A tool's response: joins the latest call of that id that has none yet (ids repeat
    /// across turns in Qwen: `call_mock0`). A response whose call already has one is the same
    /// result written again (Gemini 0.61 writes each twice); one with no call is shown alone.
    pub fn result(&mut self, call: &str, response: &Value, status: Option<&str>, at: At) {
        let mut seen = false;
        for tool in calls_named(&mut self.built.messages, call) {
            if tool.status == ToolStatus::Pending {
                let whole = fill(tool, response, status, at, &self.wanted);
                self.built.blob = self.built.blob.take().or(whole);
                return;
            }
            seen = true;
        }
        if !seen {
            let text = response_text(response);
            let mut m = build::message(format!("{call}:result"), Role::User, None, at.line);
            m.meta = true;
            m.parts.push(build::notice(NoticeKind::ToolResult, text));
            self.push(m);
        }
    }

    /// The file changes an edit's `resultDisplay` shows, given to the latest call `call`.
    pub fn changes(&mut self, call: &str, display: &Value) {
        let changes = changes_of(display);
        if changes.is_empty() {
            return;
        }
        if let Some(tool) = calls_named(&mut self.built.messages, call).next() {
            tool.changes = changes;
        }
    }

    /// A notice the agent recorded (`info`, `warning`) or an error.
    pub fn notice(
        &mut self,
        id: &str,
        time: Option<DateTime<Utc>>,
        at: At,
        kind: NoticeKind,
        text: String,
    ) {
        let mut m = build::message(id.to_owned(), Role::System, time, at.line);
        m.parts.push(build::notice(kind, text));
        self.push(m);
    }

    /// Adds one response's token counts.
    pub fn tokens(&mut self, t: Tokens) {
        self.saw_tokens = true;
        self.tokens.add(&t);
    }

    pub fn finish(mut self) -> Built {
        self.built.tokens = self.saw_tokens.then_some(self.tokens);
        self.built
    }
}

/// The tool parts of call `call`, latest first.
fn calls_named<'a>(
    messages: &'a mut [Message],
    call: &'a str,
) -> impl Iterator<Item = &'a mut ToolPart> + 'a {
    messages
        .iter_mut()
        .rev()
        .flat_map(|m| m.parts.iter_mut())
        .filter_map(move |p| match p {
            Part::Tool(t) if t.call_id == call => Some(t),
            _ => None,
        })
}

/// Parts of kinds not known here, named so nothing is silently dropped.
fn others<'a>(pieces: &'a [Piece<'a>]) -> impl Iterator<Item = Part> + 'a {
    pieces.iter().filter_map(|p| match p {
        Piece::Other(kind) => Some(build::notice(
            NoticeKind::Part((*kind).to_owned()),
            String::new(),
        )),
        _ => None,
    })
}

fn call_of_piece<'a>(p: &Piece<'a>) -> Option<Call<'a>> {
    match p {
        Piece::Call { id, name, args } => Some(Call {
            id: id.unwrap_or_default().to_owned(),
            name,
            args,
            result: None,
            status: None,
            subagent: None,
            display: None,
        }),
        _ => None,
    }
}

fn tool_part(call: &Call<'_>, _at: At) -> ToolPart {
    ToolPart {
        call_id: call.id.clone(),
        name: call.name.to_owned(),
        input: call.args.clone(),
        status: ToolStatus::Pending,
        output: None,
        output_truncated: false,
        output_blob: None,
        changes: Vec::new(),
        subagent_id: call.subagent.clone(),
    }
}

/// Gives a tool part its result: `result` is a list of `functionResponse` parts (Gemini's
/// `toolCalls[].result`) or one response object. An output longer than [`INLINE_OUTPUT`] is
/// cut, with a blob key naming it whole (the file the agent spilled it to where the result
/// names one); returns that whole output when it is the one `wanted`.
fn fill(
    tool: &mut ToolPart,
    result: &Value,
    status: Option<&str>,
    at: At,
    wanted: &Wanted,
) -> Option<String> {
    let responses: Vec<&Value> = match result {
        Value::Array(_) => pieces(result)
            .into_iter()
            .filter_map(|p| match p {
                Piece::Response { response, .. } => Some(response),
                _ => None,
            })
            .collect(),
        other => vec![other],
    };
    let text: String = responses.iter().map(|r| response_text(r)).collect();
    let failed = responses.iter().any(|r| response_failed(r));
    tool.status = match status {
        Some("success") => ToolStatus::Ok,
        Some("error" | "cancelled") => ToolStatus::Error,
        Some(_) => ToolStatus::Pending,
        None if failed => ToolStatus::Error,
        None => ToolStatus::Ok,
    };
    let is_wanted = wanted
        .as_ref()
        .is_some_and(|(o, c)| *o == at.offset && *c == tool.call_id);
    let whole = is_wanted.then(|| text.clone());
    tool.output_blob = super::spilled_name(&text).map(|n| BlobKey::SpilledFile(n).key());
    if text.len() > INLINE_OUTPUT {
        tool.output_truncated = true;
        tool.output_blob.get_or_insert_with(|| {
            BlobKey::ToolResult {
                offset: at.offset,
                call: tool.call_id.clone(),
            }
            .key()
        });
        tool.output = Some(crate::cut(text, INLINE_OUTPUT));
    } else {
        // A result the agent cut itself (it names the spilled file) is truncated too.
        tool.output_truncated = tool.output_blob.is_some();
        tool.output = Some(text);
    }
    whole
}

/// The change an edit tool's `resultDisplay` (`{fileDiff, filePath, fileName, isNewFile?}`,
/// the same in both agents) shows: its unified diff, with the lines it adds and removes.
pub(crate) fn changes_of(display: &Value) -> Vec<FileChange> {
    let s = |k: &str| display.get(k).and_then(Value::as_str);
    let (Some(diff), Some(path)) = (s("fileDiff"), s("filePath").or(s("fileName"))) else {
        return Vec::new();
    };
    let count = |sign: char, header: &str| {
        diff.lines()
            .filter(|l| l.starts_with(sign) && !l.starts_with(header))
            .count() as u64
    };
    let new = display.get("isNewFile").and_then(Value::as_bool) == Some(true);
    vec![FileChange {
        path: path.to_owned(),
        change: if new { "add" } else { "update" }.to_owned(),
        diff: Some(diff.to_owned()),
        additions: count('+', "+++"),
        deletions: count('-', "---"),
    }]
}

/// Absolute paths in a tool's arguments (`file_path`, `dir_path`, `absolute_path`, …).
fn paths_in(args: &Value) -> Vec<String> {
    let Some(map) = args.as_object() else {
        return Vec::new();
    };
    map.iter()
        .filter(|(k, _)| k.ends_with("path") || k.as_str() == "directory")
        .filter_map(|(_, v)| v.as_str())
        .filter(|p| p.starts_with('/') || p.get(1..3) == Some(":\\"))
        .map(str::to_owned)
        .collect()
}

/// One response's tokens under the agent's own names for (input, cached, output, thoughts):
/// the input count includes the cached part and thoughts are billed as output, so input =
/// input − cached, cache_read = cached, output = output + thoughts.
pub(crate) fn tokens_named(
    t: &Value,
    [input, cached, output, thoughts]: [&str; 4],
) -> Option<Tokens> {
    let n = |k: &str| t.get(k).and_then(Value::as_u64).unwrap_or(0);
    t.is_object().then(|| Tokens {
        input: n(input).saturating_sub(n(cached)),
        output: n(output) + n(thoughts),
        cache_read: n(cached),
        cache_write: 0,
    })
}

/// The per-response `tokens {input, output, cached, thoughts, tool, total}` of a
/// ConversationRecord message.
const CONVERSATION_TOKENS: [&str; 4] = ["input", "cached", "output", "thoughts"];

/// Builds a `ConversationRecord` (Gemini, Qwen before 0.5): `model_type` is the type of the
/// model's messages (`gemini`, `qwen`).
pub(crate) fn build_conversation(replayed: &Replayed, model_type: &str, mut b: Builder) -> Built {
    for rec in &replayed.messages {
        add_message(&mut b, rec, model_type);
    }
    b.finish()
}

fn add_message(b: &mut Builder, rec: &Rec, model_type: &str) {
    let v = &rec.value;
    let at = At {
        line: rec.line,
        offset: rec.offset,
    };
    let id = v.get("id").and_then(Value::as_str).unwrap_or_default();
    let time = parse_time(v.get("timestamp").and_then(Value::as_str));
    let content = v.get("content").unwrap_or(&Value::Null);
    let text = || text_of(&pieces(content));
    match v.get("type").and_then(Value::as_str).unwrap_or_default() {
        "user" => b.user(id, time, at, content),
        t if t == model_type => {
            let thoughts = v
                .get("thoughts")
                .and_then(Value::as_array)
                .map(|l| l.iter().filter_map(thought_text).collect())
                .unwrap_or_default();
            let calls = v
                .get("toolCalls")
                .and_then(Value::as_array)
                .map(|l| l.iter().filter_map(call_of_record).collect())
                .unwrap_or_default();
            if let Some(t) = v
                .get("tokens")
                .and_then(|t| tokens_named(t, CONVERSATION_TOKENS))
            {
                b.tokens(t);
            }
            let model = v.get("model").and_then(Value::as_str);
            b.assistant(id, time, at, content, thoughts, calls, model);
        }
        "error" => b.notice(id, time, at, NoticeKind::Error, text()),
        kind => b.notice(id, time, at, NoticeKind::System(kind.to_owned()), text()),
    }
}

fn thought_text(t: &Value) -> Option<String> {
    let get = |k| t.get(k).and_then(Value::as_str).unwrap_or_default();
    let text = match (get("subject"), get("description")) {
        ("", d) => d.to_owned(),
        (s, "") => s.to_owned(),
        (s, d) => format!("{s}\n{d}"),
    };
    (!text.is_empty()).then_some(text)
}

fn call_of_record(c: &Value) -> Option<Call<'_>> {
    let s = |k| c.get(k).and_then(Value::as_str);
    Some(Call {
        id: s("id").unwrap_or_default().to_owned(),
        name: s("name").unwrap_or("tool"),
        args: c.get("args").unwrap_or(&Value::Null),
        result: c.get("result").filter(|r| !r.is_null()),
        status: s("status"),
        subagent: s("agentId").map(str::to_owned),
        display: c.get("resultDisplay"),
    })
    .filter(|_| c.is_object())
}
