//! The errors the core reports to its front ends: each says what went wrong and what to do.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the {provider} root {path} does not exist; check the path or drop the flag")]
    RootMissing {
        provider: &'static str,
        path: PathBuf,
    },

    #[error("no session with id {0:?}; run `agent-sessions-cli scan` to list the ids")]
    SessionNotFound(String),

    #[error("the id {id:?} matches {count} sessions; give more of it")]
    AmbiguousId { id: String, count: usize },

    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("the session cache {path} cannot be used ({reason}); `agent-sessions-cli cache clear` deletes it safely")]
    Cache { path: PathBuf, reason: String },

    #[error("bad search query: {0}")]
    BadQuery(String),

    #[error("no blob {key:?} in session {session}: {reason}")]
    BlobNotFound {
        session: String,
        key: String,
        reason: String,
    },

    #[error("resume command unavailable: {0}")]
    ResumeUnavailable(String),
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// A short stable code for the CLI's JSON error envelope.
    pub fn code(&self) -> &'static str {
        match self {
            Error::RootMissing { .. } => "root_missing",
            Error::SessionNotFound(_) => "session_not_found",
            Error::AmbiguousId { .. } => "ambiguous_id",
            Error::Io { .. } => "io",
            Error::BlobNotFound { .. } => "blob_not_found",
            Error::Cache { .. } => "cache",
            Error::BadQuery(_) => "bad_query",
            Error::ResumeUnavailable(_) => "resume_unavailable",
        }
    }
}
