//! The output contract: `agent-sessions.cli.v1` JSON envelopes, or text for people.

use agent_sessions_core::actions::resume::ResumeCommand;
use std::path::PathBuf;

use agent_sessions_core::index::SearchResults;
use agent_sessions_core::live::events::Event;
use agent_sessions_core::{
    Catalog, Diagnostics, Error, Library, Message, ProviderKind, ScanReport, SessionMeta,
};
use serde::Serialize;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::io::Write;

use crate::render;

pub const SCHEMA_VERSION: &str = "agent-sessions.cli.v1";

/// How the CLI names one of several sessions an id matches (the same session in two files).
const AMBIGUOUS_HINT: &str =
    " (to name one, give the path of its file in place of the id, e.g. `show FILE`)";

/// What a command produced: the JSON `data`, its text form, and warnings.
pub struct Envelope {
    data: Data,
    text: String,
    warnings: Vec<String>,
    error: Option<(String, String)>,
    /// Nothing left to print (streamed output).
    silent: bool,
}

impl Envelope {
    pub fn scan(report: ScanReport) -> Self {
        let text = render::session_table(&report.sessions, &report.diagnostics);
        Envelope {
            data: Data::Value(
                json!({ "sessions": report.sessions, "diagnostics": report.diagnostics }),
            ),
            text,
            warnings: Vec::new(),
            error: None,
            silent: false,
        }
    }

    /// A transcript, read as it is written out: each message is printed once nothing later can
    /// change it and then dropped (see `Catalog::load_each`), so `show` of a session of any size
    /// holds a bounded part of it, never the whole transcript, its text or a JSON tree of it.
    pub fn show(
        library: Library,
        session: SessionMeta,
        resume: Result<ResumeCommand, Error>,
    ) -> Self {
        Envelope::show_from(Box::new(library), session, resume)
    }

    /// A transcript from any source of messages (a remote's pages with `--host`), written out
    /// exactly as a local one.
    pub fn show_from(
        source: Box<dyn MessageSource>,
        session: SessionMeta,
        resume: Result<ResumeCommand, Error>,
    ) -> Self {
        Envelope {
            data: Data::Show(Box::new(Show {
                source,
                session,
                resume,
                failed: RefCell::new(None),
            })),
            text: String::new(),
            warnings: Vec::new(),
            error: None,
            silent: false,
        }
    }

    /// Hits, and how many sessions were read directly because the text index does not hold
    /// them yet (`partial` when some of those could not be read).
    pub fn search(results: SearchResults) -> Self {
        let text = render::hits(&results.hits);
        let mut out = Envelope::ok(json!(results), text);
        if results.partial {
            out.warnings.push(format!(
                "{} sessions could not be read: matches in them may be missing",
                results.unreadable
            ));
        }
        out
    }

    /// Adds `key` to the data (a field a command reports beside its results).
    pub fn add(&mut self, key: &str, value: Value) {
        if let Data::Value(Value::Object(map)) = &mut self.data {
            map.insert(key.to_owned(), value);
        }
    }

    pub fn diagnostics(
        diagnostics: Diagnostics,
        versions: Vec<(ProviderKind, String, u64)>,
    ) -> Self {
        let text = render::diagnostics(&diagnostics, &versions);
        let versions: Vec<Value> = versions
            .iter()
            .map(|(p, v, n)| json!({ "provider": p, "format_version": v, "sessions": n }))
            .collect();
        Envelope::ok(
            json!({ "parse_errors": diagnostics.parse_errors, "items": diagnostics.items, "format_versions": versions }),
            text,
        )
    }

    pub fn cache_path(path: PathBuf) -> Self {
        let text = format!("{}\n", path.display());
        Envelope::ok(json!({ "path": path }), text)
    }

    /// A document written to a file: where, its size, its format.
    pub fn exported(path: PathBuf, bytes: u64, format: &str) -> Self {
        let text = format!("wrote {} ({bytes} bytes)\n", path.display());
        Envelope::ok(
            json!({ "path": path, "bytes": bytes, "format": format }),
            text,
        )
    }

    pub fn cache_cleared(removed: Vec<PathBuf>) -> Self {
        let text = format!("removed {} cache files\n", removed.len());
        Envelope::ok(json!({ "removed": removed }), text)
    }

    pub fn events(events: Vec<Event>, cursor: u64) -> Self {
        let text: String = events
            .iter()
            .map(|e| render::event_line(e) + "\n")
            .collect();
        Envelope::ok(json!({ "events": events, "cursor": cursor }), text)
    }

    /// Output already printed as it came (`log --follow`).
    pub fn silent() -> Self {
        Envelope {
            data: Data::Value(Value::Null),
            text: String::new(),
            warnings: Vec::new(),
            error: None,
            silent: true,
        }
    }

    pub(crate) fn ok(data: Value, text: String) -> Self {
        Envelope {
            data: Data::Value(data),
            text,
            warnings: Vec::new(),
            error: None,
            silent: false,
        }
    }

    /// Data worth printing from a command that still failed (exit 2): `config check` of a
    /// broken file prints its problems.
    pub fn fail_with(mut self, code: &str, message: String) -> Self {
        self.error = Some((code.to_owned(), message));
        self
    }

    /// Whether the envelope reports an error (`ok: false`).
    pub fn has_error(&self) -> bool {
        self.error.is_some()
    }

    pub fn warn(&mut self, warnings: &[String]) {
        self.warnings.extend(warnings.iter().cloned());
    }

