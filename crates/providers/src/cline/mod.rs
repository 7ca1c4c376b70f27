//! Cline (docs/formats.md, "Cline"): the CLI's `~/.cline` (`data/` in it) and the VS Code
//! extension's `globalStorage/saoudrizwan.claude-dev` folder (the same layout without `data/`).
//! Two generations can sit side by side: 3.x sessions (`sessions/<id>/`, [`v3`]) and 2.x / the
//! extension's tasks (`tasks/<id>/` + `state/taskHistory.json`, [`v2`]). The files are what is
//! read; 3.x's `db/sessions.db` is its index of them, which the actions keep in step.

mod bundle;
mod ids;
mod index;
mod launch;
mod parts;
mod restore;
mod trash;
mod v2;
mod v3;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::blob::{self, BlobKey};
use crate::error::Error;
use crate::files::{self, Kind, Walker};
use crate::registry::AND;
use crate::{
    decode_state, encode_state, title_from_text, Provider, ProviderState, ScanOutput, ScanProgress,
    SessionKey, TITLE_CHARS,
};
use agent_sessions_model::{
    Counts, Diagnostics, Os, ProviderKind, ResumeCommand, SessionMeta, Transcript,
};
use index::history_path;
use parts::{str_of, time_of_ms, time_of_text};
use v3::Conversation;

const KIND: ProviderKind = ProviderKind::Cline;

/// The VS Code extension's id: its folder in VS Code's `globalStorage`.
const EXTENSION: &str = "saoudrizwan.claude-dev";

pub struct ClineProvider {
    roots: Vec<PathBuf>,
}

impl ClineProvider {
    pub fn new(roots: Vec<PathBuf>) -> Self {
        ClineProvider { roots }
    }
}

/// Where a root keeps its data: the CLI's `data/`, or the extension's folder itself.
fn data_dirs(root: &Path) -> [PathBuf; 2] {
    [root.join("data"), root.to_path_buf()]
}

/// One session's files, as found.
#[derive(Debug, Clone)]
enum Found {
    /// 3.x: `sessions/<folder>/<file>.messages.json`; a file other than `<folder>.messages.json`
    /// is a subagent of the session `<folder>`.
    V3 { folder: String, file: PathBuf },
    /// 2.x: `tasks/<id>/ui_messages.json`, listed in `state/taskHistory.json` beside it.
    V2 { id: String, file: PathBuf },
}

impl Found {
    fn file(&self) -> &Path {
        match self {
            Found::V3 { file, .. } | Found::V2 { file, .. } => file,
        }
    }

    /// The files whose change changes the session: its own and the one it is described by.
    fn inputs(&self) -> Vec<PathBuf> {
        match self {
            Found::V3 { folder, file } => {
                let dir = file.parent().unwrap_or(Path::new(""));
                vec![file.clone(), dir.join(format!("{folder}.json"))]
            }
            Found::V2 { file, .. } => {
                let tasks = file.ancestors().nth(2).unwrap_or(Path::new(""));
                let data = tasks.parent().unwrap_or(Path::new(""));
                vec![file.clone(), history_path(data)]
            }
        }
    }
}

/// Every session file under a root.
fn discover(root: &Path, walker: &mut Walker) -> Vec<Found> {
    let mut out = Vec::new();
    for data in data_dirs(root) {
        for folder in walker.entries(&data.join("sessions")) {
            if !walker.descend(&folder) {
                continue;
            }
            for entry in walker.entries(&folder.path) {
                if entry.name.ends_with(".messages.json") && walker.is(&entry, Kind::File) {
                    out.push(Found::V3 {
                        folder: folder.name.clone(),
                        file: entry.path,
                    });
                }
            }
        }
        for task in walker.entries(&data.join("tasks")) {
            if !walker.descend(&task) {
                continue;
            }
            for entry in walker.entries(&task.path) {
                if entry.name == "ui_messages.json" && walker.is(&entry, Kind::File) {
                    out.push(Found::V2 {
                        id: task.name.clone(),
                        file: entry.path,
                    });
                }
            }
        }
    }
    out
}

/// A session file as the last scan left it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    stamps: Vec<(u64, i64)>,
    meta: Option<SessionMeta>,
    problems: Diagnostics,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    #[serde(with = "agent_sessions_model::path::os_keys")]
    files: BTreeMap<PathBuf, Entry>,
}

/// Reads a session's transcript and its metadata. `full`: tool outputs whole.
fn read(found: &Found, full: bool) -> (Option<SessionMeta>, Conversation) {
    match found {
        Found::V3 { folder, file } => {
            let conv = v3::read_conversation(file, full);
            let dir = file.parent().unwrap_or(Path::new(""));
            let doc = v3::read_json(&dir.join(format!("{folder}.json")));
            let meta = v3_meta(folder, file, doc.as_ref().ok(), &conv);
            (meta, conv)
        }
        Found::V2 { id, file } => {
            let conv = v2::read_task(file, full);
            let data = file.ancestors().nth(3).unwrap_or(Path::new(""));
            let history = v3::read_json(&history_path(data)).ok();
            let entry = history.as_ref().and_then(|h| task_entry(h, id));
            (Some(v2_meta(id, file, entry, &conv)), conv)
        }
    }
}

