//! The output contract: `agent-sessions.cli.v1` JSON envelopes, or text for people.

use agent_sessions_core::actions::resume::ResumeCommand;
use std::path::PathBuf;

use agent_sessions_core::index::Hit;
use agent_sessions_core::live::events::Event;
use agent_sessions_core::{Catalog, Diagnostics, Error, ProviderKind, ScanReport, Transcript};
use serde::Serialize;
use serde_json::{json, Value};
use std::io::Write;

use crate::render;

pub const SCHEMA_VERSION: &str = "agent-sessions.cli.v1";

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

    /// A transcript, printed as it is written out: no second copy of it (as text or as a JSON
    /// tree) is ever held, so `show` of a big session costs the transcript and no more.
    pub fn show(transcript: Transcript, resume: Result<ResumeCommand, Error>) -> Self {
        Envelope {
            data: Data::Transcript(Box::new(transcript), resume),
            text: String::new(),
            warnings: Vec::new(),
            error: None,
            silent: false,
        }
    }

    pub fn search(hits: Vec<Hit>) -> Self {
        let text = render::hits(&hits);
        Envelope::ok(json!({ "hits": hits }), text)
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

    fn ok(data: Value, text: String) -> Self {
        Envelope {
            data: Data::Value(data),
            text,
            warnings: Vec::new(),
            error: None,
            silent: false,
        }
    }

    pub fn warn(&mut self, warnings: &[String]) {
        self.warnings.extend(warnings.iter().cloned());
    }

    pub fn failure(e: &Error) -> Self {
        Envelope {
            data: Data::Value(Value::Null),
            text: String::new(),
            warnings: Vec::new(),
            error: Some((e.code().to_owned(), e.to_string())),
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
            Data::Transcript(t, resume) => render::write_transcript(out, t, resume.as_ref()),
            Data::Value(_) => out.write_all(render::terminal_safe(&self.text).as_bytes()),
        }
    }
}

/// A command's JSON data: a value, or a transcript serialized straight to the output.
enum Data {
    Value(Value),
    Transcript(Box<Transcript>, Result<ResumeCommand, Error>),
}

impl Serialize for Data {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Data::Value(v) => v.serialize(s),
            Data::Transcript(t, resume) => ShowData {
                transcript: t,
                resume_command: match resume {
                    Ok(resume) => json!({
                        "argv": std::iter::once(resume.program()).chain(resume.args().iter().map(String::as_str)).collect::<Vec<_>>(),
                        "cwd": resume.cwd(),
                        "shell": resume.for_this_platform(),
                    }),
                    Err(e) => json!({ "error": { "code": e.code(), "message": e.to_string() } }),
                },
            }
            .serialize(s),
        }
    }
}

#[derive(Serialize)]
struct ShowData<'a> {
    #[serde(flatten)]
    transcript: &'a Transcript,
    resume_command: Value,
}

#[derive(Serialize)]
struct Out<'a> {
    schema_version: &'static str,
    ok: bool,
    data: &'a Data,
    warnings: &'a [String],
    error: Option<Value>,
}
