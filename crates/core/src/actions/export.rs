//! A session as a document that leaves the app: Markdown, JSON (the unified model) or one
//! self-contained HTML file (SPEC §7 "Export session"; the JSON schema is `docs/export-format.md`).
//!
//! Every format is written to a `Write` a message at a time: a 40 MB transcript is held once
//! (the loaded [`Transcript`]) and never a second time as a document string.
//!
//! Transcript content is untrusted and stays inert in every format:
//! - HTML goes through [`crate::render`], the sanitiser the app uses: message text as sanitised
//!   Markdown, everything else escaped; the page has no script and a CSP that loads nothing.
//! - Markdown keeps message text as written, except that every tag outside code is escaped
//!   (shown as text, as the app shows it; also what only a lenient renderer reads as a tag)
//!   and a code fence a message leaves open is closed, so no message can swallow the ones
//!   after it. Everything we fence (tool input and output, diffs) gets a fence longer than any
//!   backtick run inside it; titles and other one-line text are escaped character by character.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use pulldown_cmark::{CodeBlockKind, Event, Options as MdOptions, Parser, Tag};
use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::error::Error;
use crate::model::{
    CostBasis, Diagnostics, FileChange, Message, Part, Role, SessionMeta, ToolPart, ToolStatus,
    Transcript,
};
use crate::render;

/// The `schema_version` of a JSON export.
pub const SCHEMA_VERSION: &str = "agent-sessions.export.v1";
/// What `trim` keeps of a tool output, a tool input or a diff: this many lines…
pub const TRIM_LINES: usize = 40;
/// …and at most this many bytes of them.
pub const TRIM_BYTES: usize = 4 * 1024;

/// The Content-Security-Policy of the HTML export: nothing loads, nothing runs, inline styles
/// and `data:` images only; no `<base>` and no form target either.
pub const HTML_CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "ExportFormat")]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Markdown,
    Json,
    Html,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::Markdown, Format::Json, Format::Html];

    /// `md` (or `markdown`), `json`, `html`.
    pub fn parse(name: &str) -> Option<Format> {
        match name {
            "md" | "markdown" => Some(Format::Markdown),
            "json" => Some(Format::Json),
            "html" => Some(Format::Html),
            _ => None,
        }
    }

    /// The usual file extension (no dot).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Json => "json",
            Format::Html => "html",
        }
    }
}

/// How much of each tool's output (and each diff) an export carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum ToolOutput {
    /// All of it, also the part the transcript keeps only as a blob (when the exporter can read
    /// blobs).
    Full,
    /// The first [`TRIM_LINES`] lines / [`TRIM_BYTES`] bytes, with a marker saying what was cut.
    Trim,
    /// None: the call, its input and its status only.
    None,
}

impl ToolOutput {
    pub fn parse(name: &str) -> Option<ToolOutput> {
        match name {
            "full" => Some(ToolOutput::Full),
            "trim" => Some(ToolOutput::Trim),
            "none" => Some(ToolOutput::None),
            _ => None,
        }
    }
}

/// What an export includes. Recorded in the JSON export, so a reader knows what was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "ExportOptions")]
pub struct Options {
    /// Reasoning parts (off by default: they are long and rarely meant for the reader).
    pub reasoning: bool,
    pub tool_output: ToolOutput,
    /// Meta records (injected context, bookkeeping), hidden in the app unless asked for.
    pub meta: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            reasoning: false,
            tool_output: ToolOutput::Trim,
            meta: false,
        }
    }
}

/// Where an export's messages come from.
enum Source<'a> {
    /// A transcript already loaded.
    Transcript(&'a Transcript),
    /// The agent's store, read while the document is written: the transcript is never held
    /// whole, and outputs kept as blobs can be read in full.
    Store(&'a Catalog),
}

/// Why an export stopped: the session could not be read, or the output not written.
#[derive(Debug)]
pub enum Failure {
    Read(Error),
    Write(io::Error),
}

impl Failure {
    /// The error to report, naming `target` (the file, or standard output) for write failures.
    pub fn into_error(self, target: &Path) -> Error {
        match self {
            Failure::Read(e) => e,
            Failure::Write(source) => Error::Write {
                path: target.to_path_buf(),
                source,
            },
        }
    }
}

/// One session to export, with the options and what the document says about its making.
pub struct Exporter<'a> {
    source: Source<'a>,
    session: &'a SessionMeta,
    options: Options,
    exported_at: Option<DateTime<Utc>>,
}

impl<'a> Exporter<'a> {
    /// Exports `session` read from its store as the document is written (what the front ends
    /// use: memory stays bounded whatever the transcript's size).
    pub fn from_store(catalog: &'a Catalog, session: &'a SessionMeta, options: Options) -> Self {
        Exporter {
            source: Source::Store(catalog),
            session,
            options,
            exported_at: Some(Utc::now()),
        }
    }

    /// Exports a transcript already loaded (outputs kept as blobs stay previews).
    pub fn from_transcript(transcript: &'a Transcript, options: Options) -> Self {
        Exporter {
            source: Source::Transcript(transcript),
            session: &transcript.session,
            options,
            exported_at: Some(Utc::now()),
        }
    }

    /// Stamps the document with `at` instead of now (`None`: no time, for reproducible output).
    pub fn exported_at(mut self, at: Option<DateTime<Utc>>) -> Self {
        self.exported_at = at;
        self
    }

    /// Writes the document to `out`, a message at a time.
    pub fn write(&self, format: Format, out: &mut dyn Write) -> Result<(), Failure> {
        let mut out = io::BufWriter::with_capacity(64 << 10, out);
        match format {
            Format::Markdown => self.markdown(&mut out)?,
            Format::Json => self.json(&mut out)?,
            Format::Html => self.html(&mut out)?,
        }
        out.flush().map_err(Failure::Write)
    }

    /// Writes the document to a new file at `path` with [`write_file`]: all or nothing, 0600,
    /// an existing file replaced only with `overwrite`. Returns the size written.
    pub fn save(&self, format: Format, path: &Path, overwrite: bool) -> Result<u64, Error> {
        write_file(path, overwrite, |out| {
            self.write(format, out).map_err(|f| f.into_error(path))
        })
    }

    fn session(&self) -> &SessionMeta {
        self.session
    }

