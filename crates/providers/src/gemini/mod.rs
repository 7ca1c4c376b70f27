//! Gemini CLI (docs/formats.md, "Gemini CLI"): `tmp/<project>/chats/session-*.json` (one
//! `ConversationRecord` rewritten whole, before 0.39) or `session-*.jsonl` (a replay log, 0.39+),
//! subagents in `chats/<parent session id>/`, spilled tool outputs in
//! `tmp/<project>/tool-outputs/session-<id>/`. The project folder is a sha256 of the directory
//! before 0.29 and a slug after it; the directory comes from the folder's `.project_root`, else
//! `projects.json`, else — for a hash — the first candidate directory whose hash it is
//! (`trustedFolders.json`'s folders, the paths the session's tool calls name, the home folder).
//! A hash no candidate matches leaves the directory unknown (and the session not resumable
//! from here: `gemini --resume` looks the id up in the project of the directory it runs in).

mod bundle;
mod copies;
mod ids;
mod launch;
mod project;
mod resumes;
mod trash;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::blob::{self, BlobKey};
use crate::error::Error;
use crate::files::{self, Kind, Walker};
use crate::genai::conversation;
use crate::genai::session::{build_conversation, parse_time, Builder, Built};
use crate::genai::store::{Found, Scan, Summary};
use crate::genai::{
    dir_of_hash, is_hash_folder, read_json, read_spilled, root_candidates, root_of, SIDE_FILE_MAX,
};
use crate::{Provider, ProviderState, ScanOutput, ScanProgress};
use agent_sessions_model::{ProviderKind, ResumeCommand, SessionMeta, Transcript};

const KIND: ProviderKind = ProviderKind::Gemini;

pub struct GeminiProvider {
    roots: Vec<PathBuf>,
}

impl GeminiProvider {
    pub fn new(roots: Vec<PathBuf>) -> Self {
        GeminiProvider { roots }
    }
}

/// Every session file of a root: `tmp/<project>/chats/*.json[l]` and one folder down for
/// subagents, but for the hashed copies of a slug folder's files (`copies.rs`).
fn discover(root: &Path, walker: &mut Walker) -> Vec<Found> {
    let is_session_file = |name: &str| name.ends_with(".json") || name.ends_with(".jsonl");
    let mut out = Vec::new();
    let slugs = copies::slugs_of_hashes(&root.join("tmp"));
    for project in walker.entries(&root.join("tmp")) {
        if !walker.descend(&project) {
            continue;
        }
        // A file of a hashed folder whose slug folder has its copy is that copy's (copies.rs).
        let copied = |rel: &[&str]| copies::copied(&slugs, &project.name, rel);
        for entry in walker.entries(&project.path.join("chats")) {
            if is_session_file(&entry.name) {
                if walker.is(&entry, Kind::File) && !copied(&["chats", &entry.name]) {
                    out.push(Found {
                        path: entry.path,
                        folder: project.name.clone(),
                        parent: None,
                    });
                }
            } else if walker.descend(&entry) {
                for child in walker.entries(&entry.path) {
                    let rel = ["chats", &entry.name, &child.name];
                    if is_session_file(&child.name)
                        && walker.is(&child, Kind::File)
                        && !copied(&rel)
                    {
                        out.push(Found {
                            path: child.path,
                            folder: project.name.clone(),
                            parent: Some(entry.name.clone()),
                        });
                    }
                }
            }
        }
    }
    out
}

/// A session file read whole: its transcript and its replayed metadata.
fn read(path: &Path, builder: Builder) -> Result<(conversation::Replayed, Built), Error> {
    let replayed = conversation::read(KIND, path)?;
    let built = build_conversation(&replayed, "gemini", builder);
    Ok((replayed, built))
}

