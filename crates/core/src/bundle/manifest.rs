//! `manifest.json`, the bundle's table of contents (`docs/bundle-format.md`): what made the
//! bundle, which sessions it holds, and every other file with its size and SHA-256. A bundle
//! comes from another machine or another person, so [`Manifest::check`] takes nothing on
//! trust: every id, title, directory and file name is checked before anything is shown or
//! written.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::redact::RedactionCounts;
use super::BundleError;
use crate::actions::resume;
use crate::model::{Counts, ProviderKind, SessionMeta, Tokens};
use crate::provider::ids;
use crate::provider::registry;

/// What the `format` field always says.
pub const FORMAT: &str = "agent-sessions.bundle";
/// The manifest layout this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// The manifest's name in the archive.
pub const MANIFEST: &str = "manifest.json";
/// The unified transcript (`agent-sessions.export.v1`) and its Markdown rendering.
pub const TRANSCRIPT: &str = "transcript.json";
pub const MARKDOWN: &str = "transcript.md";

/// Longest title, directory and file name accepted (in characters / bytes).
const MAX_TITLE: usize = 1000;
const MAX_DIR: usize = 4096;
const MAX_NAME: usize = 255;

/// Complete (private, restorable) or share-safe (redacted, for handoff only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "BundleMode")]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Complete,
    ShareSafe,
}

/// The bundle's manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "BundleManifest")]
pub struct Manifest {
    pub format: String,
    pub format_version: u32,
    /// The agent-sessions version that wrote it.
    pub app_version: String,
    pub created_at: DateTime<Utc>,
    pub mode: Mode,
    pub source: Source,
    /// The session the bundle was made of.
    pub session: SessionInfo,
    /// Its subagent sessions (all descendants), whose records come along.
    #[serde(default)]
    pub subagents: Vec<SessionInfo>,
    /// Every file of the archive but this manifest.
    pub files: Vec<FileEntry>,
    /// Share-safe bundles: what the redaction replaced, per rule.
    #[serde(default)]
    pub redaction: Option<RedactionCounts>,
    /// What a reader should know (records that could not be included, and why).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Where the session comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "BundleSource")]
pub struct Source {
    pub provider: ProviderKind,
    /// The agent's own version that wrote the session.
    pub tool_version: Option<String>,
    /// The machine the bundle was made on.
    pub host: Option<String>,
}

/// A session's metadata, as the bundle carries it (no local file paths).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "BundleSession")]
pub struct SessionInfo {
    pub id: String,
    pub parent_id: Option<String>,
    pub title: Option<String>,
    pub cwd: Option<String>,
    pub git_branch: Option<String>,
    pub model: Option<String>,
    pub agent: Option<String>,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
    pub counts: Counts,
    pub tokens: Option<Tokens>,
}

impl SessionInfo {
    pub fn of(s: &SessionMeta) -> Self {
        SessionInfo {
            id: s.id.clone(),
            parent_id: s.parent_id.clone(),
            title: s.title.as_deref().map(tidy_title),
            cwd: s.cwd.clone(),
            git_branch: s.git_branch.clone(),
            model: s.model.clone(),
            agent: s.agent.clone(),
            created_at: s.created_at,
            updated_at: s.updated_at,
            counts: s.counts,
            tokens: s.tokens,
        }
    }
}

/// What a file of the archive is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "BundleFileKind")]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// The unified transcript, JSON.
    Transcript,
    /// The unified transcript, Markdown.
    Markdown,
    /// One of the agent's own records, verbatim (complete bundles only).
    Native,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "BundleFile")]
pub struct FileEntry {
    pub path: String,
    pub kind: FileKind,
    /// The session a native file belongs to.
    #[serde(default)]
    pub session: Option<String>,
    pub size: u64,
    /// Lowercase hex.
    pub sha256: String,
}

impl Manifest {
    /// The main session and its subagents.
    pub fn sessions(&self) -> impl Iterator<Item = &SessionInfo> {
        std::iter::once(&self.session).chain(&self.subagents)
    }

    pub fn native_files(&self) -> impl Iterator<Item = &FileEntry> {
        self.files.iter().filter(|f| f.kind == FileKind::Native)
    }

