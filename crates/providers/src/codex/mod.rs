//! Codex CLI (SPEC §4.2): rollouts under `sessions/YYYY/MM/DD/` and `archived_sessions/`, in
//! every generation (legacy bare JSONL before 0.34, the `{timestamp,type,payload}` envelope
//! after, the TypeScript CLI's single `rollout-*.json`), with `state_<N>.sqlite` and
//! `session_index.jsonl` laid over them for titles, renames, archive flags and subagent edges.
//! The rollouts stay the source of truth for transcripts and counts.

pub mod bundle;
mod launch;
mod patch;
pub mod records;
pub mod scan;
pub mod statedb;
pub(crate) mod transcript;
mod trash;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use self::records::Line;
use self::scan::{Accumulator, Cursor};
use self::statedb::StateDb;
use crate::error::Error;
use crate::files::{self, FileSet, Tracked};
use crate::ids;
use crate::{
    decode_state, encode_state, title_from_text, Provider, ProviderState, ScanOutput, ScanProgress,
    SessionKey, TITLE_CHARS,
};
use agent_sessions_model::ResumeCommand;
use agent_sessions_model::{Diagnostic, ProviderKind, SessionMeta, Transcript};

pub struct CodexProvider {
    roots: Vec<PathBuf>,
}

/// A rollout found under a root.
#[derive(Debug, Clone)]
struct Found {
    path: PathBuf,
    root: PathBuf,
    archived: bool,
}

/// What the state DB and the session index of one root said, and when they last changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Overlay {
    /// (size, mtime) of the DB, its WAL, and the session index.
    stamps: Vec<(u64, i64)>,
    db: Option<StateDb>,
    db_error: Option<String>,
    /// Renames from `session_index.jsonl`: id → name, last one wins.
    names: BTreeMap<String, String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    #[serde(with = "agent_sessions_model::path::os_keys")]
    files: FileSet<Cursor>,
    #[serde(with = "agent_sessions_model::path::os_keys")]
    overlays: BTreeMap<PathBuf, Overlay>,
}

impl CodexProvider {
    pub fn new(roots: Vec<PathBuf>) -> Self {
        CodexProvider { roots }
    }