    /// Calls `f` with each message the options include, in order; the read's diagnostics.
    /// Writes every message with `write`, the first write error stopping the writing (the read
    /// goes on to its end, which `each` cannot cut short); the read's diagnostics.
    fn write_each(
        &self,
        out: &mut dyn Write,
        write: fn(&Self, &mut dyn Write, &Message) -> io::Result<()>,
    ) -> Result<Diagnostics, Failure> {
        let mut written = Ok(());
        let read = self.each(&mut |m| {
            if written.is_ok() {
                written = write(self, out, m);
            }
        });
        written.map_err(Failure::Write)?;
        read.map_err(Failure::Read)
    }

    fn each(&self, f: &mut dyn FnMut(&Message)) -> Result<Diagnostics, Error> {
        let include = |m: &Message| self.options.meta || !m.meta;
        match self.source {
            Source::Transcript(t) => {
                t.messages.iter().filter(|m| include(m)).for_each(f);
                Ok(t.diagnostics.clone())
            }
            Source::Store(catalog) => catalog.load_each(self.session, &mut |m| {
                if include(&m) {
                    f(&m)
                }
            }),
        }
    }

    /// The whole of an output the transcript holds only a preview of, where it can be read.
    fn read_blob(&self, key: &str) -> Option<Vec<u8>> {
        match self.source {
            Source::Store(catalog) => catalog.blob(self.session, key).ok(),
            Source::Transcript(_) => None,
        }
    }

    fn can_read_blobs(&self) -> bool {
        matches!(self.source, Source::Store(_))
    }

    fn shows(&self, part: &Part) -> bool {
        self.options.reasoning || !matches!(part, Part::Reasoning { .. })
    }

    /// A tool's output as this export shows it, or `None` when it shows none.
    fn output<'t>(&self, tool: &'t ToolPart) -> Option<Shown<'t>> {
        let text = tool.output.as_deref()?;
        self.output_of(tool, text)
    }

    /// A non-empty output as the readable formats show it.
    fn shown_output<'t>(&self, tool: &'t ToolPart) -> Option<Shown<'t>> {
        self.output(tool)
            .filter(|s| !s.text.is_empty() || s.marker().is_some())
    }

    fn output_of<'t>(&self, tool: &'t ToolPart, text: &'t str) -> Option<Shown<'t>> {
        match self.options.tool_output {
            ToolOutput::None => None,
            ToolOutput::Trim => Some(Shown::trimmed(text, tool.output_truncated)),
            ToolOutput::Full => Some(self.full_output(tool, text)),
        }
    }

    /// All of a tool's output: the blob when the transcript holds only a preview of it.
    fn full_output<'t>(&self, tool: &ToolPart, preview: &'t str) -> Shown<'t> {
        let whole = |text| Shown {
            text,
            cut: None,
            store_has_more: false,
        };
        if !tool.output_truncated {
            return whole(Cow::Borrowed(preview));
        }
        match tool.output_blob.as_deref().and_then(|k| self.read_blob(k)) {
            Some(bytes) => whole(Cow::Owned(String::from_utf8_lossy(&bytes).into_owned())),
            None => Shown {
                text: Cow::Borrowed(preview),
                cut: None,
                store_has_more: true,
            },
        }
    }

    /// A diff, or a tool input, bounded like tool output (inputs are shown even with `none`).
    fn bounded<'t>(&self, text: &'t str, always: bool) -> Option<Shown<'t>> {
        match self.options.tool_output {
            ToolOutput::Full => Some(Shown::whole(text)),
            ToolOutput::Trim => Some(Shown::trimmed(text, false)),
            ToolOutput::None if always => Some(Shown::trimmed(text, false)),
            ToolOutput::None => None,
        }
    }

    fn stamp(&self) -> String {
        let o = &self.options;
        let mut s = String::new();
        if let Some(at) = self.exported_at {
            let _ = write!(s, "{} · ", time(at));
        }
        let _ = write!(
            s,
            "agent-sessions {} · reasoning {} · tool output {} · meta records {}",
            env!("CARGO_PKG_VERSION"),
            if o.reasoning { "included" } else { "left out" },
            match o.tool_output {
                ToolOutput::Full => "in full",
                ToolOutput::Trim => "trimmed",
                ToolOutput::None => "left out",
            },
            if o.meta { "included" } else { "left out" },
        );
        s
    }
}

/// What the end of a readable document says about records that could not be read.
fn unreadable(d: &Diagnostics) -> Option<String> {
    (d.parse_errors > 0).then(|| {
        format!(
            "{} records of this session could not be read; they are not in this export.",
            d.parse_errors
        )
    })
}

/// Text as an export shows it: maybe cut, with what was cut.
struct Shown<'t> {
    text: Cow<'t, str>,
    cut: Option<Cut>,
    /// The transcript held only a preview; the rest stayed in the agent's store.
    store_has_more: bool,
}

#[derive(Clone, Copy)]
struct Cut {
    lines: usize,
    bytes: usize,
}

impl<'t> Shown<'t> {
    fn whole(text: &'t str) -> Self {
        Shown {
            text: Cow::Borrowed(text),
            cut: None,
            store_has_more: false,
        }
    }

    fn trimmed(text: &'t str, store_has_more: bool) -> Self {
        let (kept, cut) = trim(text);
        Shown {
            text: Cow::Borrowed(kept),
            cut,
            store_has_more: store_has_more && cut.is_none(),
        }
    }

    /// The line saying what is not shown, if anything is not.
    fn marker(&self) -> Option<String> {
        if let Some(cut) = &self.cut {
            let lines = if cut.lines == 1 { "line" } else { "lines" };
            return Some(format!(
                "… {} more {lines} ({}) not shown",
                cut.lines,
                size(cut.bytes)
            ));
        }
        self.store_has_more
            .then(|| "… the rest of this output is in the session's own files, not shown".into())
    }
}

/// The first [`TRIM_LINES`] lines of `text`, at most [`TRIM_BYTES`] of them (cut on a character
/// boundary), and what was left.
fn trim(text: &str) -> (&str, Option<Cut>) {
    let mut end = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i == TRIM_LINES || end + line.len() > TRIM_BYTES {
            break;
        }
        end += line.len();
    }
    if end == 0 && !text.is_empty() {
        // One long first line: cut inside it.
        end = TRIM_BYTES.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
    }
    if end >= text.len() {
        return (text, None);
    }
    let rest = &text[end..];
    let lines = rest.split_inclusive('\n').count();
    let cut = Cut {
        lines,
        bytes: rest.len(),
    };
    (&text[..end], Some(cut))
}

