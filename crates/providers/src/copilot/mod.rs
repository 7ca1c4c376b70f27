//! GitHub Copilot CLI (`copilot`, npm `@github/copilot`): `~/.copilot` (`$COPILOT_HOME`), three
//! generations of store, all read:
//! - `session-state/<id>/events.jsonl` (+ `workspace.yaml`), since 0.0.378: an event log
//!   ([`events`]); the directory is `session.start`'s `context.cwd`;
//! - `session-state/<id>.jsonl`, the same events in one flat file (0.0.342–0.0.377), whose
//!   `session.start` has no directory: none is shown (never guessed);
//! - `history-session-state/session_<id>_<ms>.json`, one document a session (≤ 0.0.341,
//!   [`history`]), with no directory either.
//!
//! Subagents (the `task` tool) run inside their parent's log and are shown there as
//! sidechains, not as sessions. `session-store.db` is the CLI's own index of the same
//! sessions (derived data, not read).

mod bundle;
pub mod events;
pub mod history;
mod launch;
mod trash;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::blob::{self, BlobKey};
use crate::error::Error;
use crate::files::{self, FileSet, Kind, Tracked};
use crate::jsonl::Cursor;
use crate::{decode_state, encode_state, Provider, ProviderState, ScanOutput, ScanProgress};
use crate::{ids::is_uuid, SessionKey};
use agent_sessions_model::{Diagnostic, Diagnostics, ResumeCommand};
use agent_sessions_model::{ProviderKind, SessionMeta, Transcript};

use self::events::Acc;

pub struct CopilotProvider {
    roots: Vec<PathBuf>,
}

/// A session file and its generation.
#[derive(Debug, Clone)]
struct Found {
    path: PathBuf,
    id: String,
    /// A ≤ 0.0.341 history document (else an event log).
    history: bool,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    #[serde(with = "agent_sessions_model::path::os_keys")]
    files: FileSet<Cursor<Acc>>,
}

/// The event log's name in a session folder.
const EVENTS: &str = "events.jsonl";
/// Where the event logs are, below the root.
const SESSION_STATE: &str = "session-state";
/// Where the ≤ 0.0.341 documents are, below the root.
const HISTORY: &str = "history-session-state";

/// Every session file under `root`: each folder `session-state/<uuid>/` with its
/// `events.jsonl`, each flat `session-state/<uuid>.jsonl`, each
/// `history-session-state/session_<id>_<ms>.json`.
fn discover(root: &Path, walker: &mut files::Walker) -> Vec<Found> {
    let mut out = Vec::new();
    for e in walker.entries(&root.join(SESSION_STATE)) {
        if is_uuid(&e.name) {
            if walker.descend(&e) {
                let path = e.path.join(EVENTS);
                let entries = walker.entries(&e.path);
                if let Some(log) = entries.iter().find(|x| x.name == EVENTS) {
                    if walker.is(log, Kind::File) {
                        out.push(found(path, &e.name, false));
                    }
                }
            }
        } else if let Some(id) = e.name.strip_suffix(".jsonl").filter(|id| is_uuid(id)) {
            if walker.is(&e, Kind::File) {
                out.push(found(e.path.clone(), id, false));
            }
        }
    }
    for e in walker.entries(&root.join(HISTORY)) {
        if let Some((id, _)) = history::parse_name(&e.name) {
            if walker.is(&e, Kind::File) {
                out.push(found(e.path.clone(), id, true));
            }
        }
    }
    out
}

fn found(path: PathBuf, id: &str, history: bool) -> Found {
    Found {
        path,
        id: id.to_owned(),
        history,
    }
}

pub(crate) fn parse_time(raw: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(raw)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The history document at `path`, or why it is none.
fn read_history(path: &Path) -> Result<Value, String> {
    let bytes = files::read_document(path, files::MAX_DOCUMENT).map_err(|e| e.to_string())?;
    let doc: Value = crate::jsonl::parse_line(&bytes)?;
    if !doc.is_object() {
        return Err("not a JSON object".into());
    }
    Ok(doc)
}

/// A history document's running totals: it is rewritten whole, so read whole each time.
fn scan_history(path: &Path) -> Cursor<Acc> {
    let mut cursor = Cursor::<Acc>::default();
    match read_history(path) {
        Ok(doc) => {
            let messages = history::messages(&doc);
            let acc = &mut cursor.acc;
            acc.events = 1;
            acc.session_id = doc
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned);
            acc.counts = agent_sessions_model::Counts::of(&messages);
            acc.first_prompt = history::title(&doc);
            acc.model = doc
                .get("selectedModel")
                .and_then(Value::as_str)
                .map(str::to_owned);
            acc.first_timestamp = doc
                .get("startTime")
                .and_then(Value::as_str)
                .map(str::to_owned);
            acc.last_timestamp = history::last_time(&doc).map(str::to_owned);
        }
        Err(reason) => cursor.problems.push(1, reason),
    }
    cursor
}

