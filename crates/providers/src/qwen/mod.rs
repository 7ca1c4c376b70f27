//! Qwen Code (docs/formats.md, "Qwen Code"): from 0.5 `projects/<sanitised cwd>/chats/<id>.jsonl`
//! (records linked by `uuid`/`parentUuid`, [`records`]) with subagents in
//! `projects/<…>/subagents/<parent id>/agent-<type>-<call id>.jsonl` (+ `.meta.json`); before 0.5
//! Gemini CLI's layout, `tmp/<sha256 of the directory>/chats/session-*.json` with Gemini's JSON
//! `ConversationRecord` (model messages `type: qwen`), read by the shared [`crate::genai`].
//! The sanitised folder name is lossy: the directory comes from the records' `cwd`; a pre-0.5
//! hash folder's from a candidate directory whose hash it is (the paths its tool calls name,
//! `trustedFolders.json`, the home folder), else it is unknown.

mod bundle;
mod ids;
mod launch;
pub(crate) mod records;
mod trash;

use std::path::{Path, PathBuf};

use crate::blob::{self, BlobKey};
use crate::error::Error;
use crate::files::{self, Kind, Walker};
use crate::genai::conversation;
use crate::genai::session::{build_conversation, parse_time, Builder, Built};
use crate::genai::store::{Found, Scan, Summary};
use crate::genai::{
    dir_of_hash, is_hash_folder, project_hash, read_json, read_spilled, root_candidates, root_of,
};
use crate::{Provider, ProviderState, ScanOutput, ScanProgress};
use agent_sessions_model::{Counts, Part, ProviderKind, ResumeCommand, SessionMeta, Transcript};

const KIND: ProviderKind = ProviderKind::Qwen;

pub struct QwenProvider {
    roots: Vec<PathBuf>,
}

impl QwenProvider {
    pub fn new(roots: Vec<PathBuf>) -> Self {
        QwenProvider { roots }
    }
}

/// Which generation a session file is of, from where it lies.
fn is_legacy(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}

/// The session files (`ext`) directly in `dir`, filed under `folder` (and `parent`).
fn files_in(
    walker: &mut Walker,
    dir: &Path,
    folder: &str,
    parent: Option<&str>,
    ext: &str,
) -> Vec<Found> {
    let mut out = Vec::new();
    for entry in walker.entries(dir) {
        if entry.name.ends_with(ext) && walker.is(&entry, Kind::File) {
            out.push(Found {
                path: entry.path,
                folder: folder.to_owned(),
                parent: parent.map(str::to_owned),
            });
        }
    }
    out
}

fn discover(root: &Path, walker: &mut Walker) -> Vec<Found> {
    let mut out = Vec::new();
    for project in walker.entries(&root.join("projects")) {
        if !walker.descend(&project) {
            continue;
        }
        let chats = project.path.join("chats");
        out.extend(files_in(walker, &chats, &project.name, None, ".jsonl"));
        for parent in walker.entries(&project.path.join("subagents")) {
            if walker.descend(&parent) {
                let p = Some(parent.name.as_str());
                out.extend(files_in(walker, &parent.path, &project.name, p, ".jsonl"));
            }
        }
    }
    for project in walker.entries(&root.join("tmp")) {
        if walker.descend(&project) {
            let chats = project.path.join("chats");
            out.extend(files_in(walker, &chats, &project.name, None, ".json"));
        }
    }
    out
}

/// A session file read whole: its transcript, diagnostics and what it says of itself.
struct Loaded {
    built: Built,
    diagnostics: agent_sessions_model::Diagnostics,
    id: Option<String>,
    meta: SessionMeta,
}

fn load_file(f_path: &Path, parent: Option<&str>, builder: Builder) -> Result<Loaded, Error> {
    let mut meta = SessionMeta::new(KIND, String::new(), f_path.to_path_buf());
    meta.parent_id = parent.map(str::to_owned);
    if is_legacy(f_path) {
        let r = conversation::read(KIND, f_path)?;
        let built = build_conversation(&r, "qwen", builder);
        meta.created_at = parse_time(r.meta_str("startTime"));
        meta.updated_at = parse_time(r.meta_str("lastUpdated"));
        meta.title = r.meta_str("summary").map(str::to_owned);
        let id = r.session_id().map(str::to_owned);
        return Ok(Loaded {
            built,
            diagnostics: r.diagnostics,
            id,
            meta,
        });
    }
    let r = records::read(f_path, builder)?;
    meta.cwd = r.cwd;
    meta.format_version = r.version;
    meta.git_branch = r.git_branch;
    // A subagent's records carry its parent's id: its own is its file stem.
    let id = match parent {
        Some(_) => f_path.file_stem().map(|s| s.to_string_lossy().into_owned()),
        None => r.session_id,
    };
    Ok(Loaded {
        built: r.built,
        diagnostics: r.diagnostics,
        id,
        meta,
    })
}

fn summarize(f: &Found) -> Result<Summary, Error> {
    let loaded = load_file(&f.path, f.parent.as_deref(), Builder::default())?;
    let Loaded {
        built,
        diagnostics,
        id,
        mut meta,
    } = loaded;
    let candidates = built.paths.iter().take(64).cloned().collect();
    let meta = id.filter(|id| !id.is_empty()).map(|id| {
        meta.id = id;
        let described = f.parent.as_ref().and_then(|_| subagent_title(&f.path));
        meta.title = described
            .or(meta.title.take())
            .or(built.first_prompt.clone())
            .and_then(|t| crate::title_from_text(&t, crate::TITLE_CHARS));
        meta.model = built.model.clone();
        meta.tokens = built.tokens;
        meta.counts = Counts::of(&built.messages);
        meta.created_at = [meta.created_at, built.first_time]
            .into_iter()
            .flatten()
            .min();
        meta.updated_at = [meta.updated_at, built.last_time]
            .into_iter()
            .flatten()
            .max();
        meta
    });
    Ok(Summary {
        meta,
        candidates,
        problems: diagnostics,
    })
}

