//! The errors the core reports to its front ends: each says what went wrong and what to do.

use std::path::{Path, PathBuf};

use crate::model::{ProviderKind, SessionMeta};

pub use agent_sessions_providers::Error as ProviderError;

/// How many of the sessions an ambiguous id matches its error lists.
pub const AMBIGUOUS_LISTED: usize = 5;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the {provider} root {path} does not exist; check the path, or give no root to read the configured or default one")]
    RootMissing {
        provider: &'static str,
        path: PathBuf,
    },

    /// A provider's error (a session or blob that is not there, a store file that cannot be
    /// read, a session that cannot be resumed), with its own text and code.
    #[error(transparent)]
    Provider(#[from] agent_sessions_providers::Error),

    /// An id (or prefix, or file) that names more than one session: `candidates` says each
    /// one's agent, id and file, so the user can name one by its file. `whole`: every match has
    /// the same whole id (one session in two files), so more of the id cannot help.
    #[error("the id {id:?} matches {count} sessions ({}); {}", candidates.join("; "), ambiguous_advice(*whole))]
    AmbiguousId {
        id: String,
        count: usize,
        candidates: Vec<String>,
        whole: bool,
    },

    /// The agent (Claude Code) resumes a session by its id from its directory and finds the
    /// file itself: for this row's session it would open another file (`opens`), or none of
    /// the several that hold the id (`found`). Refused before anything is run.
    #[error("{}", resume_other_copy(*provider, id, cwd, chosen, opens.as_deref(), found))]
    ResumeOtherCopy {
        provider: ProviderKind,
        /// Boxed: with the agent beside it, a `String` would make every `Error` larger.
        id: Box<str>,
        cwd: String,
        /// The file of the row the user chose (for a subagent, its parent's file).
        chosen: PathBuf,
        opens: Option<PathBuf>,
        found: Vec<PathBuf>,
    },

    #[error("{}", cache_unusable(path, reason))]
    Cache { path: PathBuf, reason: String },

    /// Another process holds the cache's write lock for longer than we wait.
    #[error("the session cache {path} is busy: another agent-sessions process is writing it; try again in a moment ({reason})")]
    CacheBusy { path: PathBuf, reason: String },

    /// The cache file is damaged and could not be rebuilt in place.
    #[error("the session cache {path} is damaged ({reason}); delete the file {path}: it is rebuilt from the agents' stores")]
    CacheCorrupt { path: PathBuf, reason: String },

    #[error("cannot write the cache at {path}: {reason}; set AGENT_SESSIONS_CACHE_DIR to a writable directory")]
    CacheUnwritable { path: PathBuf, reason: String },

    #[error("bad search query: {0}")]
    BadQuery(String),

    /// A file we were asked to write (an export) could not be; nothing was left behind.
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A file we were asked to create is already there; it was left as it was.
    #[error("{path} already exists and was left as it was; choose another file name or allow overwriting it")]
    FileExists { path: PathBuf },

    /// No terminal was opened (unknown or missing terminal, missing directory, agent not found).
    #[error(transparent)]
    Terminal(#[from] crate::actions::terminal::TerminalError),

    /// A session was not trashed or deleted: refused (opt-in off, live, recent, the agent
    /// cannot), or failed with everything put back.
    #[error(transparent)]
    Trash(#[from] crate::actions::trash::TrashError),

    /// Nothing was translated (not set up, no such message, the endpoint failed).
    #[error(transparent)]
    Translate(#[from] crate::actions::translate::TranslateError),

    /// A bundle was not made, read or restored (see its message for what was left).
    #[error(transparent)]
    Bundle(#[from] crate::bundle::BundleError),

    /// An error another machine reported (a host answering `--host`), with its code and
    /// message kept as it gave them, so a front end prints what that machine would have.
    #[error("{message}")]
    Remote { code: String, message: String },
}

impl Error {
    /// A store file (or one the user named) that cannot be read.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ProviderError::io(path, source).into()
    }

    pub fn session_not_found(id: impl Into<String>) -> Self {
        ProviderError::SessionNotFound(id.into()).into()
    }

    /// `name` matches every session of `matches` (two or more): each is listed by agent, id and
    /// file, the file being what tells two copies of one session apart.
    /// At most [`AMBIGUOUS_LISTED`] are listed (a short prefix may match every session).
    pub fn ambiguous(name: &str, matches: &[&SessionMeta]) -> Self {
        let mut candidates: Vec<String> = matches
            .iter()
            .take(AMBIGUOUS_LISTED)
            .map(|s| format!("{} {} in {}", s.provider, s.id, s.source_path.display()))
            .collect();
        if matches.len() > AMBIGUOUS_LISTED {
            candidates.push(format!("{} more", matches.len() - AMBIGUOUS_LISTED));
        }
        Error::AmbiguousId {
            id: name.to_owned(),
            count: matches.len(),
            candidates,
            whole: matches.windows(2).all(|w| w[0].id == w[1].id),
        }
    }

    pub fn resume_unavailable(why: impl Into<String>) -> Self {
        ProviderError::ResumeUnavailable(why.into()).into()
    }

    /// The provider's error behind this one, if it is one (to tell a missing session from
    /// other failures).
    pub fn provider(&self) -> Option<&ProviderError> {
        match self {
            Error::Provider(e) => Some(e),
            _ => None,
        }
    }

    pub fn is_session_not_found(&self) -> bool {
        matches!(self.provider(), Some(ProviderError::SessionNotFound(_)))
    }

    /// A short stable code for the CLI's JSON error envelope (a remote's own for
    /// [`Error::Remote`]).
    pub fn code(&self) -> &str {
        match self {
            Error::RootMissing { .. } => "root_missing",
            Error::Provider(e) => e.code(),
            Error::AmbiguousId { .. } => "ambiguous_id",
            Error::ResumeOtherCopy { .. } => "resume_other_copy",
            // One code for every cache problem: the message tells them apart.
            Error::Cache { .. }
            | Error::CacheBusy { .. }
            | Error::CacheCorrupt { .. }
            | Error::CacheUnwritable { .. } => "cache",
            Error::BadQuery(_) => "bad_query",
            Error::Write { .. } => "write",
            Error::FileExists { .. } => "file_exists",
            Error::Terminal(e) => e.code(),
            Error::Trash(e) => e.code(),
            Error::Translate(e) => e.code(),
            Error::Bundle(e) => e.code(),
            Error::Remote { code, .. } => code,
        }
    }
}

/// A command with a control character in it (the model refuses to make one).
impl From<crate::model::Unresumable> for Error {
    fn from(e: crate::model::Unresumable) -> Self {
        ProviderError::from(e).into()
    }
}

/// What to do about an ambiguous name: a prefix can be made longer; an id two files hold whole
/// can only be told apart by the file.
fn ambiguous_advice(whole: bool) -> &'static str {
    if whole {
        "the whole id is the same in each (one session in several files): name the session by its file"
    } else {
        "give more of the id, or name the session by its file"
    }
}

fn resume_other_copy(
    provider: ProviderKind,
    id: &str,
    cwd: &str,
    chosen: &Path,
    opens: Option<&Path>,
    found: &[PathBuf],
) -> String {
    let label = crate::provider::registry::agent(provider).label;
    let how =
        format!("not resumed: {label} resumes {id} by its id from {cwd} and finds the file itself");
    match opens {
        Some(other) => format!(
            "{how}: it would open {}, not {}, the one chosen (a copy of that session); resume the session from that file instead, or export or hand off this copy to carry it on",
            other.display(),
            chosen.display()
        ),
        None => format!(
            "{how}: its file for that directory is missing and {} files hold the id ({}), so it would open none of them; trash the copies not needed, or export or hand off this one ({}) to carry it on",
            found.len(),
            found
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join("; "),
            chosen.display()
        ),
    }
}

fn cache_unusable(path: &Path, reason: &str) -> String {
    if path.as_os_str().is_empty() {
        format!("the session cache cannot be used: {reason}")
    } else {
        format!(
            "the session cache {} cannot be used: {reason}",
            path.display()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A provider's error reaches front ends wrapped as it is: the same text and the same code.
    #[test]
    fn provider_errors_keep_their_text_and_code() {
        use agent_sessions_providers::Error as P;
        let blob = P::BlobNotFound {
            session: "s".into(),
            key: "k".into(),
            reason: "gone".into(),
        };
        let cases = [
            (P::SessionNotFound("x".into()), "session_not_found"),
            (P::io("/s/a.jsonl", std::io::Error::other("gone")), "io"),
            (blob, "blob_not_found"),
            (P::ResumeUnavailable("why".into()), "resume_unavailable"),
        ];
        for (provider_error, code) in cases {
            let text = provider_error.to_string();
            let e = Error::from(provider_error);
            assert_eq!(e.to_string(), text);
            assert_eq!(e.code(), code);
        }
        let refused = crate::model::Unresumable("the directory name \"x\" is bad".into());
        assert_eq!(
            Error::from(refused).to_string(),
            "resume command unavailable: the directory name \"x\" is bad"
        );
    }

    /// The core serves the CLI and the app alike: its advice never names a CLI command.
    #[test]
    fn messages_name_no_front_end_command() {
        let p = || PathBuf::from("/c/index.db");
        let r = || "why".to_owned();
        let all = [
            Error::RootMissing {
                provider: "claude",
                path: p(),
            },
            Error::session_not_found("x"),
            Error::Cache {
                path: p(),
                reason: r(),
            },
            Error::CacheBusy {
                path: p(),
                reason: r(),
            },
            Error::CacheCorrupt {
                path: p(),
                reason: r(),
            },
            Error::CacheUnwritable {
                path: p(),
                reason: r(),
            },
        ];
        for e in all {
            let m = e.to_string();
            assert!(!m.contains("agent-sessions-cli") && !m.contains('`'), "{m}");
            // Nor a flag: the app gives roots too, and has no flags.
            assert!(!m.contains("flag") && !m.contains("--"), "{m}");
        }
        let no_path = Error::Cache {
            path: PathBuf::new(),
            reason: r(),
        };
        assert_eq!(no_path.to_string(), "the session cache cannot be used: why");
    }
}