    /// Every rollout under the roots; what could not be listed goes to `walker`.
    fn discover(&self, walker: &mut files::Walker) -> Vec<Found> {
        let mut out = Vec::new();
        for root in &self.roots {
            for (dir, archived) in [("sessions", false), ("archived_sessions", true)] {
                for path in walker.files(&root.join(dir), is_rollout_name) {
                    out.push(Found {
                        path,
                        root: root.clone(),
                        archived,
                    });
                }
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }
}

fn is_rollout_name(name: &str) -> bool {
    name.starts_with("rollout-") && (name.ends_with(".jsonl") || name.ends_with(".json"))
}

/// The items of an old TypeScript-CLI rollout `{session, items}` (small by nature: it predates
/// long sessions; one larger than [`files::MAX_DOCUMENT`] is an error), with the session object
/// first.
fn legacy_json_items(path: &Path) -> Result<Vec<Value>, Error> {
    #[derive(Deserialize)]
    struct File {
        #[serde(default)]
        session: Value,
        #[serde(default)]
        items: Vec<Value>,
    }
    let bytes = files::read_document(path, files::MAX_DOCUMENT).map_err(|e| Error::io(path, e))?;
    let file: File = serde_json::from_slice(&bytes).map_err(|e| {
        Error::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
        )
    })?;
    let mut items = vec![file.session];
    items.extend(file.items);
    Ok(items)
}

fn scan_legacy_json(path: &Path) -> std::io::Result<Cursor> {
    let mut cursor = Cursor::default();
    match legacy_json_items(path) {
        Ok(items) => {
            for item in &items {
                if let Ok(line) = Line::deserialize(item) {
                    cursor.acc.add(&line);
                }
            }
        }
        Err(e) => cursor.problems.push(1, e.to_string()),
    }
    cursor.offset = std::fs::metadata(path)?.len();
    Ok(cursor)
}

fn read_file(found: &Found, cursor: Cursor) -> std::io::Result<Cursor> {
    if transcript::is_single_json(&found.path) {
        scan_legacy_json(&found.path)
    } else {
        scan::scan_file(&found.path, cursor)
    }
}

/// `rollout-<timestamp>-<uuid>.jsonl` → the uuid.
fn id_from_name(path: &Path) -> String {
    let mut stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The last 36 characters (not bytes: a renamed file may end in any text).
    match stem.char_indices().rev().nth(35) {
        Some((start, _)) => stem.split_off(start),
        None => stem,
    }
}

fn session_id(acc: &Accumulator, path: &Path) -> String {
    acc.id.clone().unwrap_or_else(|| id_from_name(path))
}

fn stamps(root: &Path, db: Option<&Path>) -> Vec<(u64, i64)> {
    let mut paths = vec![root.join("session_index.jsonl")];
    paths.extend(db.into_iter().flat_map(crate::sqlite::with_wal));
    files::stamps(&paths)
}

/// Re-reads the overlay of `root` when its files changed since `prev`.
fn overlay(root: &Path, prev: Option<&Overlay>) -> (Overlay, bool) {
    let db_path = statedb::find(root);
    let now = stamps(root, db_path.as_deref());
    if let Some(prev) = prev.filter(|p| p.stamps == now) {
        return (prev.clone(), false);
    }
    let mut o = Overlay {
        stamps: now,
        ..Overlay::default()
    };
    if let Some(db) = db_path {
        match statedb::read(&db) {
            Ok(d) => o.db = Some(d),
            Err(e) => o.db_error = Some(e),
        }
    }
    o.names = read_session_index(&root.join("session_index.jsonl"));
    (o, true)
}

/// `session_index.jsonl`: `{id, thread_name, updated_at}` per rename; the last one wins.
fn read_session_index(path: &Path) -> BTreeMap<String, String> {
    #[derive(Deserialize)]
    struct Entry {
        id: Option<String>,
        thread_name: Option<String>,
    }
    let mut names = BTreeMap::new();
    let Ok(mut reader) = crate::jsonl::LineReader::open_at(path, 0, 0) else {
        return names;
    };
    while let Ok(Some(line)) = reader.next_line() {
        if let Ok(Entry {
            id: Some(id),
            thread_name: Some(name),
        }) = serde_json::from_slice(line.bytes)
        {
            names.insert(id, name);
        }
    }
    names
}

fn parse_time(raw: Option<&str>) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(raw?)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

fn to_meta(found: &Found, state: &Tracked<Cursor>, overlay: Option<&Overlay>) -> SessionMeta {
    let acc = &state.cursor.acc;
    let id = session_id(acc, &found.path);
    let thread = overlay
        .and_then(|o| o.db.as_ref())
        .and_then(|d| d.threads.get(&id));
    let mut meta = SessionMeta::new(ProviderKind::Codex, id.clone(), found.path.clone());
    meta.parent_id = acc.parent_id.clone().or_else(|| {
        overlay
            .and_then(|o| o.db.as_ref())
            .and_then(|d| d.parents.get(&id).cloned())
    });
    meta.forked_from = acc.forked_from.clone();
    meta.cwd = acc
        .cwd
        .clone()
        .or_else(|| thread.and_then(|t| t.cwd.clone()));
    meta.git_branch = acc
        .git_branch
        .clone()
        .or_else(|| thread.and_then(|t| t.git_branch.clone()));
    let rename = overlay.and_then(|o| o.names.get(&id)).cloned();
    meta.title = rename
        .or_else(|| thread.and_then(|t| t.name.clone()))
        .or_else(|| thread.and_then(|t| t.title.clone()))
        .or_else(|| acc.first_prompt().map(str::to_owned))
        .or_else(|| acc.nickname.clone())
        .and_then(|t| title_from_text(&t, TITLE_CHARS));
    meta.model = acc
        .model
        .clone()
        .or_else(|| thread.and_then(|t| t.model.clone()));
    meta.created_at = parse_time(acc.created.as_deref().or(acc.first_timestamp.as_deref()));
    meta.updated_at = parse_time(acc.last_timestamp.as_deref())
        .or_else(|| Some(DateTime::<Utc>::from_timestamp_nanos(state.stamp.mtime_ns)));
    meta.counts = acc.counts();
    meta.tokens = acc.tokens;
    meta.archived = found.archived || thread.is_some_and(|t| t.archived);
    meta.format_version = acc.version.clone();
    meta
}

/// Diagnostics for what the overlay says but the files do not back.
fn overlay_diagnostics(
    root: &Path,
    o: &Overlay,
    files: &FileSet<Cursor>,
    ids: &[String],
    out: &mut ScanOutput,
) {
    if let Some(e) = &o.db_error {
        out.diagnostics.push(Diagnostic {
            provider: ProviderKind::Codex,
            path: statedb::find(root).unwrap_or_else(|| root.to_path_buf()),
            line: None,
            reason: format!("state DB unreadable, titles and archive flags may be missing: {e}"),
        });
    }
    let Some(db) = &o.db else {
        return;
    };
    for (id, thread) in &db.threads {
        let Some(recorded) = &thread.rollout_path else {
            continue;
        };
        let local = statedb::local_rollout(root, recorded);
        if !files.contains_key(&local) && !ids.contains(id) {
            out.diagnostics.push(Diagnostic {
                provider: ProviderKind::Codex,
                path: db.path.clone(),
                line: None,
                reason: format!(
                    "thread {id} points to rollout {}, which is missing; the session cannot be shown",
                    local.display()
                ),
            });
        }
    }
}

impl Provider for CodexProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Codex
    }

    fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn detect(&self) -> bool {
        self.roots.iter().any(|r| {
            crate::is_dir(&r.join("sessions")) || crate::is_dir(&r.join("archived_sessions"))
        })
    }

    fn scan(&self, prev: &ProviderState, progress: &ScanProgress) -> Result<ScanOutput, Error> {
        let prev: State = decode_state(prev).unwrap_or_default();
        let mut overlays = BTreeMap::new();
        let mut overlay_changed = false;
        for root in &self.roots {
            let (o, changed) = overlay(root, prev.overlays.get(root));
            overlay_changed |= changed;
            overlays.insert(root.clone(), o);
        }
        let mut walker = files::Walker::default();
        let found = self.discover(&mut walker);
        let r = files::refresh_all(found.clone(), |f| &f.path, &prev.files, progress, read_file);
        let mut out = ScanOutput::default();
        // A changed overlay (rename, archive, new DB rows) can change any session's metadata.
        let emit = if overlay_changed { &found } else { &r.changed };
        (out.changed, out.removed) = r.sessions(
            &prev.files,
            emit,
            |f| &f.path,
            |t| t.cursor.acc.records > 0,
            |f, state| to_meta(f, state, overlays.get(&f.root)),
            |path, before| key_of(path, &before.cursor.acc),
        );
        walker.report(ProviderKind::Codex, &mut out.diagnostics);
        r.report_problems(ProviderKind::Codex, &mut out.diagnostics);
        let ids: Vec<String> = r
            .next
            .iter()
            .map(|(p, t)| session_id(&t.cursor.acc, p))
            .collect();
        for (root, o) in &overlays {
            overlay_diagnostics(root, o, &r.next, &ids, &mut out);
        }
        out.state = encode_state(&State {
            files: r.next,
            overlays,
        });
        Ok(out)
    }

    transcript_methods!(transcript);

    fn reads_in_part(&self, session: &SessionMeta) -> bool {
        !transcript::is_single_json(&session.source_path)
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        let mut paths = Vec::new();
        for r in &self.roots {
            paths.push(r.join("sessions"));
            paths.push(r.join("archived_sessions"));
            paths.push(r.join("session_index.jsonl"));
            paths.extend(
                statedb::find(r)
                    .iter()
                    .flat_map(|db| crate::sqlite::with_wal(db)),
            );
        }
        paths
    }

    fn resume_command(&self, session: &SessionMeta) -> Result<ResumeCommand, Error> {
        if !ids::is_uuid(&session.id) {
            return Err(ids::invalid_id(ProviderKind::Codex, &session.id));
        }
        ResumeCommand::new(
            AGENT.program,
            &["resume", &session.id],
            session.cwd.as_deref(),
        )
        .map_err(Error::from)
    }
}