fn scan_file(f: &Found, cursor: Cursor<Acc>) -> std::io::Result<Cursor<Acc>> {
    if f.history {
        return Ok(scan_history(&f.path));
    }
    crate::jsonl::fold_file(&f.path, cursor, |acc, line| acc.add_line(line))
}

fn to_meta(f: &Found, state: &Tracked<Cursor<Acc>>) -> SessionMeta {
    let acc = &state.cursor.acc;
    let mut meta = SessionMeta::new(ProviderKind::Copilot, f.id.clone(), f.path.clone());
    meta.cwd = acc.cwd.clone();
    meta.title = acc.first_prompt.clone();
    meta.model = acc.model.clone();
    meta.created_at = acc.first_timestamp.as_deref().and_then(parse_time);
    meta.updated_at = acc
        .last_timestamp
        .as_deref()
        .and_then(parse_time)
        .or_else(|| DateTime::<Utc>::from_timestamp_nanos(state.stamp.mtime_ns).into());
    meta.counts = acc.counts;
    meta.tokens = acc.saw_usage.then_some(acc.tokens);
    meta.format_version = acc.version.clone();
    meta
}

fn key_of(f: &Path, id: String) -> SessionKey {
    SessionKey {
        provider: ProviderKind::Copilot,
        id,
        source_path: f.to_path_buf(),
    }
}

/// The id a session file has by its name.
fn id_of_path(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == EVENTS {
        let folder = path.parent().and_then(Path::file_name);
        return folder
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    if let Some((id, _)) = history::parse_name(&name) {
        return id.to_owned();
    }
    name.trim_end_matches(".jsonl").to_owned()
}

impl CopilotProvider {
    pub fn new(roots: Vec<PathBuf>) -> Self {
        CopilotProvider { roots }
    }
}

/// The transcript of an event log.
fn load_events(session: &SessionMeta) -> Result<Transcript, Error> {
    let mut builder = events::Builder::default();
    let path = &session.source_path;
    let mut skipped = Diagnostics::default();
    let mut diagnostics =
        crate::jsonl::for_each_record(ProviderKind::Copilot, path, |value, offset, line| {
            if let Err(reason) = builder.add(value, offset, line) {
                skipped.push(Diagnostic {
                    provider: ProviderKind::Copilot,
                    path: path.clone(),
                    line: Some(line),
                    reason,
                });
            }
        })?;
    diagnostics.merge(&skipped);
    Ok(crate::build::transcript(
        session,
        builder.messages,
        diagnostics,
    ))
}

fn load_history(session: &SessionMeta) -> Result<Transcript, Error> {
    let path = &session.source_path;
    let doc = read_history(path).map_err(|reason| {
        Error::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, reason),
        )
    })?;
    let messages = history::messages(&doc);
    Ok(crate::build::transcript(
        session,
        messages,
        Diagnostics::default(),
    ))
}

fn is_history(session: &SessionMeta) -> bool {
    session.source_path.extension().is_some_and(|e| e == "json")
}