fn summarize(f: &Found) -> Result<Summary, Error> {
    let (replayed, built) = read(&f.path, Builder::default())?;
    let mut candidates = built.paths.clone();
    if let Some(dirs) = replayed.meta.get("directories").and_then(|d| d.as_array()) {
        candidates.extend(dirs.iter().filter_map(|d| d.as_str()).map(str::to_owned));
    }
    candidates.truncate(64);
    let meta = replayed
        .session_id()
        .map(|id| to_meta(f, id, &replayed, &built));
    Ok(Summary {
        meta,
        candidates,
        problems: replayed.diagnostics,
    })
}

fn to_meta(f: &Found, id: &str, r: &conversation::Replayed, b: &Built) -> SessionMeta {
    let mut meta = SessionMeta::new(KIND, id.to_owned(), f.path.clone());
    meta.parent_id = f.parent.clone();
    let subagent = f.parent.is_some() || r.meta_str("kind") == Some("subagent");
    // A subagent's `summary` is its findings as JSON, not a title.
    let summary = r.meta_str("summary").filter(|_| !subagent);
    meta.title = summary
        .or(b.first_prompt.as_deref())
        .and_then(|t| crate::title_from_text(t, crate::TITLE_CHARS));
    meta.model = b.model.clone();
    meta.tokens = b.tokens;
    meta.counts = agent_sessions_model::Counts::of(&b.messages);
    let start = parse_time(r.meta_str("startTime"));
    let last = parse_time(r.meta_str("lastUpdated"));
    meta.created_at = [start, b.first_time].into_iter().flatten().min();
    meta.updated_at = [last, b.last_time].into_iter().flatten().max();
    meta
}

/// Where each project folder's directory is written down, per root.
#[derive(Default)]
struct Dirs {
    /// `projects.json`: folder → directory.
    registered: BTreeMap<String, String>,
    /// `trustedFolders.json`'s folders and the home folder: candidates for a hashed folder.
    candidates: Vec<String>,
}

fn dirs_of(root: &Path) -> Dirs {
    let mut dirs = Dirs::default();
    if let Some(serde_json::Value::Object(p)) =
        read_json(&root.join("projects.json")).and_then(|v| v.get("projects").cloned())
    {
        for (dir, folder) in p {
            if let Some(folder) = folder.as_str() {
                dirs.registered.insert(folder.to_owned(), dir);
            }
        }
    }
    dirs.candidates = root_candidates(root);
    // The directories Gemini 0.29+ names itself: a hashed folder of one of them is its
    // pre-0.29 folder (a restore into a store where Gemini has yet to copy that folder to the
    // slug writes the slug's marker and the session into the hashed folder).
    dirs.candidates.extend(dirs.registered.values().cloned());
    let tmp = root.join("tmp");
    let folders = std::fs::read_dir(&tmp).into_iter().flatten().flatten();
    let marked = folders.filter_map(|e| marker_of(&tmp, &e.file_name().to_string_lossy()));
    dirs.candidates.extend(marked.take(MARKERS_READ));
    dirs
}

/// The most markers of other folders read for hashed folders' candidates.
const MARKERS_READ: usize = 1024;

/// The directory `tmp/<folder>/.project_root` names.
fn marker_of(tmp: &Path, folder: &str) -> Option<String> {
    let marker = files::child(tmp, folder)?.join(project::MARKER);
    let bytes = files::read_document(&marker, SIDE_FILE_MAX).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    Some(text.trim().to_owned()).filter(|s| !s.is_empty())
}

/// The directory of a project folder (see the module doc).
fn project_dir(root: &Path, folder: &str, dirs: &Dirs, own: &[String]) -> Option<String> {
    marker_of(&root.join("tmp"), folder)
        .or_else(|| dirs.registered.get(folder).cloned())
        .or_else(|| {
            let all = dirs.candidates.iter().chain(own).map(String::as_str);
            is_hash_folder(folder)
                .then(|| dir_of_hash(folder, all))
                .flatten()
        })
}

