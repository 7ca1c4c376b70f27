//! GitHub Copilot CLI (`copilot`, npm `@github/copilot`): `~/.copilot` (`$COPILOT_HOME`), three
//! generations of store, all read:
//! - `session-state/<id>/events.jsonl` (+ `workspace.yaml`), since 0.0.378: an event log
//!   ([`events`]); the directory is `session.start`'s `context.cwd`, the title the session's
//!   name in `workspace.yaml` ([`workspace`]: the log never names it);
//! - `session-state/<id>.jsonl`, the same events in one flat file (0.0.342–0.0.377), whose
//!   `session.start` has no directory: the directory is the one the system prompt it keeps
//!   states ([`events::stated_cwd`]), else none (never guessed from a tool's path);
//! - `history-session-state/session_<id>_<ms>.json`, one document a session (≤ 0.0.341,
//!   [`history`]), with no directory field either: its system prompt's, likewise.
//!
//! Subagents (the `task` tool) run inside their parent's log and are shown there as
//! sidechains, not as sessions. `session-store.db` is the CLI's own index of the same
//! sessions (derived data, not read).

mod bundle;
pub mod events;
pub mod history;
mod launch;
#[cfg(test)]
mod props;
pub mod transcript;
mod trash;
pub mod workspace;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;
use crate::files::{self, FileSet, Kind, Tracked};
use crate::jsonl::Cursor;
use crate::{decode_state, encode_state, Provider, ProviderState, ScanOutput, ScanProgress};
use crate::{ids::is_uuid, SessionKey};
use agent_sessions_model::ResumeCommand;
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
    /// (size, mtime) of each folder session's `workspace.yaml`, by its log's path: a rename
    /// rewrites only that file, so a session whose log did not change is listed again when
    /// it changed.
    #[serde(with = "agent_sessions_model::path::os_keys")]
    workspaces: BTreeMap<PathBuf, (u64, i64)>,
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
            acc.cwd = history::cwd(&doc);
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
    meta.title = workspace_of(&f.path)
        .and_then(|p| workspace::name(&p))
        .and_then(|n| crate::title_from_text(&n, crate::TITLE_CHARS))
        .or_else(|| acc.first_prompt.clone());
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

/// The `workspace.yaml` beside a folder session's log (the flat logs and the history
/// documents have none).
fn workspace_of(log: &Path) -> Option<PathBuf> {
    let in_folder = log.file_name().is_some_and(|n| n == EVENTS);
    in_folder.then(|| log.with_file_name(workspace::FILE))
}

/// The stamp of each found folder session's `workspace.yaml` ((0, 0) while it is missing).
fn workspace_stamps(found: &[Found]) -> BTreeMap<PathBuf, (u64, i64)> {
    found
        .iter()
        .filter_map(|f| Some((f.path.clone(), workspace_of(&f.path)?)))
        .map(|(log, yaml)| (log, files::stat(&yaml).unwrap_or((0, 0))))
        .collect()
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
        let workspaces = workspace_stamps(&found);
        // Sessions whose name may have changed while their log did not.
        let renamed: Vec<Found> = found
            .iter()
            .filter(|f| workspaces.get(&f.path) != prev.workspaces.get(&f.path))
            .cloned()
            .collect();
        let r = files::refresh_all(found, |f| &f.path, &prev.files, progress, scan_file);
        let read: std::collections::HashSet<&Path> =
            r.changed.iter().map(|f| f.path.as_path()).collect();
        let emit = r
            .changed
            .iter()
            .chain(renamed.iter().filter(|f| !read.contains(f.path.as_path())));
        let mut out = ScanOutput::default();
        (out.changed, out.removed) = r.sessions(
            &prev.files,
            emit,
            |f| &f.path,
            |t| t.cursor.acc.events > 0,
            to_meta,
            |path, _| key_of(path, id_of_path(path)),
        );
        walker.report(ProviderKind::Copilot, &mut out.diagnostics);
        r.report_problems(ProviderKind::Copilot, &mut out.diagnostics);
        out.state = encode_state(&State {
            files: r.next,
            workspaces,
        });
        Ok(out)
    }

    transcript_methods!(transcript);

    /// An event log is append-only and read from any line start; a history document is
    /// rewritten whole.
    fn reads_in_part(&self, session: &SessionMeta) -> bool {
        !is_history(session)
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        self.roots
            .iter()
            .flat_map(|r| [r.join(SESSION_STATE), r.join(HISTORY)])
            .collect()
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

    /// A copy of the recorded 1.0.102 session `id` under a new root.
    fn recorded_session(id: &str) -> (tempfile::TempDir, PathBuf) {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/copilot/1.0.102/dot-copilot/session-state")
            .join(id);
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join(SESSION_STATE).join(id);
        std::fs::create_dir_all(&folder).unwrap();
        for name in [EVENTS, workspace::FILE] {
            std::fs::copy(fixture.join(name), folder.join(name)).unwrap();
        }
        (root, folder)
    }

    /// The session's name in `workspace.yaml` is its title, as `copilot -n` (1.0.102, run
    /// offline) wrote it: `name: 'Мой проект: it''s named #1'` with `user_named: true`, and
    /// nothing of it in the log. A later rename rewrites only that file: the next scan lists
    /// the session again with the new title. Without the file the title is the first prompt.
    #[test]
    fn a_renamed_session_shows_its_name() {
        let id = "8c6f5941-1ddf-46c3-927e-c21669d3b25a";
        let (root, folder) = recorded_session(id);
        let provider = CopilotProvider::new(vec![root.path().to_path_buf()]);
        let yaml = folder.join(workspace::FILE);
        let named = std::fs::read_to_string(&yaml).unwrap().replace(
            "name: Привет, 世界! Что здесь? [[say Здравствуйте 👋 — всё в порядке]]\nuser_named: false",
            "name: 'Мой проект: it''s named #1'\nuser_named: true",
        );
        std::fs::write(&yaml, named).unwrap();
        let first = provider.scan(&Vec::new(), &Default::default()).unwrap();
        let titles = |out: &ScanOutput| -> Vec<Option<String>> {
            out.changed.iter().map(|s| s.title.clone()).collect()
        };
        assert_eq!(titles(&first), [Some("Мой проект: it's named #1".into())]);

        // `/rename` (`session.name.set`) rewrites the file, not the log.
        let renamed = std::fs::read_to_string(&yaml)
            .unwrap()
            .replace("'Мой проект: it''s named #1'", "\"Renamed \\u00e9\"");
        std::fs::write(&yaml, renamed).unwrap();
        let second = provider.scan(&first.state, &Default::default()).unwrap();
        assert_eq!(titles(&second), [Some("Renamed é".into())]);
        let third = provider.scan(&second.state, &Default::default()).unwrap();
        assert!(third.changed.is_empty() && third.removed.is_empty());

        std::fs::remove_file(&yaml).unwrap();
        let fourth = provider.scan(&third.state, &Default::default()).unwrap();
        let prompt = "Привет, 世界! Что здесь? [[say Здравствуйте 👋 — всё в порядке]]";
        assert_eq!(titles(&fourth), [Some(prompt.into())]);
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