impl Provider for CopilotProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Copilot
    }

    fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn detect(&self) -> bool {
        self.roots
            .iter()
            .any(|r| crate::is_dir(&r.join(SESSION_STATE)) || crate::is_dir(&r.join(HISTORY)))
    }

    fn scan(&self, prev: &ProviderState, progress: &ScanProgress) -> Result<ScanOutput, Error> {
        let prev: State = decode_state(prev).unwrap_or_default();
        let mut walker = files::Walker::default();
        let found: Vec<Found> = self
            .roots
            .iter()
            .flat_map(|r| discover(r, &mut walker))
            .collect();
        let r = files::refresh_all(found, |f| &f.path, &prev.files, progress, scan_file);
        let mut out = ScanOutput::default();
        (out.changed, out.removed) = r.sessions(
            &prev.files,
            &r.changed,
            |f| &f.path,
            |t| t.cursor.acc.events > 0,
            to_meta,
            |path, _| key_of(path, id_of_path(path)),
        );
        walker.report(ProviderKind::Copilot, &mut out.diagnostics);
        r.report_problems(ProviderKind::Copilot, &mut out.diagnostics);
        out.state = encode_state(&State { files: r.next });
        Ok(out)
    }

    fn load(&self, session: &SessionMeta) -> Result<Transcript, Error> {
        if is_history(session) {
            load_history(session)
        } else {
            load_events(session)
        }
    }

    /// A tool output longer than the transcript keeps: the result in the event at its offset.
    fn blob(&self, session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error> {
        let missing = |reason: &str| blob::not_found(session, key, reason);
        let BlobKey::ToolResult { offset, call } = blob::parse(session, key)? else {
            return Err(missing("unknown blob kind"));
        };
        let path = &session.source_path;
        let mut reader =
            crate::jsonl::LineReader::open_at(path, offset, 0).map_err(|e| Error::io(path, e))?;
        let line = reader.next_line().map_err(|e| Error::io(path, e))?;
        let event: Value = line
            .and_then(|l| crate::jsonl::parse_line(l.bytes).ok())
            .ok_or_else(|| missing("no event at that offset"))?;
        let data = &event["data"];
        if data.get("toolCallId").and_then(Value::as_str) != Some(call.as_str()) {
            return Err(missing("no result of that call at that offset"));
        }
        events::result_text(data)
            .map(String::into_bytes)
            .ok_or_else(|| missing("the result has no text"))
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        self.roots
            .iter()
            .flat_map(|r| [r.join(SESSION_STATE), r.join(HISTORY)])
            .collect()
    }

    /// Its lock files are empty and stay after it exits, so the evidence is Codex's: a
    /// `copilot` process runs and the session was written to in the last two minutes.
    fn live_sessions(&self, sessions: &[&SessionMeta]) -> Vec<crate::LiveSession> {
        crate::process::recently_active(AGENT.program, sessions)
    }

    fn resume_command(&self, session: &SessionMeta) -> Result<ResumeCommand, Error> {
        // `copilot --resume <id>` takes the session's UUID; anything else is refused.
        if !is_uuid(&session.id) {
            return Err(crate::ids::invalid_id(ProviderKind::Copilot, &session.id));
        }
        ResumeCommand::new(
            AGENT.program,
            &["--resume", &session.id],
            session.cwd.as_deref(),
        )
        .map_err(Error::from)
    }
}

/// GitHub Copilot CLI in the registry (`crate::registry::AGENTS`).
pub static AGENT: crate::registry::Agent = crate::registry::Agent {
    kind: ProviderKind::Copilot,
    label: "GitHub Copilot CLI",
    program: "copilot",
    env_var: "COPILOT_HOME",
    env_subdir: None,
    // The same on all three systems (`%USERPROFILE%\.copilot` on Windows).
    home_store: |_| &[".copilot"],
    fixture_store: "dot-copilot",
    colours: [["#dde4f7", "#27408f"], ["#27314d", "#b9c8f2"]],
    provider: |roots| Box::new(CopilotProvider::new(roots)),

    // Trash and delete, and ids.
    session_id: is_uuid,
    subagent_id: None,
    trash: trash::TRASH,
    // Launch (capability::launch).
    launch: launch::LAUNCH,
    worktrees: launch::WORKTREES,
    plan_tools: launch::PLAN_TOOLS,
    // Bundles: export and restore.
    bundles: bundle::BUNDLES,
    which_copy: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// A session written to just now is live while a `copilot` process runs; an old one is
    /// not.
    #[cfg(target_os = "linux")]
    #[test]
    fn sessions_are_live_while_copilot_runs_and_they_were_just_written() {
        crate::process::live_while_running(&AGENT);
    }

    #[test]
    fn resume_is_copilot_resume_with_the_id_in_its_directory() {
        let provider = CopilotProvider::new(Vec::new());
        let id = "373a9440-329a-4fec-b25e-02d27d658ae7";
        let mut s = SessionMeta::new(ProviderKind::Copilot, id.into(), PathBuf::new());
        s.cwd = Some("/home/bob/p".into());
        let cmd = provider.resume_command(&s).unwrap();
        assert_eq!(cmd.program(), "copilot");
        assert_eq!(cmd.args(), ["--resume", id]);
        assert_eq!(cmd.cwd(), Some("/home/bob/p"));
        s.id = "--help".into();
        assert!(provider.resume_command(&s).is_err());
    }
}
