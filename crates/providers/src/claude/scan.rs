//! The Claude Code metadata scan: one streaming pass per file, resumable from a byte offset.
//!
//! Everything a session row needs (counts, tokens, title candidates, times) is folded into a
//! small serializable [`Accumulator`], so an append-only file that grew is read on from where
//! the last scan stopped instead of from the start.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::records::{classify_user, Content, Record, UserKind, SYNTHETIC_MODEL};
use crate::files::{Kind, Walker};
use crate::jsonl::{self, parse_line_borrowed};
use crate::{title_from_text, TITLE_CHARS};
use agent_sessions_model::{Counts, Tokens};

/// How many recent assistant message ids are remembered to merge split records.
const RECENT_MESSAGES: usize = 8;
/// How many recent record uuids are remembered to attach `summary` records to this file.
const RECENT_UUIDS: usize = 8;
/// How many summaries may wait for their leaf record.
const PENDING_SUMMARIES: usize = 16;

/// What kind of file a transcript is, from where it lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRole {
    /// `projects/<dir>/<uuid>.jsonl`
    Main,
    /// `projects/<dir>/agent-<hex>.jsonl` (2.0.x): the parent is the last `sessionId` inside.
    FlatAgent,
    /// `projects/<dir>/<uuid>/subagents/agent-<hex>.jsonl` (2.1.x): the parent is `<uuid>`.
    Subagent { parent: String },
}

impl FileRole {
    pub fn is_agent(&self) -> bool {
        !matches!(self, FileRole::Main)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct RecentMessage {
    id: String,
    tokens: Tokens,
}

/// The running summary of one transcript file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Accumulator {
    pub last_session_id: Option<String>,
    pub cwd: Option<String>,
    pub git_branch: Option<String>,
    pub version: Option<String>,
    pub first_timestamp: Option<String>,
    pub last_timestamp: Option<String>,
    pub counts: Counts,
    tokens_done: Tokens,
    recent: VecDeque<RecentMessage>,
    pub saw_usage: bool,
    pub model: Option<String>,
    pub custom_title: Option<String>,
    pub ai_title: Option<String>,
    pub summary: Option<String>,
    pending_summaries: Vec<(String, String)>,
    recent_uuids: VecDeque<String>,
    pub first_prompt: Option<String>,
    pub cost_usd: Option<f64>,
    pub records: u64,
}

impl Accumulator {
    pub fn tokens(&self) -> Tokens {
        let mut t = self.tokens_done;
        for m in &self.recent {
            t.add(&m.tokens);
        }
        t
    }

    /// A file is a session once it holds a record of a conversation (summary-only files and
    /// 0-byte files are not).
    pub fn is_session(&self) -> bool {
        self.last_session_id.is_some()
    }

    /// Folds one decoded record into the summary.
    pub fn add(&mut self, rec: &Record<'_>, role: &FileRole) {
        self.records += 1;
        if let Some(id) = rec.session_id.as_deref() {
            if self.last_session_id.as_deref() != Some(id) {
                self.last_session_id = Some(id.to_owned());
            }
        }
        set_once(&mut self.cwd, rec.cwd.as_deref());
        set_latest(&mut self.git_branch, rec.git_branch.as_deref());
        set_latest(&mut self.version, rec.version.as_deref());
        if let Some(ts) = rec.timestamp.as_deref() {
            set_once(&mut self.first_timestamp, Some(ts));
            set_latest(&mut self.last_timestamp, Some(ts));
        }
        if let Some(uuid) = rec.uuid.as_deref() {
            self.note_uuid(uuid);
        }
        // Inline sidechains (1.0.x) belong to a subagent, not to this session's counts.
        let own = !rec.sidechain() || role.is_agent();
        match rec.kind() {
            "user" if own => self.add_user(rec),
            "assistant" if own => self.add_assistant(rec),
            "summary" => self.add_summary(rec),
            "custom-title" => set_latest(&mut self.custom_title, rec.custom_title.as_deref()),
            "ai-title" => set_latest(&mut self.ai_title, rec.ai_title.as_deref()),
            "cost-state" if rec.total_cost_usd.is_some() => self.cost_usd = rec.total_cost_usd,
            _ => {}
        }
    }

