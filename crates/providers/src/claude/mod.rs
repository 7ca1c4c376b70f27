//! Claude Code (SPEC §4.1): `projects/<encoded-cwd>/<uuid>.jsonl` transcripts, their
//! subagents (inline sidechains in 1.0.x, flat `agent-*.jsonl` in 2.0.x, `<uuid>/subagents/`
//! in 2.1.x), spilled tool outputs in `<uuid>/tool-results/`, and `sessions/<pid>.json` for
//! live detection. The encoded directory name is lossy and never decoded: cwd comes from the
//! records.

pub mod bundle;
pub mod ids;
mod launch;
mod live;
pub mod records;
pub mod resume;
pub mod scan;
pub(crate) mod transcript;
mod trash;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use self::scan::{Cursor, FileRole, Found};
use crate::error::Error;
use crate::files::{self, FileSet, Tracked};
use crate::{
    decode_state, encode_state, LiveSession, Provider, ProviderState, ScanOutput, ScanProgress,
    SessionKey,
};
use agent_sessions_model::ResumeCommand;
use agent_sessions_model::{ProviderKind, SessionMeta, Transcript};

pub struct ClaudeProvider {
    roots: Vec<PathBuf>,
}

/// What the scan remembers about one transcript file.
type FileState = Tracked<Cursor>;

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    #[serde(with = "agent_sessions_model::path::os_keys")]
    files: FileSet<Cursor>,
}

impl ClaudeProvider {
    pub fn new(roots: Vec<PathBuf>) -> Self {
        ClaudeProvider { roots }
    }

    fn discover(&self, walker: &mut files::Walker) -> Vec<Found> {
        let mut found = Vec::new();
        for root in &self.roots {
            found.extend(scan::discover(root, walker));
        }
        found
    }
}

fn session_id(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The directory beside a transcript that holds its side data (`<uuid>/`).
fn side_dir(path: &Path) -> PathBuf {
    path.with_extension("")
}

fn parse_time(raw: Option<&str>) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(raw?)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The most read of a small side file (`*.meta.json`, `custom-title.json`, a pid file): they
/// hold a few fields, so anything larger is not one.
const SIDE_FILE_MAX: u64 = 1 << 20;

/// A 2.1.x subagent's `agent-<hex>.meta.json`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SubagentMeta {
    description: Option<String>,
    agent_type: Option<String>,
}

fn read_subagent_meta(path: &Path) -> SubagentMeta {
    let meta = path.with_extension("meta.json");
    files::read_document(&meta, SIDE_FILE_MAX)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// `<uuid>/custom-title.json`, written by 2.1.x beside the `custom-title` record.
fn read_custom_title_file(path: &Path) -> Option<String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct CustomTitle {
        custom_title: Option<String>,
    }
    let bytes =
        files::read_document(&side_dir(path).join("custom-title.json"), SIDE_FILE_MAX).ok()?;
    serde_json::from_slice::<CustomTitle>(&bytes)
        .ok()?
        .custom_title
}

fn to_meta(found: &Found, state: &FileState) -> SessionMeta {
    let acc = &state.cursor.acc;
    let mut meta = SessionMeta::new(
        ProviderKind::Claude,
        session_id(&found.path),
        found.path.clone(),
    );
    meta.parent_id = match &found.role {
        FileRole::Main => None,
        FileRole::FlatAgent => acc.last_session_id.clone(),
        FileRole::Subagent { parent } => Some(parent.clone()),
    };
    meta.cwd = acc.cwd.clone();
    meta.git_branch = acc.git_branch.clone();
    meta.title = match &found.role {
        FileRole::Main => acc
            .custom_title
            .clone()
            .or_else(|| read_custom_title_file(&found.path))
            .or_else(|| acc.ai_title.clone())
            .or_else(|| acc.summary.clone())
            .or_else(|| acc.first_prompt.clone()),
        _ => {
            let sub = read_subagent_meta(&found.path);
            let described = sub.description.map(|d| match sub.agent_type {
                Some(t) => format!("{d} ({t})"),
                None => d,
            });
            described
                .or_else(|| acc.ai_title.clone())
                .or_else(|| acc.first_prompt.clone())
        }
    }
    .and_then(|t| scan_title(&t));
    meta.model = acc.model.clone();
    meta.created_at = parse_time(acc.first_timestamp.as_deref());
    meta.updated_at = parse_time(acc.last_timestamp.as_deref())
        .or_else(|| DateTime::<Utc>::from_timestamp_nanos(state.stamp.mtime_ns).into());
    meta.counts = acc.counts;
    meta.tokens = acc.saw_usage.then(|| acc.tokens());
    meta.cost_usd = acc.cost_usd;
    meta.format_version = acc.version.clone();
    meta
}

