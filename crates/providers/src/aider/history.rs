//! The text of an Aider chat history (`.aider.chat.history.md`), run by run.
//!
//! Aider appends to one Markdown file per repository: `# aider chat started at <local time>`
//! opens each run (every start of `aider`), `#### ` lines are what the user typed (one line
//! each, slash commands included), `> ` lines are Aider's own output (warnings, `Model: …`,
//! `Tokens: …`, `Applied edit to …`, errors), and the reply follows a prompt, with reasoning
//! in `<thinking-content-<hex>>` blocks. Counting follows `tests/record/expected.py`: a block
//! of typed lines is one prompt unless it is a slash command; each reply (the non-blank text
//! between a prompt and the next `> `, `#### ` or header line) is one assistant message.

use std::path::Path;

use agent_sessions_model::{Counts, Message, NoticeKind, Part, Role, Tokens};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::jsonl::LineReader;

/// The line that opens a run.
pub const HEADER: &str = "# aider chat started at ";

/// The longest line read; a longer one (no real history has one) is skipped and counted.
pub const MAX_LINE: usize = 4 << 20;

/// One run of a history file, as a scan keeps it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The header line as written (`# aider chat started at 2026-12-06 14:22:50`).
    pub header: String,
    /// How many earlier runs of the file have the same header line (two starts in one second).
    pub repeat: u32,
    /// Byte offset of the header line, and of the end of the run: the next run's header, or
    /// the end of the file's last whole line.
    pub start: u64,
    pub end: u64,
    /// 1-based line number of the header.
    pub line: u64,
    pub summary: Summary,
}

/// What a scan lists of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub counts: Counts,
    pub model: Option<String>,
    pub tokens: Option<Tokens>,
    pub cost: Option<f64>,
    /// The first prompt, else the first slash command.
    pub title: Option<String>,
    /// `Aider v0.86.2` → `0.86.2`.
    pub version: Option<String>,
    /// Lines that were not UTF-8 or too long: (line number, what was wrong).
    pub problems: Vec<(u64, String)>,
    /// The last time a line was typed in the run, from `.aider.input.history` beside it.
    pub last_typed: Option<chrono::NaiveDateTime>,
}

/// The times `.aider.input.history` records (`# 2026-12-06 14:22:56.379128` before each typed
/// line), in file order; none when it is missing or unreadable (the runs then end at their
/// start).
pub fn typed_times(path: &Path) -> Vec<chrono::NaiveDateTime> {
    let Ok(reader) = LineReader::open_at(path, 0, 0) else {
        return Vec::new();
    };
    let mut reader = reader.with_max_line(4096);
    let mut out = Vec::new();
    while let Ok(Some(l)) = reader.next_line() {
        let Some(rest) = l.bytes.strip_prefix(b"# ") else {
            continue;
        };
        let Ok(text) = std::str::from_utf8(rest) else {
            continue;
        };
        if let Ok(t) = chrono::NaiveDateTime::parse_from_str(text.trim(), "%Y-%m-%d %H:%M:%S%.f") {
            out.push(t);
        }
    }
    out
}

/// Gives each run the last typed time between its start and the next run's.
pub fn set_last_typed(runs: &mut [Run], typed: &[chrono::NaiveDateTime]) {
    let starts: Vec<Option<chrono::NaiveDateTime>> = runs.iter().map(Run::started).collect();
    for (i, run) in runs.iter_mut().enumerate() {
        let Some(start) = starts[i] else {
            continue;
        };
        let next = starts.get(i + 1).copied().flatten();
        run.summary.last_typed = typed
            .iter()
            .filter(|t| **t >= start && next.is_none_or(|n| **t < n))
            .max()
            .copied();
    }
}