    pub fn failure(e: &Error) -> Self {
        Envelope::failure_coded(e.code(), e.to_string())
    }

    /// A failure with a code of its own (a remote's errors). An id that names more than one
    /// session also says how to name one: its file, in place of the id.
    pub fn failure_coded(code: &str, mut message: String) -> Self {
        if code == "ambiguous_id" {
            message.push_str(AMBIGUOUS_HINT);
        }
        Envelope {
            data: Data::Value(Value::Null),
            text: String::new(),
            warnings: Vec::new(),
            error: Some((code.to_owned(), message)),
            silent: false,
        }
    }

    /// Warns about requested providers this build cannot read yet.
    pub fn warn_unavailable(&mut self, catalog: &Catalog, requested: &[ProviderKind]) {
        for kind in requested {
            if catalog.providers().get(*kind).is_none() {
                self.warnings.push(format!(
                    "the {kind} provider is not available in this build yet"
                ));
            }
        }
    }

    pub fn print(&self, json: bool) {
        if self.silent {
            return;
        }
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        // A closed pipe (`show … | head`) is not an error worth reporting.
        let _ = if json {
            self.write_json(&mut out)
        } else {
            self.write_text(&mut out)
        };
        let _ = out.flush();
    }

    /// Why output that was streamed stopped part way (a transcript that could not be read).
    pub fn failed(&self) -> Option<Error> {
        match &self.data {
            Data::Show(show) => show.failed.borrow_mut().take(),
            Data::Value(_) => None,
        }
    }

    fn write_json(&self, out: &mut impl Write) -> std::io::Result<()> {
        let error = self
            .error
            .as_ref()
            .map(|(code, message)| json!({ "code": code, "message": message }));
        let envelope = Out {
            schema_version: SCHEMA_VERSION,
            ok: self.error.is_none(),
            data: &self.data,
            warnings: &self.warnings,
            error,
        };
        serde_json::to_writer_pretty(&mut *out, &envelope)?;
        writeln!(out)
    }

    fn write_text(&self, out: &mut impl Write) -> std::io::Result<()> {
        for w in &self.warnings {
            eprintln!("warning: {}", render::terminal_safe(w));
        }
        if let Some((_, message)) = &self.error {
            eprintln!("error: {}", render::terminal_safe(message));
            return Ok(());
        }
        match &self.data {
            Data::Show(show) => show.write_text(out),
            Data::Value(_) => out.write_all(render::terminal_safe(&self.text).as_bytes()),
        }
    }
}

/// A command's JSON data: a value, or a transcript streamed straight to the output.
enum Data {
    Value(Value),
    Show(Box<Show>),
}

impl Serialize for Data {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Data::Value(v) => v.serialize(s),
            Data::Show(show) => show.serialize(s),
        }
    }
}

/// Where `show` reads a transcript's messages from, one at a time.
pub trait MessageSource {
    fn each(
        &self,
        session: &SessionMeta,
        each: &mut dyn FnMut(Message),
    ) -> Result<Diagnostics, Error>;
}

impl MessageSource for Library {
    fn each(
        &self,
        session: &SessionMeta,
        each: &mut dyn FnMut(Message),
    ) -> Result<Diagnostics, Error> {
        self.catalog().load_each(session, each)
    }
}

/// `show`'s transcript, loaded while it is written.
struct Show {
    source: Box<dyn MessageSource>,
    session: SessionMeta,
    resume: Result<ResumeCommand, Error>,
    /// The error that stopped the stream, for the exit code.
    failed: RefCell<Option<Error>>,
}

impl Show {
    fn write_text(&self, out: &mut impl Write) -> std::io::Result<()> {
        render::transcript_header(out, &self.session, self.resume.as_ref())?;
        let mut written = Ok(());
        let read = self.source.each(&self.session, &mut |m| {
            if written.is_ok() && !m.meta {
                written = render::write_message(out, &m);
            }
        });
        if let Err(e) = read {
            *self.failed.borrow_mut() = Some(e);
        }
        written
    }

    fn resume_json(&self) -> Value {
        agent_sessions_remote::resume_json(self.resume.as_ref())
    }
}

/// The transcript's JSON (`session`, `messages`, `diagnostics`, as `Transcript` serializes)
/// plus `resume_command`, with the messages serialized as they are read.
impl Serialize for Show {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let diagnostics = RefCell::new(Diagnostics::default());
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("session", &self.session)?;
        map.serialize_entry(
            "messages",
            &Messages {
                show: self,
                diagnostics: &diagnostics,
            },
        )?;
        map.serialize_entry("diagnostics", &*diagnostics.borrow())?;
        map.serialize_entry("resume_command", &self.resume_json())?;
        map.end()
    }
}

struct Messages<'a> {
    show: &'a Show,
    diagnostics: &'a RefCell<Diagnostics>,
}

impl Serialize for Messages<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeSeq};
        let mut seq = s.serialize_seq(None)?;
        let mut written = Ok(());
        let show = self.show;
        let read = show.source.each(&show.session, &mut |m| {
            if written.is_ok() {
                written = seq.serialize_element(&m);
            }
        });
        written?;
        match read {
            Ok(d) => *self.diagnostics.borrow_mut() = d,
            Err(e) => {
                let message = e.to_string();
                *show.failed.borrow_mut() = Some(e);
                return Err(S::Error::custom(message));
            }
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct Out<'a> {
    schema_version: &'static str,
    ok: bool,
    data: &'a Data,
    warnings: &'a [String],
    error: Option<Value>,
}