fn scan_title(text: &str) -> Option<String> {
    crate::title_from_text(text, crate::TITLE_CHARS)
}

impl Provider for ClaudeProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Claude
    }

    fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn detect(&self) -> bool {
        self.roots
            .iter()
            .any(|r| crate::is_dir(&r.join("projects")))
    }

    fn scan(&self, prev: &ProviderState, progress: &ScanProgress) -> Result<ScanOutput, Error> {
        let prev: State = decode_state(prev).unwrap_or_default();
        let mut walker = files::Walker::default();
        let r = files::refresh_all(
            self.discover(&mut walker),
            |f| &f.path,
            &prev.files,
            progress,
            |f, c| scan::scan_file(&f.path, &f.role, c),
        );
        let mut out = ScanOutput::default();
        (out.changed, out.removed) = r.sessions(
            &prev.files,
            &r.changed,
            |f| &f.path,
            |t| t.cursor.acc.is_session(),
            to_meta,
            |path, _| key_of(path),
        );
        walker.report(ProviderKind::Claude, &mut out.diagnostics);
        r.report_problems(ProviderKind::Claude, &mut out.diagnostics);
        out.state = encode_state(&State { files: r.next });
        Ok(out)
    }

    transcript_methods!(transcript);

    fn blob_head(
        &self,
        session: &SessionMeta,
        key: &str,
        max: usize,
    ) -> Result<(Vec<u8>, u64), Error> {
        transcript::blob_head(session, key, max)
    }

    fn reads_in_part(&self, _: &SessionMeta) -> bool {
        true
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        self.roots
            .iter()
            .flat_map(|r| [r.join("projects"), r.join("sessions")])
            .collect()
    }

    fn resume_command(&self, session: &SessionMeta) -> Result<ResumeCommand, Error> {
        // A subagent has no resume of its own: its conversation continues in the parent.
        let id = match (&session.parent_id, session.id.starts_with("agent-")) {
            (Some(parent), _) => parent,
            (None, true) => {
                return Err(Error::ResumeUnavailable(format!(
                    "a {} subagent resumes through its parent session, which is not known",
                    AGENT.label
                )))
            }
            (None, false) => &session.id,
        };
        // `claude --resume` takes only a UUID (anything else opens its picker as a search).
        if !crate::ids::is_uuid(id) {
            return Err(crate::ids::invalid_id(ProviderKind::Claude, id));
        }
        ResumeCommand::new(AGENT.program, &["--resume", id], session.cwd.as_deref())
            .map_err(Error::from)
    }

    fn live_sessions(&self, _sessions: &[&SessionMeta]) -> Vec<LiveSession> {
        self.roots
            .iter()
            .flat_map(|r| live::live_sessions(r))
            .collect()
    }
}

fn key_of(path: &Path) -> SessionKey {
    SessionKey {
        provider: ProviderKind::Claude,
        id: session_id(path),
        source_path: path.to_path_buf(),
    }
}

/// Claude Code in the registry (`crate::registry::AGENTS`).
pub static AGENT: crate::registry::Agent = crate::registry::Agent {
    kind: ProviderKind::Claude,
    label: "Claude Code",
    program: "claude",
    env_var: "CLAUDE_CONFIG_DIR",
    env_subdir: None,
    // The same on all three systems (`%USERPROFILE%\.claude` on Windows).
    home_store: |_| &[".claude"],
    fixture_store: "dot-claude",
    colours: [["#f3e2d5", "#7a4316"], ["#4a3323", "#f0c7a4"]],
    provider: |roots| Box::new(ClaudeProvider::new(roots)),

    // Trash and delete, and ids.
    session_id: crate::ids::is_uuid,
    subagent_id: Some(ids::is_subagent_id),
    trash: trash::TRASH,
    // Launch (capability::launch).
    launch: launch::LAUNCH,
    worktrees: launch::WORKTREES,
    plan_tools: launch::PLAN_TOOLS,
    // Bundles: export, restore and the resume check.
    bundles: bundle::BUNDLES,
    which_copy: Some(resume::which_copy),
};