fn size(bytes: usize) -> String {
    match bytes {
        0..1024 => format!("{bytes} bytes"),
        1024..1_048_576 => format!("{:.1} KB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_048_576.0),
    }
}

fn time(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

fn role_name(m: &Message) -> String {
    let role = match m.role {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::System => "System",
    };
    let mut name = role.to_owned();
    if m.sidechain {
        name.push_str(" (subagent)");
    }
    if m.meta {
        name.push_str(" (meta)");
    }
    name
}

fn status_name(s: ToolStatus) -> &'static str {
    match s {
        ToolStatus::Ok => "ok",
        ToolStatus::Error => "error",
        ToolStatus::Pending => "no result",
    }
}

/// The input field that says most about a call (its command, file or query), on one line.
pub(crate) fn input_hint(input: &serde_json::Value) -> Option<String> {
    const KEYS: [&str; 9] = [
        "command",
        "cmd",
        "file_path",
        "filePath",
        "path",
        "pattern",
        "query",
        "url",
        "description",
    ];
    let value = KEYS.iter().find_map(|k| match &input[*k] {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Array(a) => {
            let words: Vec<&str> = a.iter().filter_map(|v| v.as_str()).collect();
            (!words.is_empty()).then(|| words.join(" "))
        }
        _ => None,
    })?;
    let line: String = value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(100)
        .collect();
    let line = line.trim().to_owned();
    (!line.is_empty()).then_some(line)
}

fn title(s: &SessionMeta) -> String {
    s.title
        .as_deref()
        .map(one_line)
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| format!("Session {}", s.id))
}

/// Text with line breaks and other control characters made spaces.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Session facts in the order both readable formats list them: (label, value, is code).
fn facts(e: &Exporter) -> Vec<(&'static str, String, bool)> {
    let s = e.session();
    let mut f = Vec::new();
    let agent = match &s.format_version {
        Some(v) => format!("{} {v}", s.provider),
        None => s.provider.to_string(),
    };
    f.push(("Agent", agent, false));
    f.push(("Session", s.id.clone(), true));
    if let Some(p) = &s.parent_id {
        f.push(("Parent session", p.clone(), true));
    }
    if let Some(p) = &s.forked_from {
        f.push(("Forked from", p.clone(), true));
    }
    if let Some(cwd) = &s.cwd {
        f.push(("Directory", cwd.clone(), true));
    }
    if let Some(b) = &s.git_branch {
        f.push(("Branch", b.clone(), true));
    }
    if let Some(m) = &s.model {
        f.push(("Model", m.clone(), true));
    }
    if let Some(a) = &s.agent {
        f.push(("Agent profile", a.clone(), true));
    }
    if let Some(t) = s.created_at {
        f.push(("Started", time(t), false));
    }
    if let Some(t) = s.updated_at {
        f.push(("Updated", time(t), false));
    }
    let c = &s.counts;
    f.push((
        "Messages",
        format!(
            "{} from the user, {} from the assistant, {} tool calls",
            c.user, c.assistant, c.tool_calls
        ),
        false,
    ));
    if let Some(t) = s.tokens.filter(|t| !t.is_zero()) {
        f.push((
            "Tokens",
            format!(
                "{} in, {} out, {} cache read, {} cache write",
                t.input, t.output, t.cache_read, t.cache_write
            ),
            false,
        ));
    }
    if let Some(cost) = cost_text(s) {
        f.push(("Cost", cost, false));
    }
    if let Some(ch) = s.changes {
        f.push((
            "Changes",
            format!("+{} −{} in {} files", ch.additions, ch.deletions, ch.files),
            false,
        ));
    }
    f.push(("Exported", e.stamp(), false));
    f
}

// ---------------------------------------------------------------------------------------------
// Markdown