impl Run {
    /// The run's id: `aider-` and the first 16 hex digits of
    /// sha256("<folder>/<file name>\0<header line>\0<repeat>"), the folder being the one that
    /// holds the file. A run that is appended to keeps it (its header and the runs before it do
    /// not change), two runs of one file never share it, and moving or copying the repository
    /// (or this checkout of the fixtures) does not change it. `tests/record/expected.py`
    /// computes the same ids independently.
    pub fn id(&self, file: &Path) -> String {
        let name = |p: Option<&std::ffi::OsStr>| {
            p.map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let folder = name(file.parent().and_then(Path::file_name));
        let key = format!(
            "{folder}/{}\0{}\0{}",
            name(file.file_name()),
            self.header,
            self.repeat
        );
        let digest = Sha256::digest(key.as_bytes());
        let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("aider-{hex}")
    }

    /// The local time in the header (`2026-12-06 14:22:50`).
    pub fn started(&self) -> Option<chrono::NaiveDateTime> {
        let text = self.header.strip_prefix(HEADER)?.trim();
        chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S").ok()
    }
}

/// Every run of the file from byte `from` (a header line's start, line `line`), the header
/// lines of the runs before it in `earlier` (for their repeat counts). With `only` (a load),
/// the messages of the run of that id are kept too, and the read stops after it.
pub fn read(
    path: &Path,
    from: u64,
    line: u64,
    earlier: &[&str],
    only: Option<&str>,
) -> std::io::Result<Vec<(Run, Vec<Message>)>> {
    let mut reader =
        LineReader::open_at(path, from, line.saturating_sub(1))?.with_max_line(MAX_LINE);
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    for h in earlier {
        *seen.entry((*h).to_owned()).or_default() += 1;
    }
    let mut out: Vec<(Run, Vec<Message>)> = Vec::new();
    let mut current: Option<(Run, Builder)> = None;
    let mut last_number = line.saturating_sub(1);
    while let Some(l) = reader.next_line()? {
        // The reader skips blank lines; a reply keeps (at most two of) them between its lines.
        let blank = l.number.saturating_sub(last_number + 1).min(2);
        last_number = l.number;
        let text = match std::str::from_utf8(l.bytes) {
            Ok(t) => std::borrow::Cow::Borrowed(t),
            Err(_) => std::borrow::Cow::Owned(String::from_utf8_lossy(l.bytes).into_owned()),
        };
        if text.starts_with(HEADER) {
            if let Some((mut run, b)) = current.take() {
                // A run ends where the next begins (its blank lines are its own).
                run.end = l.offset;
                out.push(b.finish(run));
                // A load wants one run: the next header ends it.
                if only.is_some_and(|id| run_id_is(&out, path, id)) {
                    return Ok(out);
                }
            }
            let header = text.trim_end().to_owned();
            let repeat = seen.entry(header.clone()).or_default();
            let run = Run {
                header,
                repeat: *repeat,
                start: l.offset,
                end: l.offset,
                line: l.number,
                summary: Summary::default(),
            };
            *repeat += 1;
            let keep = only.is_some_and(|id| run.id(path) == id);
            current = Some((run, Builder::new(keep)));
            continue;
        }
        let Some((run, b)) = current.as_mut() else {
            continue;
        };
        for n in (l.number - blank)..l.number {
            b.line(n, "", &mut run.summary);
        }
        if l.too_long {
            let why = format!("line longer than {} MB, skipped", MAX_LINE >> 20);
            run.summary.problems.push((l.number, why));
            continue;
        }
        if matches!(text, std::borrow::Cow::Owned(_)) {
            let why = "not UTF-8: shown with replacement characters".to_owned();
            run.summary.problems.push((l.number, why));
        }
        b.line(l.number, &text, &mut run.summary);
    }
    if let Some((mut run, b)) = current.take() {
        // To the end of what was read: a last line being written is left for the next read.
        run.end = reader.offset();
        out.push(b.finish(run));
    }
    Ok(out)
}

/// Whether the last run read is the one of `id`.
fn run_id_is(out: &[(Run, Vec<Message>)], path: &Path, id: &str) -> bool {
    out.last().is_some_and(|(run, _)| run.id(path) == id)
}

/// Where the walk of a run is: which kind of text the next plain line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// After Aider's output or a command: plain text is Aider's too.
    Idle,
    /// In a prompt, or after it before any reply text.
    Prompt,
    Reply,
}

/// Builds one run's summary and, when kept, its messages, a line at a time.
struct Builder {
    keep: bool,
    state: State,
    messages: Vec<Message>,
    /// The message being built: its first line and lines.
    open: Option<(Kind, u64, Vec<String>)>,
    /// The model Aider named last (messages carry it).
    model: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Prompt,
    Reply,
    Output,
}

impl Builder {
    fn new(keep: bool) -> Self {
        Builder {
            keep,
            state: State::Idle,
            messages: Vec::new(),
            open: None,
            model: None,
        }
    }

