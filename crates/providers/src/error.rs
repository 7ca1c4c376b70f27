//! The errors a provider reports: a session or blob that is not there, a store file that cannot
//! be read, a session that cannot be resumed. The core's error wraps it as it is
//! (`agent_sessions_core::Error::Provider`): its text and code reach front ends unchanged.

use std::path::PathBuf;

use agent_sessions_model::Unresumable;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no session with id {0:?}; list the sessions to see their ids")]
    SessionNotFound(String),

    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

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
    /// A short stable code for front ends (the CLI's JSON envelope, the app's error codes).
    pub fn code(&self) -> &'static str {
        match self {
            Error::SessionNotFound(_) => "session_not_found",
            Error::Io { .. } => "io",
            Error::BlobNotFound { .. } => "blob_not_found",
            Error::ResumeUnavailable(_) => "resume_unavailable",
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

impl From<Unresumable> for Error {
    fn from(e: Unresumable) -> Self {
        Error::ResumeUnavailable(e.0)
    }
}