impl Exporter<'_> {
    fn markdown(&self, out: &mut dyn Write) -> Result<(), Failure> {
        self.md_header(out).map_err(Failure::Write)?;
        let diagnostics = self.write_each(out, Self::md_message)?;
        if let Some(note) = unreadable(&diagnostics) {
            writeln!(out, "---\n\n*{}*", md_inline(&note)).map_err(Failure::Write)?;
        }
        Ok(())
    }

    fn md_header(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "# {}\n", md_inline(&title(self.session())))?;
        for (label, value, code) in facts(self) {
            let value = if code {
                code_span(&value)
            } else {
                md_inline(&value)
            };
            writeln!(out, "- **{label}:** {value}")?;
        }
        writeln!(out)
    }

    fn md_message(&self, out: &mut dyn Write, m: &Message) -> io::Result<()> {
        let parts: Vec<&Part> = m.parts.iter().filter(|p| self.shows(p)).collect();
        if parts.is_empty() {
            return Ok(());
        }
        let mut heading = role_name(m);
        if let Some(t) = m.timestamp {
            let _ = write!(heading, " · {}", time(t));
        }
        if let Some(model) = m.model.as_deref().filter(|_| m.role == Role::Assistant) {
            let _ = write!(heading, " · {model}");
        }
        writeln!(out, "## {}\n", md_inline(&heading))?;
        for part in parts {
            self.md_part(out, part)?;
        }
        Ok(())
    }

    fn md_part(&self, out: &mut dyn Write, part: &Part) -> io::Result<()> {
        match part {
            Part::Text { text } => {
                md_text(out, text)?;
                writeln!(out)
            }
            Part::Reasoning { text, encrypted } => {
                writeln!(out, "> **Reasoning**\n>")?;
                if text.trim().is_empty() {
                    let what = if *encrypted { "encrypted" } else { "empty" };
                    return writeln!(out, "> *({what})*\n");
                }
                md_quoted(out, text)?;
                writeln!(out)
            }
            Part::Tool(tool) => self.md_tool(out, tool),
            Part::Patch { files } => {
                writeln!(out, "**Changes**\n")?;
                self.md_changes(out, files)
            }
            Part::File { path, mime, blob } => {
                let what = path.as_deref().or(blob.as_deref()).unwrap_or("(unnamed)");
                let mime = mime.as_deref().map(|m| format!(" ({})", md_inline(m)));
                writeln!(
                    out,
                    "*File:* {}{}\n",
                    code_span(what),
                    mime.unwrap_or_default()
                )
            }
            Part::Compaction {
                trigger,
                pre_tokens,
                summary,
            } => {
                let mut line = format!(
                    "*Context compacted ({})",
                    md_inline(trigger.as_deref().unwrap_or("summary"))
                );
                if let Some(n) = pre_tokens {
                    let _ = write!(line, ", {n} tokens before");
                }
                writeln!(out, "{line}*\n")?;
                if let Some(s) = summary.as_deref().filter(|s| !s.trim().is_empty()) {
                    md_quoted(out, s)?;
                    writeln!(out)?;
                }
                Ok(())
            }
            Part::Notice { source, text } => {
                writeln!(out, "*{}*\n", md_inline(&source.to_string()))?;
                md_fenced(out, "text", text)
            }
        }
    }

    fn md_tool(&self, out: &mut dyn Write, tool: &ToolPart) -> io::Result<()> {
        let mut line = format!(
            "**Tool {}** · {}",
            code_span(&tool.name),
            status_name(tool.status)
        );
        if let Some(hint) = input_hint(&tool.input) {
            let _ = write!(line, " · {}", code_span(&hint));
        }
        writeln!(out, "{line}\n")?;
        if !tool.input.is_null() {
            let input = serde_json::to_string_pretty(&tool.input).unwrap_or_default();
            if let Some(shown) = self.bounded(&input, true) {
                md_shown(out, "json", &shown)?;
            }
        }
        if let Some(shown) = self.shown_output(tool) {
            writeln!(out, "Output:\n")?;
            md_shown(out, "text", &shown)?;
        }
        if !tool.changes.is_empty() {
            self.md_changes(out, &tool.changes)?;
        }
        if let Some(child) = &tool.subagent_id {
            writeln!(out, "*Subagent:* {}\n", code_span(child))?;
        }
        Ok(())
    }

    fn md_changes(&self, out: &mut dyn Write, files: &[FileChange]) -> io::Result<()> {
        for c in files {
            writeln!(
                out,
                "- {} {} (+{} −{})",
                md_inline(&c.change),
                code_span(&c.path),
                c.additions,
                c.deletions
            )?;
        }
        writeln!(out)?;
        for c in files {
            let Some(shown) = c.diff.as_deref().and_then(|d| self.bounded(d, false)) else {
                continue;
            };
            md_shown(out, "diff", &shown)?;
        }
        Ok(())
    }
}

fn md_shown(out: &mut dyn Write, info: &str, shown: &Shown) -> io::Result<()> {
    md_fenced(out, info, &shown.text)?;
    if let Some(marker) = shown.marker() {
        writeln!(out, "*{}*\n", md_inline(&marker))?;
    }
    Ok(())
}

/// `text` in a code fence no line of it can close: longer than any backtick run inside.
fn md_fenced(out: &mut dyn Write, info: &str, text: &str) -> io::Result<()> {
    let fence = "`".repeat(3.max(longest_run(text, '`') + 1));
    writeln!(out, "{fence}{info}")?;
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        writeln!(out)?;
    }
    writeln!(out, "{fence}\n")
}

pub(crate) fn longest_run(text: &str, c: char) -> usize {
    let (mut run, mut max) = (0, 0);
    for ch in text.chars() {
        run = if ch == c { run + 1 } else { 0 };
        max = max.max(run);
    }
    max
}