    /// Everything a reader relies on, checked: the format and its version, every session id
    /// of the provider's own shape, titles and directories without control or bidi
    /// characters, parents inside the bundle, every file name safe and where the layout puts
    /// it, no name twice.
    pub fn check(&self) -> Result<(), BundleError> {
        let bad = |why: String| Err(BundleError::Manifest(why));
        if self.format != FORMAT {
            return bad(format!("the format is {:?}, not {FORMAT:?}", self.format));
        }
        check_version(self.format_version)?;
        let provider = self.source.provider;
        let mut ids = BTreeSet::new();
        for (i, s) in self.sessions().enumerate() {
            check_id(provider, &s.id, i > 0)?;
            if !ids.insert(s.id.as_str()) {
                return bad(format!("the session {} is listed twice", s.id));
            }
            if let Some(t) = &s.title {
                check_title(t)?;
            }
            if let Some(d) = &s.cwd {
                check_text("directory", d, MAX_DIR)?;
            }
            for v in [&s.git_branch, &s.model, &s.agent].into_iter().flatten() {
                check_text("field", v, MAX_TITLE)?;
            }
        }
        for s in &self.subagents {
            match &s.parent_id {
                Some(p) if ids.contains(p.as_str()) => {}
                _ => return bad(format!("the subagent {} has no parent in the bundle", s.id)),
            }
        }
        for v in [&self.source.tool_version, &self.source.host]
            .into_iter()
            .flatten()
        {
            check_text("source field", v, MAX_TITLE)?;
        }
        let mut names = BTreeSet::new();
        for f in &self.files {
            check_name(&f.path)?;
            if f.path == MANIFEST || !names.insert(f.path.as_str()) {
                return bad(format!("the file {} is listed twice", f.path));
            }
            if f.sha256.len() != 64 || !f.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                return bad(format!("the checksum of {} is not a SHA-256", f.path));
            }
            let expected = match f.kind {
                FileKind::Transcript => f.path == TRANSCRIPT,
                FileKind::Markdown => f.path == MARKDOWN,
                FileKind::Native => {
                    let owner = f.session.as_deref().unwrap_or_default();
                    ids.contains(owner) && native_layout(provider, &f.path, owner)
                }
            };
            if !expected {
                return Err(BundleError::Unsafe(format!(
                    "{} is not where a {provider} bundle keeps such a file",
                    f.path
                )));
            }
        }
        if self.mode == Mode::ShareSafe && self.native_files().next().is_some() {
            return bad("a share-safe bundle holds the agent's own records".into());
        }
        Ok(())
    }
}

pub(crate) fn check_version(version: u32) -> Result<(), BundleError> {
    match version {
        FORMAT_VERSION => Ok(()),
        v if v > FORMAT_VERSION => Err(BundleError::Version(format!(
            "the bundle has format version {v}, made by a newer agent-sessions; this one reads version {FORMAT_VERSION}: update agent-sessions"
        ))),
        v => Err(BundleError::Version(format!(
            "the bundle has format version {v}, which no agent-sessions writes"
        ))),
    }
}

/// A session id of `provider`'s own shape (a subagent's where `sub`).
pub(crate) fn check_id(provider: ProviderKind, id: &str, sub: bool) -> Result<(), BundleError> {
    if ids::is_session_id(provider, id, sub) {
        Ok(())
    } else {
        Err(BundleError::Unsafe(format!(
            "{:?} is not a {provider} session id",
            shown(id)
        )))
    }
}

/// Characters no title, directory or name may hold: controls (C0, C1, DEL), line and
/// paragraph separators, bidi controls (the ones a resume command refuses).
pub(crate) fn is_unsafe_char(c: char) -> bool {
    resume::is_control(c)
}

/// A title as a bundle may carry it (the manifest's, and the records' where a restore writes
/// one): at most 1000 characters, no control or bidi characters.
pub(crate) fn check_title(title: &str) -> Result<(), BundleError> {
    check_text("title", title, MAX_TITLE)
}

fn check_text(what: &str, text: &str, max: usize) -> Result<(), BundleError> {
    if text.chars().count() > max {
        return Err(BundleError::Unsafe(format!(
            "a {what} is longer than {max} characters"
        )));
    }
    if text.chars().any(is_unsafe_char) {
        return Err(BundleError::Unsafe(format!(
            "the {what} {:?} holds control or bidi characters",
            shown(text)
        )));
    }
    Ok(())
}

/// A title with control and bidi characters as spaces (what the bundle carries).
pub(crate) fn tidy_title(title: &str) -> String {
    let t: String = title
        .chars()
        .map(|c| if is_unsafe_char(c) { ' ' } else { c })
        .take(MAX_TITLE)
        .collect();
    t.trim().to_owned()
}

/// `text` for an error message, each unsafe character as `\u{…}`, cut to 80 characters.
pub(crate) fn shown(text: &str) -> String {
    resume::shown(&text.chars().take(80).collect::<String>())
}