    fn add_user(&mut self, rec: &Record<'_>) {
        let facts = rec.user_facts();
        if classify_user(&facts) != UserKind::Prompt {
            return;
        }
        self.counts.user += 1;
        if self.first_prompt.is_none() {
            self.first_prompt = facts.text.and_then(|t| title_from_text(t, TITLE_CHARS));
        }
    }

    fn add_assistant(&mut self, rec: &Record<'_>) {
        let Some(msg) = rec.message.as_ref() else {
            return;
        };
        let model = msg.model.as_deref();
        if model == Some(SYNTHETIC_MODEL) {
            return;
        }
        if let Some(Content::Blocks(blocks)) = &msg.content {
            let calls = blocks
                .iter()
                .filter(|b| b.kind.as_deref() == Some("tool_use"))
                .count();
            self.counts.tool_calls += calls as u64;
        }
        set_latest(&mut self.model, model);
        let tokens = msg.usage.map(|u| u.tokens()).unwrap_or_default();
        self.saw_usage |= msg.usage.is_some();
        let Some(id) = msg.id.as_deref() else {
            self.counts.assistant += 1;
            self.tokens_done.add(&tokens);
            return;
        };
        // Split records of one response repeat its id (and its usage, growing): keep the last.
        if let Some(m) = self.recent.iter_mut().find(|m| m.id == id) {
            if msg.usage.is_some() {
                m.tokens = tokens;
            }
            return;
        }
        self.counts.assistant += 1;
        if self.recent.len() == RECENT_MESSAGES {
            if let Some(old) = self.recent.pop_front() {
                self.tokens_done.add(&old.tokens);
            }
        }
        self.recent.push_back(RecentMessage {
            id: id.to_owned(),
            tokens,
        });
    }

    /// A `summary` names its conversation by `leafUuid`; 1.0.x writes summaries of *other*
    /// sessions at the top of a new file, so one only counts when its leaf is in this file.
    fn add_summary(&mut self, rec: &Record<'_>) {
        let (Some(text), Some(leaf)) = (rec.summary.as_deref(), rec.leaf_uuid.as_deref()) else {
            return;
        };
        if self.recent_uuids.iter().any(|u| u == leaf) {
            self.summary = Some(text.to_owned());
        } else if self.pending_summaries.len() < PENDING_SUMMARIES {
            self.pending_summaries
                .push((leaf.to_owned(), text.to_owned()));
        }
    }

    fn note_uuid(&mut self, uuid: &str) {
        if let Some(i) = self.pending_summaries.iter().position(|(l, _)| l == uuid) {
            let (_, text) = self.pending_summaries.swap_remove(i);
            self.summary = Some(text);
        }
        if self.recent_uuids.len() == RECENT_UUIDS {
            self.recent_uuids.pop_front();
        }
        self.recent_uuids.push_back(uuid.to_owned());
    }
}

fn set_once(slot: &mut Option<String>, value: Option<&str>) {
    if slot.is_none() {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            *slot = Some(v.to_owned());
        }
    }
}

fn set_latest(slot: &mut Option<String>, value: Option<&str>) {
    if let Some(v) = value.filter(|v| !v.is_empty()) {
        if slot.as_deref() != Some(v) {
            *slot = Some(v.to_owned());
        }
    }
}

/// Where a Claude transcript's scan stopped.
pub type Cursor = jsonl::Cursor<Accumulator>;

/// Reads `path` from `cursor` to its end, folding every complete record into the cursor.
pub fn scan_file(path: &Path, role: &FileRole, cursor: Cursor) -> std::io::Result<Cursor> {
    jsonl::fold_file(path, cursor, |acc, bytes| {
        let mut scratch = Vec::new();
        let rec = parse_line_borrowed::<Record>(bytes, &mut scratch)?;
        acc.add(&rec, role);
        Ok(())
    })
}

/// A transcript file found under a root.
#[derive(Debug, Clone)]
pub struct Found {
    pub path: PathBuf,
    pub role: FileRole,
}