/// Inline code that no content can end early.
fn code_span(text: &str) -> String {
    let text = one_line(text);
    if text.is_empty() {
        return String::new();
    }
    let ticks = "`".repeat(longest_run(&text, '`') + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// Text on one line with every character Markdown could read as syntax escaped (`<` as `&lt;`:
/// not every renderer honours `\<`).
fn md_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in one_line(text).chars() {
        match c {
            '<' => out.push_str("&lt;"),
            c if "\\`*_[]>#|~&!".contains(c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Message text as written, made safe to be followed by more Markdown (see the module docs).
fn md_text(out: &mut dyn Write, text: &str) -> io::Result<()> {
    match md_contained(text) {
        Some(safe) => {
            out.write_all(safe.as_bytes())?;
            if !safe.ends_with('\n') {
                writeln!(out)?;
            }
            Ok(())
        }
        // Too big to check, or escaping kept changing its structure: shown as plain text.
        None => md_fenced(out, "text", text),
    }
}

/// `text` in a block quote (reasoning, summaries), each line prefixed.
fn md_quoted(out: &mut dyn Write, text: &str) -> io::Result<()> {
    let safe = md_contained(text).unwrap_or_else(|| {
        let fence = "`".repeat(3.max(longest_run(text, '`') + 1));
        Cow::Owned(format!("{fence}text\n{text}\n{fence}"))
    });
    for line in safe.lines() {
        if line.is_empty() {
            writeln!(out, ">")?;
        } else {
            writeln!(out, "> {line}")?;
        }
    }
    Ok(())
}

/// `text` with every tag outside code escaped (see [`tag_starts`]) and an open top-level fence
/// closed, or `None` when it is too large to check or escaping keeps changing its structure.
fn md_contained(text: &str) -> Option<Cow<'_, str>> {
    if text.len() > render::MAX_MARKDOWN_BYTES {
        return None;
    }
    let mut current = Cow::Borrowed(text);
    // Escaping a tag can change the structure around it (a fence inside an HTML block becomes a
    // real fence, a backtick inside a tag can open a code span), so check again until nothing
    // is left to escape. Each round removes a `<`, so it ends; a few rounds are plenty.
    for _ in 0..4 {
        let scan = md_scan(&current);
        if scan.tags.is_empty() {
            // No `<` opens a tag, so CommonMark cannot see HTML; should it, never pass it.
            if scan.html {
                return None;
            }
            let Some(fence) = scan.open_fence else {
                return Some(current);
            };
            let mut closed = current.into_owned();
            if !closed.ends_with('\n') {
                closed.push('\n');
            }
            closed.push_str(&fence);
            closed.push('\n');
            return Some(Cow::Owned(closed));
        }
        current = Cow::Owned(escape_tags(&current, &scan.tags));
    }
    None
}

struct MdScan {
    /// Byte offsets of the `<` that could open a tag, outside code.
    tags: Vec<usize>,
    /// Whether CommonMark read raw HTML anywhere.
    html: bool,
    /// The fence that closes a top-level code block left open at the end.
    open_fence: Option<String>,
}

fn md_scan(text: &str) -> MdScan {
    let mut options = MdOptions::empty();
    options.insert(MdOptions::ENABLE_TABLES);
    options.insert(MdOptions::ENABLE_STRIKETHROUGH);
    options.insert(MdOptions::ENABLE_TASKLISTS);
    let mut scan = MdScan {
        tags: Vec::new(),
        html: false,
        open_fence: None,
    };
    // Code blocks and spans, in document order (they never nest or overlap).
    let mut code = Vec::new();
    let mut depth = 0usize;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                if let Tag::CodeBlock(kind) = tag {
                    if depth == 0 && matches!(kind, CodeBlockKind::Fenced(_)) {
                        scan.open_fence = open_fence(&text[range.clone()]);
                    }
                    code.push(range);
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Code(_) => code.push(range),
            Event::Html(_) | Event::InlineHtml(_) => scan.html = true,
            _ => {}
        }
    }
    scan.tags = tag_starts(text, &code);
    scan
}

/// For a fenced block's source: the fence that would close it, when nothing does.
fn open_fence(block: &str) -> Option<String> {
    let first = block.lines().next()?.trim_start_matches(' ');
    let c = first.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = first.chars().take_while(|x| *x == c).count();
    let closed = block.lines().count() > 1
        && block.lines().last().is_some_and(|last| {
            let last = last.trim_start_matches(' ');
            let run = last.chars().take_while(|x| *x == c).count();
            run >= n && last[run * c.len_utf8()..].trim().is_empty()
        });
    (!closed).then(|| c.to_string().repeat(n))
}

/// The offsets of every `<` outside `code` that a renderer could read as opening a tag: one
/// followed by a letter, `/`, `!` or `?`. That is more than CommonMark's HTML: browsers and
/// lenient renderers also take `<svg/onload=…>` or `<img src=x onerror=alert('x')>`, which
/// CommonMark leaves as text but writes into the page as it stands. Inside code a tag shows as
/// itself in every renderer.
fn tag_starts(text: &str, code: &[Range<usize>]) -> Vec<usize> {
    let bytes = text.as_bytes();
    let in_code = |at: usize| {
        let after = code.partition_point(|r| r.start <= at);
        after > 0 && code[after - 1].contains(&at)
    };
    text.match_indices('<')
        .map(|(at, _)| at)
        .filter(|&at| {
            let next = bytes.get(at + 1);
            next.is_some_and(|c| c.is_ascii_alphabetic() || b"/!?".contains(c)) && !in_code(at)
        })
        .collect()
}

/// `text` with the `<` at each of `tags` written `&lt;`, so it shows as itself. A `\<` (an
/// escaped `<`, which Markdown.pl-style renderers do not honour) becomes `&lt;` too: CommonMark
/// shows both as `<`.
fn escape_tags(text: &str, tags: &[usize]) -> String {
    let mut out = String::with_capacity(text.len() + 4 * tags.len());
    let mut at = 0;
    for &tag in tags {
        let before = &text[at..tag];
        let slashes = before.bytes().rev().take_while(|c| *c == b'\\').count();
        out.push_str(if slashes % 2 == 1 {
            &before[..before.len() - 1]
        } else {
            before
        });
        out.push_str("&lt;");
        at = tag + 1;
    }
    out.push_str(&text[at..]);
    out
}

// ---------------------------------------------------------------------------------------------
// JSON

/// What a JSON export holds, as read back (`docs/export-format.md`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Document {
    pub schema_version: String,
    pub generator: String,
    pub exported_at: Option<DateTime<Utc>>,
    pub options: Options,
    pub session: SessionMeta,
    pub messages: Vec<Message>,
    pub diagnostics: Diagnostics,
}

impl Document {
    /// Reads a JSON export, refusing one of another schema.
    pub fn from_reader(reader: impl io::Read) -> serde_json::Result<Document> {
        let doc: Document = serde_json::from_reader(reader)?;
        if doc.schema_version != SCHEMA_VERSION {
            return Err(serde::de::Error::custom(format!(
                "schema_version {:?} is not {SCHEMA_VERSION:?}",
                doc.schema_version
            )));
        }
        Ok(doc)
    }

    pub fn into_transcript(self) -> Transcript {
        Transcript {
            session: self.session,
            messages: self.messages,
            diagnostics: self.diagnostics,
        }
    }
}

/// The document as written: the session borrowed, messages read and shaped one at a time.
struct DocumentOut<'e, 'a> {
    exporter: &'e Exporter<'a>,
    /// Known once the messages are read (they come before it).
    diagnostics: RefCell<Diagnostics>,
    /// Why reading the session stopped, if it did.
    failed: RefCell<Option<Error>>,
}

impl Serialize for DocumentOut<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let e = self.exporter;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("schema_version", SCHEMA_VERSION)?;
        map.serialize_entry(
            "generator",
            &format!("agent-sessions {}", env!("CARGO_PKG_VERSION")),
        )?;
        map.serialize_entry("exported_at", &e.exported_at)?;
        map.serialize_entry("options", &e.options)?;
        map.serialize_entry("session", e.session())?;
        map.serialize_entry("messages", &MessagesOut(self))?;
        map.serialize_entry("diagnostics", &*self.diagnostics.borrow())?;
        map.end()
    }
}

struct MessagesOut<'d, 'e, 'a>(&'d DocumentOut<'e, 'a>);

impl Serialize for MessagesOut<'_, '_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeSeq};
        let doc = self.0;
        let e = doc.exporter;
        let mut seq = s.serialize_seq(None)?;
        let mut written = Ok(());
        let read = e.each(&mut |m| {
            if written.is_ok() {
                written = seq.serialize_element(&e.shaped(m));
            }
        });
        written?;
        match read {
            Ok(d) => *doc.diagnostics.borrow_mut() = d,
            Err(err) => {
                let message = err.to_string();
                *doc.failed.borrow_mut() = Some(err);
                return Err(S::Error::custom(message));
            }
        }
        seq.end()
    }
}

