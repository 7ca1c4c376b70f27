//! The unified data model (SPEC §3.2): what every provider turns its own records into.
//!
//! These are plain serde types. Their JSON form is the CLI contract (`agent-sessions.cli.v1`),
//! so field names here are part of the public interface: rename with care.
//!
//! This crate is the bottom layer (docs/architecture.md, "Layers"): it depends on serde and
//! chrono only, never on another crate of ours, so the model cannot reach live detection, the
//! providers or the actions, and every type a front end shows is defined here.

mod live;
mod notice;
mod os;
pub mod path;
pub mod resume;

pub use live::{LiveSession, TurnState};
pub use notice::NoticeKind;
pub use os::Os;
pub use resume::{ResumeCommand, Unresumable};

use std::cmp::Ordering;
use std::fmt;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Which agent wrote a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    Claude,
    Codex,
    Opencode,
    Gemini,
    Qwen,
    Cline,
    Copilot,
    Aider,
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 8] = [
        Self::Claude,
        Self::Codex,
        Self::Opencode,
        Self::Gemini,
        Self::Qwen,
        Self::Cline,
        Self::Copilot,
        Self::Aider,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Claude => "claude",
            Self::Codex => "codex",
            Self::Opencode => "opencode",
            Self::Gemini => "gemini",
            Self::Qwen => "qwen",
            Self::Cline => "cline",
            Self::Copilot => "copilot",
            Self::Aider => "aider",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Message counts as SPEC §6 defines them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Counts {
    /// Human prompts: no meta/injected records, tool results, command wrappers or summaries.
    pub user: u64,
    /// Assistant messages, one per model response (split records merged by message id).
    pub assistant: u64,
    /// Tool calls made by the counted assistant messages.
    pub tool_calls: u64,
}

impl Counts {
    /// Counts a loaded transcript the way the scan counts its records.
    pub fn of(messages: &[Message]) -> Counts {
        let mut counts = Counts::default();
        for m in messages.iter().filter(|m| !m.meta && !m.sidechain) {
            match m.role {
                Role::User if m.counted => counts.user += 1,
                Role::Assistant => {
                    counts.assistant += u64::from(m.counted);
                    // Tool calls count wherever the model made them, also in steps that have no
                    // text of their own (Codex).
                    let tools = m.parts.iter().filter(|p| matches!(p, Part::Tool(_)));
                    counts.tool_calls += tools.count() as u64;
                }
                _ => {}
            }
        }
        counts
    }
}

/// Token totals over a session's model responses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

impl Tokens {
    pub fn add(&mut self, other: &Tokens) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
    }

    pub fn is_zero(&self) -> bool {
        *self == Tokens::default()
    }
}

/// Where a session's cost figure comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CostBasis {
    /// No cost: no tokens recorded (or not yet priced by the catalog).
    #[default]
    None,
    /// The agent recorded it.
    Recorded,
    /// Estimated from the tokens and the price table.
    Estimated,
    /// Tokens are recorded but the price table has no price for the model (or no model is known).
    Unpriced,
}

/// Everything known about a session without loading its transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SessionMeta {
    pub provider: ProviderKind,
    /// The agent's own id for the session (never invented).
    pub id: String,
    /// The parent session for subagents / child sessions.
    pub parent_id: Option<String>,
    /// The session this one was forked from (a separate session, not a child).
    pub forked_from: Option<String>,
    pub cwd: Option<String>,
    /// `cwd` normalised (`.`/`..` and trailing separators cleaned, symlinks resolved where it
    /// exists): what lists group by, so one directory never shows twice. `cwd` stays as the
    /// agent wrote it (resume, bundles rewrite it). Filled by the catalog (`null` before that: a
    /// provider's own output does not have it). Always serialized: providers keep SessionMeta
    /// in their postcard state, which cannot skip a field (a skipped one failed every decode,
    /// so every scan was a full one).
    pub dir: Option<String>,
    /// The repository of `cwd` when it exists on this machine: its git toplevel, a worktree's
    /// main repository (SPEC §5 "Fold by repository").
    pub repo_root: Option<String>,
    pub git_branch: Option<String>,
    pub title: Option<String>,
    pub model: Option<String>,
    /// The agent profile the session ran with, where the provider has them (OpenCode `build`).
    pub agent: Option<String>,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
    pub counts: Counts,
    /// Lines and files the session changed, where the provider records it (OpenCode).
    pub changes: Option<ChangeSummary>,
    pub tokens: Option<Tokens>,
    /// What the agent itself recorded the session cost (OpenCode, Claude's cost records).
    pub cost_usd: Option<f64>,
    /// The cost estimated from `tokens` and `model` with the price table (core `pricing`),
    /// where the agent recorded none. Filled by the catalog, like `dir`.
    #[serde(default)]
    pub cost_estimate_usd: Option<f64>,
    /// Where the session's cost comes from, or why it has none.
    #[serde(default)]
    pub cost_basis: CostBasis,
    pub archived: bool,
    pub live: bool,
    /// What a live session is doing (`None` when it is not live).
    pub turn: Option<TurnState>,
    /// The file (or database) the session was read from. In JSON, lossy where the name is not
    /// UTF-8 (see [`path`]).
    #[serde(with = "path::os")]
    #[ts(type = "string")]
    pub source_path: PathBuf,
    /// The writing tool's own version string, to diagnose format drift.
    pub format_version: Option<String>,
}