fn key_of(path: &Path, acc: &Accumulator) -> SessionKey {
    SessionKey {
        provider: ProviderKind::Codex,
        id: session_id(acc, path),
        source_path: path.to_path_buf(),
    }
}

/// Codex CLI in the registry (`crate::registry::AGENTS`).
pub static AGENT: crate::registry::Agent = crate::registry::Agent {
    kind: ProviderKind::Codex,
    label: "Codex CLI",
    program: "codex",
    env_var: "CODEX_HOME",
    env_subdir: None,
    // The same on all three systems (`%USERPROFILE%\.codex` on Windows).
    home_store: |_| &[".codex"],
    fixture_store: "dot-codex",
    colours: [["#dde8dd", "#2f5d2f"], ["#24392a", "#b5dcb7"]],
    provider: |roots| Box::new(CodexProvider::new(roots)),

    // Trash and delete, and ids.
    session_id: ids::is_uuid,
    subagent_id: None,
    trash: trash::TRASH,
    // Launch (capability::launch).
    launch: launch::LAUNCH,
    worktrees: crate::capability::launch::Worktrees::NONE,
    plan_tools: launch::PLAN_TOOLS,
    // Bundles: export, restore and the resume check.
    bundles: bundle::BUNDLES,
    which_copy: None,
};

#[cfg(test)]
mod tests {
    /// A session written to just now is live while a `codex` process runs; an old one is not.
    #[cfg(target_os = "linux")]
    #[test]
    fn sessions_are_live_while_codex_runs_and_they_were_just_written() {
        crate::process::live_while_running(&super::AGENT);
    }
}