impl Exporter<'_> {
    fn json(&self, out: &mut dyn Write) -> Result<(), Failure> {
        let doc = DocumentOut {
            exporter: self,
            diagnostics: RefCell::default(),
            failed: RefCell::default(),
        };
        let written = serde_json::to_writer_pretty(&mut *out, &doc);
        if let Some(e) = doc.failed.into_inner() {
            return Err(Failure::Read(e));
        }
        written.map_err(|e| Failure::Write(e.into()))?;
        writeln!(out).map_err(Failure::Write)
    }

    /// A message as the options shape it: borrowed when they change nothing in it.
    fn shaped<'m>(&self, m: &'m Message) -> Cow<'m, Message> {
        let changes = |p: &Part| match p {
            Part::Reasoning { .. } => !self.options.reasoning,
            Part::Tool(t) => match self.options.tool_output {
                ToolOutput::Full => t.output_truncated && self.can_read_blobs(),
                _ => true,
            },
            Part::Patch { .. } => self.options.tool_output != ToolOutput::Full,
            _ => false,
        };
        if !m.parts.iter().any(changes) {
            return Cow::Borrowed(m);
        }
        let mut shaped = without_parts(m);
        for p in m.parts.iter().filter(|p| self.shows(p)) {
            shaped.parts.push(match p {
                Part::Tool(t) => Part::Tool(self.shaped_tool(t)),
                Part::Patch { files } => Part::Patch {
                    files: self.shaped_changes(files),
                },
                other => other.clone(),
            });
        }
        Cow::Owned(shaped)
    }

    fn shaped_tool(&self, t: &ToolPart) -> ToolPart {
        let mut tool = t.clone();
        tool.changes = self.shaped_changes(&t.changes);
        match self.output(t) {
            None => tool.output = None,
            Some(shown) => {
                tool.output_truncated = shown.cut.is_some() || shown.store_has_more;
                tool.output = Some(shown.text.into_owned());
            }
        }
        tool
    }

    fn shaped_changes(&self, files: &[FileChange]) -> Vec<FileChange> {
        files
            .iter()
            .map(|c| FileChange {
                diff: c
                    .diff
                    .as_deref()
                    .and_then(|d| self.bounded(d, false))
                    .map(|s| s.text.into_owned()),
                ..c.clone()
            })
            .collect()
    }
}