fn task_entry<'a>(history: &'a Value, id: &str) -> Option<&'a Value> {
    history
        .as_array()?
        .iter()
        .find(|t| str_of(t, "id") == Some(id))
}

/// What the messages say of any session, before its own metadata is laid over.
fn base_meta(id: String, file: &Path, conv: &Conversation) -> SessionMeta {
    let mut meta = SessionMeta::new(KIND, id, file.to_path_buf());
    meta.counts = Counts::of(&conv.messages);
    meta.title = conv
        .first_prompt
        .as_deref()
        .and_then(|t| title_from_text(t, TITLE_CHARS));
    meta.model.clone_from(&conv.model);
    meta.tokens = conv.tokens;
    let times = conv.messages.iter().filter_map(|m| m.timestamp);
    meta.created_at = times.clone().min();
    meta.updated_at = times.max().into_iter().chain(conv.updated).max();
    meta
}

/// A 3.x session or subagent (`doc`: the session's `<id>.json`, when it could be read).
fn v3_meta(
    folder: &str,
    file: &Path,
    doc: Option<&Value>,
    conv: &Conversation,
) -> Option<SessionMeta> {
    let own = file.file_name()? == format!("{folder}.messages.json").as_str();
    let child_id = || {
        conv.id.clone().unwrap_or_else(|| {
            let stem = file
                .file_name()
                .map(|n| n.to_string_lossy().replace(".messages.json", ""));
            format!("{folder}__{}", stem.unwrap_or_default())
        })
    };
    let id = if own { folder.to_owned() } else { child_id() };
    let mut meta = base_meta(id, file, conv);
    let doc = doc.unwrap_or(&Value::Null);
    meta.cwd = str_of(doc, "cwd").map(str::to_owned);
    if !own {
        meta.parent_id = Some(folder.to_owned());
        return Some(meta);
    }
    let info = doc.get("metadata").unwrap_or(&Value::Null);
    if let Some(title) = str_of(info, "title") {
        meta.title = title_from_text(parts::unwrap_prompt(title), TITLE_CHARS);
    }
    if let Some(model) = str_of(doc, "model") {
        meta.model = Some(model.to_owned());
    }
    if let Some(usage) = info.get("usage").filter(|u| u.is_object()) {
        meta.tokens = Some(parts::tokens_of(usage, parts::V3_TOKENS));
    }
    meta.cost_usd = info.get("totalCost").and_then(Value::as_f64);
    let started = time_of_text(doc.get("started_at"));
    let ended = time_of_text(doc.get("ended_at"));
    meta.created_at = [started, meta.created_at].into_iter().flatten().min();
    meta.updated_at = [ended, meta.updated_at].into_iter().flatten().max();
    meta.format_version = info
        .get("sessionHistoryOrigin")
        .and_then(|o| str_of(o, "version"))
        .map(str::to_owned);
    Some(meta)
}

/// A 2.x task (`entry`: its line in `taskHistory.json`, when there is one).
fn v2_meta(id: &str, file: &Path, entry: Option<&Value>, conv: &Conversation) -> SessionMeta {
    let mut meta = base_meta(id.to_owned(), file, conv);
    let Some(entry) = entry else {
        meta.cwd.clone_from(&conv.cwd);
        return meta;
    };
    meta.cwd = str_of(entry, "cwdOnTaskInitialization").map(str::to_owned);
    if let Some(task) = str_of(entry, "task") {
        meta.title = title_from_text(task, TITLE_CHARS);
    }
    if let Some(model) = str_of(entry, "modelId") {
        meta.model = Some(model.to_owned());
    }
    if entry.get("tokensIn").is_some() {
        meta.tokens = Some(parts::tokens_of(entry, parts::V2_TOKENS));
    }
    meta.cost_usd = entry.get("totalCost").and_then(Value::as_f64);
    let last = time_of_ms(entry.get("ts"));
    meta.updated_at = [last, meta.updated_at].into_iter().flatten().max();
    meta
}

fn key_of(path: &Path, meta: &SessionMeta) -> SessionKey {
    SessionKey {
        provider: KIND,
        id: meta.id.clone(),
        source_path: path.to_path_buf(),
    }
}

impl ClineProvider {
    /// The session file `session` was listed from, as found.
    fn found(&self, session: &SessionMeta) -> Result<Found, Error> {
        let file = &session.source_path;
        let folder = file.parent().and_then(Path::file_name);
        let kind = file
            .parent()
            .and_then(Path::parent)
            .and_then(Path::file_name);
        let folder = folder.map(|f| f.to_string_lossy().into_owned());
        match (kind.and_then(|k| k.to_str()), folder) {
            (Some("sessions"), Some(folder)) => Ok(Found::V3 {
                folder,
                file: file.clone(),
            }),
            (Some("tasks"), Some(id)) => Ok(Found::V2 {
                id,
                file: file.clone(),
            }),
            _ => Err(Error::SessionNotFound(session.id.clone())),
        }
    }