/// Lists every transcript file under `root/projects`; what could not be listed goes to `walker`.
pub fn discover(root: &Path, walker: &mut Walker) -> Vec<Found> {
    let mut out = Vec::new();
    for project in walker.entries(&root.join("projects")) {
        if !walker.descend(&project) {
            continue;
        }
        for entry in walker.entries(&project.path) {
            if let Some(stem) = entry.name.strip_suffix(".jsonl") {
                let role = if stem.starts_with("agent-") {
                    FileRole::FlatAgent
                } else {
                    FileRole::Main
                };
                if walker.is(&entry, Kind::File) {
                    out.push(Found {
                        path: entry.path,
                        role,
                    });
                }
            } else if walker.descend(&entry) {
                discover_subagents(&entry.path, &entry.name, walker, &mut out);
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

fn discover_subagents(session_dir: &Path, parent: &str, walker: &mut Walker, out: &mut Vec<Found>) {
    for entry in walker.entries(&session_dir.join("subagents")) {
        let is_transcript = entry.name.starts_with("agent-") && entry.name.ends_with(".jsonl");
        if is_transcript && walker.is(&entry, Kind::File) {
            out.push(Found {
                path: entry.path,
                role: FileRole::Subagent {
                    parent: parent.to_owned(),
                },
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn scan_str(data: &str, role: &FileRole) -> Cursor {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, data).unwrap();
        scan_file(&path, role, Cursor::default()).unwrap()
    }

    const USER: &str = r#"{"type":"user","uuid":"u1","sessionId":"s","cwd":"/w","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hello there"}}"#;
    const A1: &str = r#"{"type":"assistant","uuid":"a1","message":{"id":"m1","model":"claude-x","content":[{"type":"thinking","thinking":"hm"}],"usage":{"input_tokens":10,"output_tokens":1}}}"#;
    const A2: &str = r#"{"type":"assistant","uuid":"a2","message":{"id":"m1","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"input_tokens":10,"output_tokens":30}}}"#;

    #[test]
    fn merges_split_assistant_records_and_counts_tools() {
        let c = scan_str(&format!("{USER}\n{A1}\n{A2}\n"), &FileRole::Main);
        assert_eq!(
            c.acc.counts,
            Counts {
                user: 1,
                assistant: 1,
                tool_calls: 1
            }
        );
        assert_eq!(c.acc.tokens().output, 30);
        assert_eq!(c.acc.tokens().input, 10);
        assert_eq!(c.acc.first_prompt.as_deref(), Some("hello there"));
        assert_eq!(c.acc.cwd.as_deref(), Some("/w"));
    }

    #[test]
    fn a_half_written_last_line_waits_for_the_next_scan() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let half = &A2[..40];
        std::fs::write(&path, format!("{USER}\n{A1}\n{half}")).unwrap();
        let first = scan_file(&path, &FileRole::Main, Cursor::default()).unwrap();
        assert_eq!(first.problems.count, 0);
        assert_eq!(first.lines, 2);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(&A2.as_bytes()[40..]).unwrap();
        f.write_all(b"\n").unwrap();
        drop(f);
        let resumed = scan_file(&path, &FileRole::Main, first).unwrap();
        let whole = scan_file(&path, &FileRole::Main, Cursor::default()).unwrap();
        assert_eq!(resumed, whole);
        assert_eq!(whole.acc.counts.tool_calls, 1);
    }

    #[test]
    fn bad_lines_are_counted_with_their_number() {
        let c = scan_str(&format!("{USER}\nnot json\n{A1}\n"), &FileRole::Main);
        assert_eq!(c.problems.count, 1);
        assert_eq!(c.problems.items[0].line, 2);
        assert_eq!(c.acc.counts.assistant, 1);
    }

    #[test]
    fn inline_sidechains_do_not_count_on_the_parent() {
        let side = USER.replace(r#""type":"user""#, r#""type":"user","isSidechain":true"#);
        let c = scan_str(&format!("{side}\n"), &FileRole::Main);
        assert_eq!(c.acc.counts.user, 0);
        let c = scan_str(&format!("{side}\n"), &FileRole::FlatAgent);
        assert_eq!(c.acc.counts.user, 1);
    }
}
