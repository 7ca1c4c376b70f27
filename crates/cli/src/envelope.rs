//! The output contract: `agent-sessions.cli.v1` JSON envelopes, or text for people.

use agent_sessions_core::actions::resume::ResumeCommand;
use std::path::PathBuf;

use agent_sessions_core::index::Hit;
use agent_sessions_core::live::events::Event;
use agent_sessions_core::{Catalog, Diagnostics, Error, ProviderKind, ScanReport, Transcript};
use serde_json::{json, Value};

use crate::render;

pub const SCHEMA_VERSION: &str = "agent-sessions.cli.v1";

/// What a command produced: the JSON `data`, its text form, and warnings.
pub struct Envelope {
    data: Value,
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
            data: json!({ "sessions": report.sessions, "diagnostics": report.diagnostics }),
            text,
            warnings: Vec::new(),
            error: None,
            silent: false,
        }
    }

    pub fn show(transcript: Transcript, resume: ResumeCommand) -> Self {
        let text = render::transcript(&transcript, &resume);
        let mut data = serde_json::to_value(&transcript).unwrap_or(Value::Null);
        data["resume_command"] = json!({
            "argv": std::iter::once(&resume.program).chain(&resume.args).collect::<Vec<_>>(),
            "cwd": resume.cwd,
            "shell": resume.for_this_platform(),
        });
        Envelope {
            data,
            text,
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
            data: Value::Null,
            text: String::new(),
            warnings: Vec::new(),
            error: None,
            silent: true,
        }
    }

    fn ok(data: Value, text: String) -> Self {
        Envelope {
            data,
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
            data: Value::Null,
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
        if json {
            let mut out = json!({
                "schema_version": SCHEMA_VERSION,
                "ok": self.error.is_none(),
                "data": self.data,
                "warnings": self.warnings,
                "error": null,
            });
            if let Some((code, message)) = &self.error {
                out["error"] = json!({ "code": code, "message": message });
            }
            println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            return;
        }
        for w in &self.warnings {
            eprintln!("warning: {w}");
        }
        match &self.error {
            Some((_, message)) => eprintln!("error: {message}"),
            None => print!("{}", self.text),
        }
    }
}