/// Every field of `m` but its parts (which the caller fills as it wants them).
fn without_parts(m: &Message) -> Message {
    Message {
        id: m.id.clone(),
        role: m.role,
        parent_id: m.parent_id.clone(),
        timestamp: m.timestamp,
        model: m.model.clone(),
        counted: m.counted,
        meta: m.meta,
        sidechain: m.sidechain,
        parts: Vec::new(),
        source_lines: m.source_lines.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// HTML

const CSS: &str = r#"
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #656d76;
  --line: #d0d7de; --card: #f6f8fa; --user: #ddf4ff; --accent: #0969da; --add: #1a7f37;
  --del: #cf222e; --code: #eff1f3; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --card: #161b22;
    --user: #0c2d4b; --accent: #4493f8; --add: #3fb950; --del: #f85149; --code: #1f242c; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 60rem; padding: 1.5rem; background: var(--bg); color: var(--fg);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; overflow-wrap: anywhere; }
h1 { font-size: 1.5rem; margin: 0 0 .75rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: 0 0 1.5rem;
  color: var(--muted); font-size: .9rem; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; }
article { border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem;
  background: var(--bg); }
article.user { background: var(--user); }
article.meta { opacity: .8; border-style: dashed; }
article > h2 { font-size: .85rem; font-weight: 600; margin: 0 0 .5rem; color: var(--muted); }
article > h2 .role { color: var(--fg); text-transform: uppercase; letter-spacing: .04em; }
pre, code { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--code); padding: .6rem .8rem; border-radius: 6px; overflow-x: auto;
  white-space: pre-wrap; }
:not(pre) > code { background: var(--code); padding: .1rem .3rem; border-radius: 4px; }
details { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; background: var(--card); }
details > summary { cursor: pointer; padding: .35rem .6rem; color: var(--muted); }
details > :not(summary) { margin-left: .6rem; margin-right: .6rem; }
.label { font-size: .8rem; color: var(--muted); margin-top: .4rem; }
.status-error { color: var(--del); } .status-ok { color: var(--add); }
.cut, .note { font-size: .85rem; color: var(--muted); font-style: italic; }
.diff .add { color: var(--add); } .diff .del { color: var(--del); } .diff .hunk { color: var(--accent); }
ul.changes { margin: .3rem 0; padding-left: 1.2rem; }
blockquote { border-left: 3px solid var(--line); margin: .5rem 0; padding: 0 .8rem; color: var(--muted); }
table { border-collapse: collapse; } th, td { border: 1px solid var(--line); padding: .2rem .5rem; }
a { color: var(--accent); }
footer { color: var(--muted); font-size: .8rem; margin-top: 2rem; }
"#;

impl Exporter<'_> {
    fn html_header(&self, out: &mut dyn Write) -> io::Result<()> {
        let title = render::escape(&title(self.session()));
        write!(
            out,
            "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"{HTML_CSP}\">\n\
             <meta name=\"referrer\" content=\"no-referrer\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta name=\"generator\" content=\"agent-sessions {}\">\n\
             <title>{title}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<header>\n\
             <h1>{title}</h1>\n<dl class=\"facts\">\n",
            env!("CARGO_PKG_VERSION")
        )?;
        for (label, value, code) in facts(self) {
            let value = render::escape(&value);
            if code {
                writeln!(out, "<dt>{label}</dt><dd><code>{value}</code></dd>")?;
            } else {
                writeln!(out, "<dt>{label}</dt><dd>{value}</dd>")?;
            }
        }
        writeln!(out, "</dl>\n</header>\n<main>")
    }

    fn html(&self, out: &mut dyn Write) -> Result<(), Failure> {
        self.html_header(out).map_err(Failure::Write)?;
        let diagnostics = self.write_each(out, Self::html_message)?;
        let mut footer = render::escape(&self.stamp());
        if let Some(note) = unreadable(&diagnostics) {
            footer = format!("<p class=\"note\">{}</p>{footer}", render::escape(&note));
        }
        writeln!(out, "</main>\n<footer>{footer}</footer>\n</body>\n</html>")
            .map_err(Failure::Write)
    }

    fn html_message(&self, out: &mut dyn Write, m: &Message) -> io::Result<()> {
        let parts: Vec<&Part> = m.parts.iter().filter(|p| self.shows(p)).collect();
        if parts.is_empty() {
            return Ok(());
        }
        let class = match m.role {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
        };
        let meta = if m.meta { " meta" } else { "" };
        write!(
            out,
            "<article class=\"{class}{meta}\">\n<h2><span class=\"role\">{}</span>",
            render::escape(&role_name(m))
        )?;
        if let Some(t) = m.timestamp {
            write!(
                out,
                " · <time datetime=\"{}\">{}</time>",
                t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                time(t)
            )?;
        }
        if let Some(model) = m.model.as_deref().filter(|_| m.role == Role::Assistant) {
            write!(out, " · {}", render::escape(model))?;
        }
        writeln!(out, "</h2>")?;
        for part in parts {
            self.html_part(out, part)?;
        }
        writeln!(out, "</article>")
    }

    fn html_part(&self, out: &mut dyn Write, part: &Part) -> io::Result<()> {
        match part {
            Part::Text { text } => writeln!(
                out,
                "<div class=\"text\" dir=\"auto\">{}</div>",
                render::markdown(text)
            ),
            Part::Reasoning { text, encrypted } => {
                let body = if text.trim().is_empty() {
                    let what = if *encrypted { "encrypted" } else { "empty" };
                    format!("<p class=\"note\">({what})</p>")
                } else {
                    render::markdown(text)
                };
                writeln!(
                    out,
                    "<details class=\"reasoning\"><summary>Reasoning</summary>\
                     <div dir=\"auto\">{body}</div></details>"
                )
            }
            Part::Tool(tool) => self.html_tool(out, tool),
            Part::Patch { files } => {
                writeln!(
                    out,
                    "<details class=\"patch\" open><summary>Changes</summary>"
                )?;
                self.html_changes(out, files)?;
                writeln!(out, "</details>")
            }
            Part::File { path, mime, blob } => {
                let what = path.as_deref().or(blob.as_deref()).unwrap_or("(unnamed)");
                let mime = mime
                    .as_deref()
                    .map(|m| format!(" ({})", render::escape(m)))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "<p class=\"note\">File: <code>{}</code>{mime}</p>",
                    render::escape(what)
                )
            }
            Part::Compaction {
                trigger,
                pre_tokens,
                summary,
            } => {
                let mut line = format!(
                    "Context compacted ({})",
                    render::escape(trigger.as_deref().unwrap_or("summary"))
                );
                if let Some(n) = pre_tokens {
                    let _ = write!(line, ", {n} tokens before");
                }
                match summary.as_deref().filter(|s| !s.trim().is_empty()) {
                    Some(s) => writeln!(
                        out,
                        "<details class=\"compaction\"><summary>{line}</summary>\
                         <div dir=\"auto\">{}</div></details>",
                        render::markdown(s)
                    ),
                    None => writeln!(out, "<p class=\"note\">{line}</p>"),
                }
            }
            Part::Notice { source, text } => writeln!(
                out,
                "<details class=\"notice\"><summary>{}</summary><pre>{}</pre></details>",
                render::escape(&source.to_string()),
                render::escape(text)
            ),
        }
    }

    fn html_tool(&self, out: &mut dyn Write, tool: &ToolPart) -> io::Result<()> {
        let status = status_name(tool.status);
        let status_class = match tool.status {
            ToolStatus::Ok => "ok",
            ToolStatus::Error => "error",
            ToolStatus::Pending => "pending",
        };
        write!(
            out,
            "<details class=\"tool\"><summary>Tool <code>{}</code> · \
             <span class=\"status-{status_class}\">{status}</span>",
            render::escape(&tool.name)
        )?;
        if let Some(hint) = input_hint(&tool.input) {
            write!(out, " · <code>{}</code>", render::escape(&hint))?;
        }
        writeln!(out, "</summary>")?;
        if !tool.input.is_null() {
            let input = serde_json::to_string_pretty(&tool.input).unwrap_or_default();
            if let Some(shown) = self.bounded(&input, true) {
                writeln!(out, "<div class=\"label\">Input</div>")?;
                html_shown(out, &shown, "input")?;
            }
        }
        if let Some(shown) = self.shown_output(tool) {
            writeln!(out, "<div class=\"label\">Output</div>")?;
            html_shown(out, &shown, "output")?;
        }
        if !tool.changes.is_empty() {
            self.html_changes(out, &tool.changes)?;
        }
        if let Some(child) = &tool.subagent_id {
            writeln!(
                out,
                "<p class=\"note\">Subagent: <code>{}</code></p>",
                render::escape(child)
            )?;
        }
        writeln!(out, "</details>")
    }

    fn html_changes(&self, out: &mut dyn Write, files: &[FileChange]) -> io::Result<()> {
        writeln!(out, "<ul class=\"changes\">")?;
        for c in files {
            writeln!(
                out,
                "<li>{} <code>{}</code> (+{} −{})</li>",
                render::escape(&c.change),
                render::escape(&c.path),
                c.additions,
                c.deletions
            )?;
        }
        writeln!(out, "</ul>")?;
        for c in files {
            let Some(shown) = c.diff.as_deref().and_then(|d| self.bounded(d, false)) else {
                continue;
            };
            write!(out, "<pre class=\"diff\">")?;
            for line in shown.text.split_inclusive('\n') {
                let class = match line.as_bytes().first() {
                    Some(b'+') if !line.starts_with("+++") => Some("add"),
                    Some(b'-') if !line.starts_with("---") => Some("del"),
                    Some(b'@') => Some("hunk"),
                    _ => None,
                };
                match class {
                    Some(class) => write!(
                        out,
                        "<span class=\"{class}\">{}</span>",
                        render::escape(line)
                    )?,
                    None => out.write_all(render::escape(line).as_bytes())?,
                }
            }
            writeln!(out, "</pre>")?;
            if let Some(marker) = shown.marker() {
                writeln!(out, "<p class=\"cut\">{}</p>", render::escape(&marker))?;
            }
        }
        Ok(())
    }
}