    fn line(&mut self, number: u64, line: &str, summary: &mut Summary) {
        if let Some(typed) = line.strip_prefix("####") {
            let typed = typed.strip_prefix(' ').unwrap_or(typed).trim_end();
            if typed.trim_start().starts_with('/') {
                self.close();
                summary.title.get_or_insert_with(|| typed.trim().to_owned());
                self.push(number, Role::System, notice(NoticeKind::Command, typed));
                self.state = State::Idle;
                return;
            }
            if self.state != State::Prompt {
                self.close();
                summary.counts.user += 1;
                if summary.counts.user == 1 {
                    summary.title = Some(typed.trim().to_owned());
                }
                self.state = State::Prompt;
            }
            self.add(Kind::Prompt, number, typed);
        } else if let Some(said) = line.strip_prefix("> ").or((line == ">").then_some("")) {
            let said = said.trim_end();
            self.output(number, said, summary);
            self.state = State::Idle;
        } else if self.state == State::Prompt {
            if !line.trim().is_empty() {
                self.close();
                summary.counts.assistant += 1;
                self.state = State::Reply;
                self.add(Kind::Reply, number, line);
            }
        } else if self.state == State::Reply {
            self.add(Kind::Reply, number, line);
        } else if self.open.is_some() || !line.trim().is_empty() {
            self.add(Kind::Output, number, line.trim_end());
        }
    }

    /// One `> ` line: an error is a message of its own; the model, version and tokens are read.
    fn output(&mut self, number: u64, said: &str, summary: &mut Summary) {
        if is_error(said) {
            self.close();
            self.push(number, Role::System, notice(NoticeKind::Error, said));
            return;
        }
        if let Some(model) = model_named(said) {
            summary.model.get_or_insert_with(|| model.clone());
            self.model = Some(model);
        }
        if let Some(v) = said.strip_prefix("Aider v") {
            summary.version.get_or_insert_with(|| v.trim().to_owned());
        }
        if let Some((tokens, cost)) = tokens_said(said) {
            summary
                .tokens
                .get_or_insert_with(Tokens::default)
                .add(&tokens);
            if let Some(cost) = cost {
                summary.cost = Some(cost);
            }
        }
        if self.open.as_ref().is_some_and(|(k, ..)| *k != Kind::Output) {
            self.close();
        }
        self.add(Kind::Output, number, said);
    }

    fn add(&mut self, kind: Kind, number: u64, text: &str) {
        if !self.keep {
            return;
        }
        match &mut self.open {
            Some((k, _, lines)) if *k == kind => lines.push(text.to_owned()),
            _ => {
                self.close();
                self.open = Some((kind, number, vec![text.to_owned()]));
            }
        }
    }

    /// Ends the message being built.
    fn close(&mut self) {
        let Some((kind, first, lines)) = self.open.take() else {
            return;
        };
        let text = lines.join("\n");
        let text = text.trim_matches('\n').trim_end();
        match kind {
            Kind::Prompt => {
                self.push(first, Role::User, vec![Part::Text { text: text.into() }]);
                if let Some(m) = self.messages.last_mut() {
                    m.counted = true;
                }
            }
            Kind::Reply => {
                self.push(first, Role::Assistant, reply_parts(text));
                let model = self.model.clone();
                if let Some(m) = self.messages.last_mut() {
                    m.counted = true;
                    m.model = model;
                }
            }
            Kind::Output => {
                let said = notice(NoticeKind::Agent("aider".into()), text);
                self.push(first, Role::System, said);
            }
        }
    }

    fn push(&mut self, line: u64, role: Role, parts: Vec<Part>) {
        if !self.keep {
            return;
        }
        self.messages.push(Message {
            id: format!("line-{line}"),
            role,
            parent_id: None,
            timestamp: None,
            model: None,
            counted: false,
            meta: false,
            sidechain: false,
            parts,
            source_lines: vec![line],
        });
    }

    fn finish(mut self, mut run: Run) -> (Run, Vec<Message>) {
        self.close();
        if let Some(t) = &run.summary.title {
            run.summary.title = crate::title_from_text(t, crate::TITLE_CHARS);
        }
        (run, self.messages)
    }
}

fn notice(source: NoticeKind, text: &str) -> Vec<Part> {
    vec![Part::Notice {
        source,
        text: text.to_owned(),
    }]
}