impl Provider for GeminiProvider {
    fn kind(&self) -> ProviderKind {
        KIND
    }

    fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn detect(&self) -> bool {
        self.roots.iter().any(|r| crate::is_dir(&r.join("tmp")))
    }

    fn scan(&self, prev: &ProviderState, progress: &ScanProgress) -> Result<ScanOutput, Error> {
        let mut walker = Walker::default();
        let mut found = Vec::new();
        let mut dirs = BTreeMap::new();
        for root in &self.roots {
            for f in discover(root, &mut walker) {
                found.push(f);
            }
            dirs.insert(root.clone(), dirs_of(root));
        }
        let over = self
            .roots
            .iter()
            .flat_map(|r| [r.join("projects.json"), r.join("trustedFolders.json")])
            .collect();
        let finish = |f: &Found, meta: &SessionMeta, own: &[String]| {
            let mut meta = meta.clone();
            let root = root_of(&meta).map(Path::to_path_buf).unwrap_or_default();
            let none = Dirs::default();
            let d = dirs.get(&root).unwrap_or(&none);
            meta.cwd = project_dir(&root, &f.folder, d, own);
            meta
        };
        let scan = Scan {
            kind: KIND,
            found,
            walker,
            over,
            read: &summarize,
            finish: &finish,
        };
        // A resumed session's stub file is not a second session (resumes.rs).
        Ok(scan.run_folded(prev, progress, &resumes::hidden))
    }

    fn load(&self, session: &SessionMeta) -> Result<Transcript, Error> {
        let (replayed, built) = read(&session.source_path, Builder::default())?;
        Ok(crate::build::transcript(
            session,
            built.messages,
            replayed.diagnostics,
        ))
    }

    fn blob(&self, session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error> {
        match blob::parse(session, key)? {
            BlobKey::SpilledFile(name) => {
                // `tmp/<project>/tool-outputs/session-<id>/<name>`, beside `chats/`.
                let up = if session.parent_id.is_some() { 3 } else { 2 };
                let project = session.source_path.ancestors().nth(up);
                let dir = project.and_then(|p| {
                    files::child(&p.join("tool-outputs"), &format!("session-{}", session.id))
                });
                read_spilled(session, key, dir, &name, "no tool-outputs folder")
            }
            BlobKey::ToolResult { offset, call } => {
                let (_, built) = read(&session.source_path, Builder::for_blob(offset, call))?;
                crate::genai::found_blob(session, key, built)
            }
            _ => Err(blob::not_found(session, key, "not a Gemini CLI blob")),
        }
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        self.roots
            .iter()
            .flat_map(|r| [r.join("tmp"), r.join("projects.json")])
            .collect()
    }

    fn resume_command(&self, session: &SessionMeta) -> Result<ResumeCommand, Error> {
        crate::genai::resume_in_dir(&AGENT, session)
    }
}

/// Gemini CLI in the registry (`crate::registry::AGENTS`).
pub static AGENT: crate::registry::Agent = crate::registry::Agent {
    kind: KIND,
    label: "Gemini CLI",
    program: "gemini",
    env_var: "GEMINI_CLI_HOME",
    env_subdir: Some(".gemini"),
    // `%USERPROFILE%\.gemini` on Windows, `~/.gemini` elsewhere.
    home_store: |_| &[".gemini"],
    fixture_store: "dot-gemini",
    colours: [["#dbe7fb", "#1f4f9c"], ["#1f2f4d", "#b3cdf7"]],
    provider: |roots| Box::new(GeminiProvider::new(roots)),

    // Trash and delete, and ids.
    session_id: crate::ids::is_uuid,
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
mod tests {
    /// A session written to just now is live while a `gemini` process runs; an old one is not.
    #[cfg(target_os = "linux")]
    #[test]
    fn sessions_are_live_while_gemini_runs_and_they_were_just_written() {
        crate::process::live_while_running(&super::AGENT);
    }
}