fn html_shown(out: &mut dyn Write, shown: &Shown, class: &str) -> io::Result<()> {
    writeln!(
        out,
        "<pre class=\"{class}\">{}</pre>",
        render::escape(&shown.text)
    )?;
    if let Some(marker) = shown.marker() {
        writeln!(out, "<p class=\"cut\">{}</p>", render::escape(&marker))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Files

/// An export never goes into an agent's own store: a `path` whose folder is in one of `roots`
/// (even by mistake, even over the session's own file) is refused before anything is written.
pub fn refuse_agent_store(roots: &crate::Roots, path: &Path) -> Result<(), Error> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Ok(dir) = std::fs::canonicalize(dir) else {
        return Ok(()); // A missing folder fails the write itself, with its own message.
    };
    for agent in crate::provider::registry::AGENTS {
        for root in roots.get(agent.kind) {
            let Ok(root) = std::fs::canonicalize(root) else {
                continue;
            };
            if dir.starts_with(&root) {
                return Err(Error::Write {
                    path: path.to_path_buf(),
                    source: io::Error::new(
                        io::ErrorKind::PermissionDenied,
                        format!(
                            "it is inside the {} store {}, and nothing is ever written \
                             there; choose a file elsewhere",
                            agent.label,
                            root.display()
                        ),
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Writes a new file at `path` through `body`, all or nothing: into a temporary file beside it
/// (0600 on Unix), synced, then moved into place. Without `overwrite`, an existing `path` (file,
/// directory or link) is left as it was and the result is [`Error::FileExists`]. On any failure,
/// `body`'s included, nothing is left behind. Returns the size written.
pub fn write_file(
    path: &Path,
    overwrite: bool,
    body: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
) -> Result<u64, Error> {
    let failed = |e| Error::Write {
        path: path.to_path_buf(),
        source: e,
    };
    let exists = || Error::FileExists {
        path: path.to_path_buf(),
    };
    if !overwrite && path.symlink_metadata().is_ok() {
        return Err(exists());
    }
    let (mut file, temp) = TempFile::create(path).map_err(failed)?;
    body(&mut file)?;
    file.sync_all().map_err(failed)?;
    let size = file.metadata().map_err(failed)?.len();
    drop(file);
    if overwrite {
        std::fs::rename(&temp.0, path).map_err(failed)?;
    } else {
        // A hard link is created only where nothing is: no file that appeared meanwhile is
        // replaced. Filesystems without links get the checked rename.
        match std::fs::hard_link(&temp.0, path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(exists()),
            Err(_) if path.symlink_metadata().is_ok() => return Err(exists()),
            Err(_) => std::fs::rename(&temp.0, path).map_err(failed)?,
        }
    }
    drop(temp);
    Ok(size)
}

/// A temporary file beside the target, removed when dropped (renamed away, removal just fails).
struct TempFile(PathBuf);

impl TempFile {
    fn create(target: &Path) -> io::Result<(std::fs::File, TempFile)> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?
            .to_string_lossy();
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        for attempt in 0..100u32 {
            let temp = dir.join(format!(
                ".{name}.{}-{stamp:x}-{attempt}.partial",
                std::process::id()
            ));
            let mut open = std::fs::OpenOptions::new();
            open.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
            match open.open(&temp) {
                Ok(file) => return Ok((file, TempFile(temp))),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "no free temporary file name beside it",
        ))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A session's cost as people read it: recorded, estimated (marked "≈"), or why there is none.
pub fn cost_text(s: &SessionMeta) -> Option<String> {
    if s.cost_basis == CostBasis::Unpriced {
        return Some(match &s.model {
            Some(m) => format!("no price for {m}"),
            None => "no price (model not recorded)".to_owned(),
        });
    }
    let approx = if s.cost_basis == CostBasis::Estimated {
        "≈ "
    } else {
        ""
    };
    Some(format!("{approx}${:.2}", s.cost()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_keeps_whole_lines_within_both_bounds() {
        let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let (kept, cut) = trim(&text);
        assert_eq!(kept.lines().count(), TRIM_LINES);
        let cut = cut.unwrap();
        assert_eq!(cut.lines, 100 - TRIM_LINES);
        assert_eq!(kept.len() + cut.bytes, text.len());
        // One long line is cut on a character boundary.
        let long = "é".repeat(TRIM_BYTES);
        let (kept, cut) = trim(&long);
        assert!(kept.len() <= TRIM_BYTES && long.starts_with(kept));
        assert_eq!(cut.unwrap().lines, 1);
        assert!(trim("short\n").1.is_none());
    }

    #[test]
    fn fences_outlast_any_backtick_run() {
        let mut out = Vec::new();
        md_fenced(&mut out, "text", "a ```` b\n`````\n").unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.starts_with("``````text\n"), "{out}");
        assert!(out.ends_with("\n``````\n\n"), "{out}");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x"), "`` `x ``");
        assert_eq!(
            md_inline("<b>*x*</b>\n# y"),
            "&lt;b\\>\\*x\\*&lt;/b\\> \\# y"
        );
    }

    #[test]
    fn open_fences_are_closed_and_html_is_escaped() {
        assert_eq!(
            md_contained("text\n```rust\nfn x() {}\n").unwrap(),
            "text\n```rust\nfn x() {}\n```\n"
        );
        assert_eq!(md_contained("~~~~\nx\n~~~~\n").unwrap(), "~~~~\nx\n~~~~\n");
        assert_eq!(
            md_contained("a <b>c</b> `<i>`").unwrap(),
            "a &lt;b>c&lt;/b> `<i>`"
        );
        // Tags only a browser or a lenient renderer reads, and an escaped `<` (not honoured
        // by every renderer); after an escaped backslash (`\\`) the `<` is escaped and the
        // backslashes stay. A `<` that cannot open a tag stays as written.
        assert_eq!(
            md_contained("<svg/onload=x> \\<img src=y> \\\\<b>").unwrap(),
            "&lt;svg/onload=x> &lt;img src=y> \\\\&lt;b>"
        );
        assert_eq!(md_contained("a < b, 1<2, <3").unwrap(), "a < b, 1<2, <3");
        // An unclosed comment would hide every later message in a viewer that passes HTML.
        assert_eq!(md_contained("<!-- x\n\ny").unwrap(), "&lt;!-- x\n\ny");
        // A fence hidden inside an HTML block becomes a real one once the block is escaped.
        let nested = md_contained("<div>\n```\nz\n").unwrap();
        assert!(nested.ends_with("```\nz\n```\n"), "{nested}");
    }
}