/// A reply's text and reasoning blocks, in order.
fn reply_parts(text: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("<thinking-content-") {
        let (before, from) = rest.split_at(open);
        let Some((tag, after)) = from.split_once('>') else {
            break;
        };
        let close = format!("</{}>", tag.trim_start_matches('<'));
        let (inside, after) = after.split_once(&close).unwrap_or((after, ""));
        push_text(&mut parts, before);
        parts.push(Part::Reasoning {
            text: inside.trim().to_owned(),
            encrypted: false,
        });
        rest = after;
    }
    push_text(&mut parts, rest);
    parts
}

fn push_text(parts: &mut Vec<Part>, text: &str) {
    let text = text.trim();
    if !text.is_empty() {
        parts.push(Part::Text { text: text.into() });
    }
}

/// An output line naming an exception: its first word contains `Error` or `Exception` ending
/// a word (`litellm.BadRequestError:`), as `tests/record/expected.py` has it.
pub fn is_error(said: &str) -> bool {
    let word = said.split_whitespace().next().unwrap_or("");
    ["Error", "Exception"].iter().any(|name| {
        word.match_indices(name).any(|(at, m)| {
            let next = word.get(at + m.len()..).and_then(|r| r.chars().next());
            !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    })
}

/// `Model: openai/mock-coder with diff edit format` (and `Main model: …`) → the model.
fn model_named(said: &str) -> Option<String> {
    let rest = said
        .strip_prefix("Model: ")
        .or_else(|| said.strip_prefix("Main model: "))?;
    let model = rest.split(" with ").next()?.trim();
    (!model.is_empty()).then(|| model.to_owned())
}

/// `Tokens: 2.4k sent, 1.2k cache write, 3k cache hit, 77 received. Cost: $0.01 message,
/// $0.05 session.` → the tokens, and the run's cost so far.
fn tokens_said(said: &str) -> Option<(Tokens, Option<f64>)> {
    let rest = said.strip_prefix("Tokens: ")?;
    let (counts, cost) = match rest.split_once("Cost:") {
        Some((c, cost)) => (c, Some(cost)),
        None => (rest, None),
    };
    let mut t = Tokens::default();
    for item in counts.trim().trim_end_matches('.').split(", ") {
        let (n, what) = item.trim().split_once(' ')?;
        let n = amount(n)?;
        match what.trim_end_matches('.') {
            "sent" => t.input += n,
            "received" => t.output += n,
            "cache write" => t.cache_write += n,
            "cache hit" => t.cache_read += n,
            _ => {}
        }
    }
    let session = cost.and_then(|c| {
        c.split(", ")
            .find_map(|i| i.trim().trim_end_matches('.').strip_suffix(" session"))
            .and_then(|d| d.trim().trim_start_matches('$').parse().ok())
    });
    Some((t, session))
}

/// `2.4k` → 2400, `1.2M` → 1200000, `77` → 77 (Aider rounds what it prints).
fn amount(text: &str) -> Option<u64> {
    let (digits, scale) = match text.strip_suffix('k') {
        Some(d) => (d, 1e3),
        None => match text.strip_suffix('M') {
            Some(d) => (d, 1e6),
            None => (text, 1.0),
        },
    };
    let n: f64 = digits.replace(',', "").parse().ok()?;
    (n.is_finite() && n >= 0.0).then(|| (n * scale).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_named_by_their_first_word() {
        assert!(is_error(
            "litellm.BadRequestError: OpenAIException - mock: fails"
        ));
        assert!(is_error("OpenAIException - x"));
        assert!(!is_error("Errors: none"));
        assert!(!is_error("Applied edit to Error.txt"));
    }

    #[test]
    fn tokens_and_cost_are_read() {
        let (t, cost) = tokens_said(
            "Tokens: 2.4k sent, 1.2k cache write, 3k cache hit, 77 received. Cost: $0.01 message, $0.05 session.",
        )
        .unwrap();
        assert_eq!(
            (t.input, t.cache_write, t.cache_read, t.output),
            (2400, 1200, 3000, 77)
        );
        assert_eq!(cost, Some(0.05));
        let (t, cost) = tokens_said("Tokens: 2.4k sent, 89k received.").unwrap();
        assert_eq!((t.input, t.output, cost), (2400, 89000, None));
    }

    #[test]
    fn reasoning_blocks_are_parts_of_their_own() {
        let parts =
            reply_parts("<thinking-content-ab>\n\nwhy\n\n</thinking-content-ab>\n\nI will.");
        assert_eq!(
            parts,
            vec![
                Part::Reasoning {
                    text: "why".into(),
                    encrypted: false
                },
                Part::Text {
                    text: "I will.".into()
                }
            ]
        );
    }
}