/// A subagent's `.meta.json` description, with its agent type.
fn subagent_title(path: &Path) -> Option<String> {
    let v = read_json(&path.with_extension("meta.json"))?;
    let description = v.get("description")?.as_str()?;
    Some(match v.get("agentType").and_then(|t| t.as_str()) {
        Some(t) => format!("{description} ({t})"),
        None => description.to_owned(),
    })
}

/// Gives each `agent` tool call the child session it started, where its file is there:
/// `subagents/<this session>/agent-<subagent_type>-<call id>.jsonl`.
fn link_subagents(session: &SessionMeta, messages: &mut [agent_sessions_model::Message]) {
    let Some(dir) = session
        .source_path
        .ancestors()
        .nth(2)
        .and_then(|p| files::child(&p.join("subagents"), &session.id))
    else {
        return;
    };
    for m in messages.iter_mut() {
        for part in &mut m.parts {
            let Part::Tool(tool) = part else { continue };
            let kind = tool.input.get("subagent_type").and_then(|t| t.as_str());
            let Some(kind) = kind.filter(|_| tool.name == "agent") else {
                continue;
            };
            let child = format!("agent-{kind}-{}", tool.call_id);
            if files::child(&dir, &format!("{child}.jsonl")).is_some_and(|p| p.is_file()) {
                tool.subagent_id = Some(child);
            }
        }
    }
}

impl Provider for QwenProvider {
    fn kind(&self) -> ProviderKind {
        KIND
    }

    fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn detect(&self) -> bool {
        self.roots
            .iter()
            .any(|r| crate::is_dir(&r.join("projects")) || crate::is_dir(&r.join("tmp")))
    }

    fn scan(&self, prev: &ProviderState, progress: &ScanProgress) -> Result<ScanOutput, Error> {
        let mut walker = Walker::default();
        let mut found = Vec::new();
        let mut candidates = std::collections::BTreeMap::new();
        for root in &self.roots {
            found.extend(discover(root, &mut walker));
            candidates.insert(root.clone(), root_candidates(root));
        }
        let over = self
            .roots
            .iter()
            .map(|r| r.join("trustedFolders.json"))
            .collect();
        let finish = |f: &Found, meta: &SessionMeta, own: &[String]| {
            let mut meta = meta.clone();
            if meta.cwd.is_none() && is_hash_folder(&f.folder) {
                let root = root_of(&meta).map(Path::to_path_buf).unwrap_or_default();
                let named = candidates.get(&root).map(Vec::as_slice).unwrap_or_default();
                let all = named.iter().chain(own).map(String::as_str);
                meta.cwd = dir_of_hash(&f.folder, all);
            }
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
        Ok(scan.run(prev, progress))
    }

    fn load(&self, session: &SessionMeta) -> Result<Transcript, Error> {
        let parent = session.parent_id.as_deref();
        let mut loaded = load_file(&session.source_path, parent, Builder::default())?;
        link_subagents(session, &mut loaded.built.messages);
        Ok(crate::build::transcript(
            session,
            loaded.built.messages,
            loaded.diagnostics,
        ))
    }

    fn blob(&self, session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error> {
        match blob::parse(session, key)? {
            BlobKey::SpilledFile(name) => {
                // `<root>/tmp/<sha256 of the directory>/<name>` (0.2x).
                let dir = root_of(session)
                    .zip(session.cwd.as_deref())
                    .map(|(root, cwd)| root.join("tmp").join(project_hash(cwd)));
                read_spilled(session, key, dir, &name, "the directory is not known")
            }
            BlobKey::ToolResult { offset, call } => {
                let parent = session.parent_id.as_deref();
                let builder = Builder::for_blob(offset, call);
                let loaded = load_file(&session.source_path, parent, builder)?;
                crate::genai::found_blob(session, key, loaded.built)
            }
            _ => Err(blob::not_found(session, key, "not a Qwen Code blob")),
        }
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        self.roots
            .iter()
            .flat_map(|r| [r.join("projects"), r.join("tmp")])
            .collect()
    }

    fn resume_command(&self, session: &SessionMeta) -> Result<ResumeCommand, Error> {
        if is_legacy(&session.source_path) {
            return Err(Error::ResumeUnavailable(format!(
                "this {} session was written before 0.5, which has no --resume (only the \
                 TUI's /chat save and /chat resume checkpoints), and later versions do not \
                 read its folder",
                AGENT.label
            )));
        }
        crate::genai::resume_in_dir(&AGENT, session)
    }
}

/// Qwen Code in the registry (`crate::registry::AGENTS`).
pub static AGENT: crate::registry::Agent = crate::registry::Agent {
    kind: KIND,
    label: "Qwen Code",
    program: "qwen",
    env_var: "QWEN_HOME",
    env_subdir: None,
    // `%USERPROFILE%\.qwen` on Windows, `~/.qwen` elsewhere.
    home_store: |_| &[".qwen"],
    fixture_store: "dot-qwen",
    colours: [["#ece0f7", "#5b2a86"], ["#35254a", "#d9c2f2"]],
    provider: |roots| Box::new(QwenProvider::new(roots)),

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
    /// A session written to just now is live while a `qwen` process runs; an old one is not.
    #[cfg(target_os = "linux")]
    #[test]
    fn sessions_are_live_while_qwen_runs_and_they_were_just_written() {
        crate::process::live_while_running(&super::AGENT);
    }
}