impl SessionMeta {
    /// When the session was last active: its last update, else its start. The day of this is
    /// the session's day everywhere (the list's date filters, stats by day and week, Home's
    /// heatmap), so a click on a day shows the sessions counted there.
    pub fn last_active(&self) -> Option<DateTime<Utc>> {
        self.updated_at.or(self.created_at)
    }

    /// The session's cost: what the agent recorded, else our estimate.
    pub fn cost(&self) -> Option<f64> {
        self.cost_usd.or(self.cost_estimate_usd)
    }

    /// The order of every session list: newest first, ties broken by provider and id so the
    /// order is stable (`sessions.sort_by(SessionMeta::newest_first)`).
    pub fn newest_first(a: &Self, b: &Self) -> Ordering {
        b.updated_at
            .cmp(&a.updated_at)
            .then_with(|| a.provider.cmp(&b.provider))
            .then_with(|| a.id.cmp(&b.id))
    }

    pub fn new(provider: ProviderKind, id: String, source_path: PathBuf) -> Self {
        SessionMeta {
            provider,
            id,
            parent_id: None,
            forked_from: None,
            cwd: None,
            dir: None,
            repo_root: None,
            git_branch: None,
            title: None,
            model: None,
            agent: None,
            created_at: None,
            updated_at: None,
            counts: Counts::default(),
            changes: None,
            tokens: None,
            cost_usd: None,
            cost_estimate_usd: None,
            cost_basis: CostBasis::None,
            archived: false,
            live: false,
            turn: None,
            source_path,
            format_version: None,
        }
    }
}

/// What a session changed in its working tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ChangeSummary {
    pub additions: u64,
    pub deletions: u64,
    pub files: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    System,
}

/// One entry of a transcript: a user prompt, a merged assistant message, or a meta/system record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Message {
    /// Stable within the session: the record uuid, or the assistant message id.
    pub id: String,
    pub role: Role,
    /// The message this one answers or follows in the conversation tree (Claude's
    /// `parentUuid` threading); `None` at a root or where the provider has no tree.
    pub parent_id: Option<String>,
    pub timestamp: Option<DateTime<Utc>>,
    pub model: Option<String>,
    /// Counted by SPEC §6 (shown by default). Meta, injected and sidechain records are not.
    pub counted: bool,
    /// Injected or bookkeeping content, hidden unless the user asks for meta records.
    pub meta: bool,
    /// Belongs to an inline subagent conversation (Claude 1.0.x sidechains).
    pub sidechain: bool,
    pub parts: Vec<Part>,
    /// 1-based line numbers of the source records, for the raw-JSON view.
    pub source_lines: Vec<u64>,
}

/// The content of a message. Large outputs and images are referenced by blob key, never inlined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Part {
    Text {
        text: String,
    },
    Reasoning {
        text: String,
        /// The provider stored the reasoning encrypted or redacted; `text` may be empty.
        encrypted: bool,
    },
    Tool(ToolPart),
    Patch {
        files: Vec<FileChange>,
    },
    File {
        path: Option<String>,
        mime: Option<String>,
        blob: Option<String>,
    },
    Compaction {
        trigger: Option<String>,
        pre_tokens: Option<u64>,
        summary: Option<String>,
    },
    Notice {
        /// What produced it: `command`, `attachment:<type>`, `interrupt`, … (a string in JSON).
        #[ts(type = "string")]
        source: NoticeKind,
        text: String,
    },
}

/// A tool call merged with its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ToolPart {
    pub call_id: String,
    pub name: String,
    pub input: serde_json::Value,
    pub status: ToolStatus,
    /// The result text, cut to a preview when large (then `output_blob` holds the rest).
    pub output: Option<String>,
    pub output_truncated: bool,
    pub output_blob: Option<String>,
    /// Files a tool changed (edits, writes, patches), with unified diffs where known.
    pub changes: Vec<FileChange>,
    /// The child session this call started (subagents).
    pub subagent_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ToolStatus {
    /// No result recorded (yet): still running, interrupted, or the session ended.
    Pending,
    Ok,
    Error,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct FileChange {
    pub path: String,
    /// `add`, `update` or `delete`.
    pub change: String,
    pub diff: Option<String>,
    pub additions: u64,
    pub deletions: u64,
}

/// A session with its full transcript.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct Transcript {
    pub session: SessionMeta,
    pub messages: Vec<Message>,
    pub diagnostics: Diagnostics,
}

/// One problem met while reading a store: never fatal, always counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Diagnostic {
    pub provider: ProviderKind,
    /// In JSON, lossy where the name is not UTF-8 (see [`path`]).
    #[serde(with = "path::os")]
    #[ts(type = "string")]
    pub path: PathBuf,
    /// 1-based line number, for line-oriented files.
    pub line: Option<u64>,
    pub reason: String,
}

/// Problems met during a scan or load. `items` is capped; `parse_errors` counts them all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Diagnostics {
    pub parse_errors: u64,
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// How many items a report keeps; the count goes on past it.
    pub const MAX_ITEMS: usize = 200;

    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.parse_errors += 1;
        if self.items.len() < Self::MAX_ITEMS {
            self.items.push(diagnostic);
        }
    }

    pub fn merge(&mut self, other: &Diagnostics) {
        self.parse_errors += other.parse_errors;
        let room = Self::MAX_ITEMS.saturating_sub(self.items.len());
        self.items.extend(other.items.iter().take(room).cloned());
    }
}