    fn load_with(&self, session: &SessionMeta, full: bool) -> Result<Conversation, Error> {
        let found = self.found(session)?;
        files::open_regular(found.file()).map_err(|e| Error::io(found.file(), e))?;
        Ok(read(&found, full).1)
    }
}

impl Provider for ClineProvider {
    fn kind(&self) -> ProviderKind {
        KIND
    }

    fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn detect(&self) -> bool {
        self.roots.iter().any(|r| {
            data_dirs(r)
                .iter()
                .any(|d| crate::is_dir(&d.join("sessions")) || crate::is_dir(&d.join("tasks")))
        })
    }

    fn scan(&self, prev: &ProviderState, progress: &ScanProgress) -> Result<ScanOutput, Error> {
        let prev: State = decode_state(prev).unwrap_or_default();
        let mut walker = Walker::default();
        let found: Vec<Found> = self
            .roots
            .iter()
            .flat_map(|r| discover(r, &mut walker))
            .collect();
        progress.add_total(found.len() as u64, 0);
        let mut next = State::default();
        let mut out = ScanOutput::default();
        for f in &found {
            let stamps = files::stamps(&f.inputs());
            let entry = match prev.files.get(f.file()) {
                Some(e) if e.stamps == stamps => e.clone(),
                _ => {
                    let (meta, conv) = read(f, false);
                    out.changed.extend(meta.clone());
                    if let (None, Some(before)) = (
                        &meta,
                        prev.files.get(f.file()).and_then(|e| e.meta.as_ref()),
                    ) {
                        out.removed.push(key_of(f.file(), before));
                    }
                    Entry {
                        stamps,
                        meta,
                        problems: conv.diagnostics,
                    }
                }
            };
            progress.add_done(1, entry.stamps.first().map_or(0, |s| s.0));
            out.diagnostics.merge(&entry.problems);
            next.files.insert(f.file().to_path_buf(), entry);
        }
        for (path, e) in &prev.files {
            if let (false, Some(meta)) = (next.files.contains_key(path), &e.meta) {
                out.removed.push(key_of(path, meta));
            }
        }
        walker.report(KIND, &mut out.diagnostics);
        out.state = encode_state(&next);
        Ok(out)
    }

    fn load(&self, session: &SessionMeta) -> Result<Transcript, Error> {
        let conv = self.load_with(session, false)?;
        Ok(crate::build::transcript(
            session,
            conv.messages,
            conv.diagnostics,
        ))
    }

    fn blob(&self, session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error> {
        let BlobKey::ToolResult { call, .. } = blob::parse(session, key)? else {
            return Err(blob::not_found(session, key, "not a Cline blob"));
        };
        let conv = self.load_with(session, true)?;
        let output = conv
            .messages
            .iter()
            .flat_map(|m| &m.parts)
            .find_map(|p| match p {
                agent_sessions_model::Part::Tool(t) if t.call_id == call => t.output.clone(),
                _ => None,
            });
        output
            .map(String::into_bytes)
            .ok_or_else(|| blob::not_found(session, key, "no output of that tool call"))
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        self.roots
            .iter()
            .flat_map(|r| data_dirs(r))
            .flat_map(|d| [d.join("sessions"), d.join("tasks"), d.join("state")])
            .collect()
    }

    fn resume_command(&self, session: &SessionMeta) -> Result<ResumeCommand, Error> {
        launch::resume(session)
    }
}

/// Cline in the registry (`crate::registry::AGENTS`).
pub static AGENT: crate::registry::Agent = crate::registry::Agent {
    kind: KIND,
    label: "Cline",
    program: "cline",
    env_var: "CLINE_DIR",
    env_subdir: None,
    // The CLI's `~/.cline` (`%USERPROFILE%\.cline` on Windows), and the VS Code extension's
    // `globalStorage` folder where each system keeps VS Code's settings (`%APPDATA%` is
    // `AppData\Roaming` under the home).
    home_store: |os| match os {
        Os::Linux => &[
            ".cline",
            AND,
            ".config",
            "Code",
            "User",
            "globalStorage",
            EXTENSION,
        ],
        Os::Macos => &[
            ".cline",
            AND,
            "Library",
            "Application Support",
            "Code",
            "User",
            "globalStorage",
            EXTENSION,
        ],
        Os::Windows => &[
            ".cline",
            AND,
            "AppData",
            "Roaming",
            "Code",
            "User",
            "globalStorage",
            EXTENSION,
        ],
    },
    fixture_store: "dot-cline",
    colours: [["#e6e0f3", "#4b3b7a"], ["#2f2845", "#d2c6f2"]],
    provider: |roots| Box::new(ClineProvider::new(roots)),

    // Trash and delete, and ids.
    session_id: ids::is_session_id,
    subagent_id: Some(ids::is_subagent_id),
    trash: trash::TRASH,
    // Launch (capability::launch).
    launch: launch::LAUNCH,
    worktrees: crate::capability::launch::Worktrees::NONE,
    plan_tools: &[],
    // Bundles: export and restore.
    bundles: bundle::BUNDLES,
    which_copy: None,
};

#[cfg(test)]
mod tests;