/// An archive name that cannot leave the folder it is written under on any system: relative,
/// `/`-separated, every part letters, digits, `.`, `_`, `-` (not `.`/`..`, no drive letter,
/// no backslash, no reserved Windows device name), at most 8 parts.
pub fn check_name(name: &str) -> Result<(), BundleError> {
    let unsafe_name = |why: &str| {
        Err(BundleError::Unsafe(format!(
            "the entry {:?} {why}; nothing was written",
            shown(name)
        )))
    };
    if name.starts_with('/') || name.starts_with('\\') {
        return unsafe_name("is an absolute path");
    }
    if name.contains('\\') {
        return unsafe_name("holds a backslash");
    }
    let parts: Vec<&str> = name.split('/').collect();
    if parts.contains(&"..") {
        return unsafe_name("climbs out of the bundle (..)");
    }
    if parts
        .first()
        .is_some_and(|p| p.len() == 2 && p.ends_with(':'))
        || name.contains(':')
    {
        return unsafe_name("names a drive or a stream");
    }
    if parts.len() > 8 {
        return unsafe_name("is nested too deep");
    }
    for p in &parts {
        let ok = !p.is_empty()
            && *p != "."
            && p.len() <= MAX_NAME
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
            && !p.starts_with('.')
            && !is_device_name(p);
        if !ok {
            return unsafe_name("has a part that is not a plain file name");
        }
    }
    Ok(())
}

/// CON, PRN, AUX, NUL, COM1–9, LPT1–9 (with any extension): Windows devices.
fn is_device_name(part: &str) -> bool {
    let stem = part
        .split('.')
        .next()
        .unwrap_or_default()
        .to_ascii_uppercase();
    matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.len() == 4
            && stem.as_bytes()[3].is_ascii_digit())
}

/// Where each provider's native records live in the archive (`docs/bundle-format.md`): below
/// `native/<provider>/`, where the agent's layout puts them (`Bundles::layout`, in its
/// `bundle.rs`).
pub(crate) fn native_layout(provider: ProviderKind, path: &str, owner: &str) -> bool {
    let Some(rest) = path.strip_prefix("native/") else {
        return false;
    };
    let Some(rest) = rest
        .strip_prefix(provider.as_str())
        .and_then(|r| r.strip_prefix('/'))
    else {
        return false;
    };
    (registry::agent(provider).bundles.layout)(rest, owner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_leave_the_folder_are_refused() {
        for bad in [
            "../x",
            "a/../../x",
            "/etc/passwd",
            "\\x",
            "a\\..\\x",
            "C:/x",
            "C:x",
            "a//b",
            "./a",
            "a/./b",
            ".hidden",
            "nul.txt",
            "a/COM1",
            "a/b c",
            "a\u{202e}b",
            "",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?} was accepted");
        }
        for good in [
            "manifest.json",
            "native/claude/7938f0db-aeb3-409b-ab80-42085a5431da.jsonl",
            "native/codex/sessions/2026/11/30/rollout-2026-11-30T09-24-07-x.jsonl",
            "a..b",
        ] {
            assert!(check_name(good).is_ok(), "{good:?} was refused");
        }
    }

    #[test]
    fn native_files_go_only_where_the_layout_puts_them() {
        let id = "7938f0db-aeb3-409b-ab80-42085a5431da";
        let c = ProviderKind::Claude;
        assert!(native_layout(c, &format!("native/claude/{id}.jsonl"), id));
        assert!(native_layout(
            c,
            &format!("native/claude/{id}/tool-results/x.txt"),
            id
        ));
        assert!(native_layout(
            c,
            "native/claude/agent-48e4a672.jsonl",
            "agent-48e4a672"
        ));
        assert!(native_layout(
            c,
            &format!("native/claude/{id}/subagents/agent-ab35.meta.json"),
            "agent-ab35"
        ));
        assert!(!native_layout(c, &format!("native/codex/{id}.jsonl"), id));
        assert!(!native_layout(c, "native/claude/other.jsonl", id));
        let o = ProviderKind::Opencode;
        assert!(native_layout(o, "native/opencode/ses_1.json", "ses_1"));
        assert!(!native_layout(o, "native/opencode/ses_2.json", "ses_1"));
        let x = ProviderKind::Codex;
        let cid = "01a22bc4-cb24-7030-8af9-1f6d53970528";
        assert!(native_layout(
            x,
            &format!("native/codex/sessions/2026/11/30/rollout-2026-11-30T09-24-07-{cid}.jsonl"),
            cid
        ));
        assert!(!native_layout(
            x,
            &format!("native/codex/config/rollout-{cid}.jsonl"),
            cid
        ));
    }
}
