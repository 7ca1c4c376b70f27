//! The commands the UI calls, one small module per area.
//!
//! Three rules hold for every command:
//! - It runs off the main thread ([`off_main`]): Tauri runs synchronous commands on the thread
//!   that drives the window, where a slow load or render would freeze it.
//! - The webview names a session by (provider, id) and the file the list gave for it
//!   ([`SessionRef`]); the shell finds its files itself, from what the cache lists: the file
//!   only picks among listed sessions. Nothing the webview sends becomes a path.
//! - Errors cross as `{code, message}` ([`CmdError`]): a stable code to branch on, a sentence
//!   to show.

use agent_sessions_core::actions::terminal::TerminalError;
use std::path::PathBuf;

#[cfg(test)]
use agent_sessions_core::model::SessionMeta;
use agent_sessions_core::{Error, ProviderKind};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager};

use crate::state::AppState;
pub use code::ErrorCode;

pub mod actions;
pub mod blob;
pub mod bundle;
pub mod code;
pub mod diagnostics;
pub mod dialog;
pub mod export;
pub mod handoff;
pub mod hosts;
pub mod mcp;
pub mod raw;
pub mod search;
pub mod sessions;
pub mod settings;
pub mod stats;
pub mod terminal;
pub mod timeline;
pub mod transcript;
pub mod translate;
pub mod trash;

pub type CmdResult<T> = Result<T, CmdError>;

/// An error as the UI receives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(rename = "AppError")]
pub struct CmdError {
    /// One of `not_found`, `invalid_input`, `ambiguous_id`, `resume_other_copy`, `io`, `cache`,
    /// `internal`;
    /// translation, trash and bundles keep core's own codes ([`ErrorCode`]).
    pub code: ErrorCode,
    pub message: String,
    /// A command the user can run instead (the resume command when its agent was not found).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub copy: Option<String>,
}

impl CmdError {
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidInput, message)
    }

    /// Something in the app itself failed (a worker thread panicked, a lock was poisoned).
    pub fn internal(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorCode::Internal, message.to_string())
    }

    pub fn new_io(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Io, message)
    }

    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CmdError {
            code,
            message: message.into(),
            copy: None,
        }
    }
}

impl From<Error> for CmdError {
    /// Core's own codes, folded into the few the UI branches on.
    fn from(e: Error) -> Self {
        let code = fold_code(e.code());
        let copy = match &e {
            Error::Terminal(TerminalError::AgentNotFound { copy, .. }) => Some(copy.clone()),
            _ => None,
        };
        CmdError {
            copy,
            ..CmdError::new(code, e.to_string())
        }
    }
}

/// One of core's codes (from this machine or a remote's server) as the UI branches on it.
pub fn fold_code(code: &str) -> ErrorCode {
    match code {
        "session_not_found" | "blob_not_found" | "root_missing" => ErrorCode::NotFound,
        "terminal_not_installed" | "no_terminal" | "directory_missing" | "agent_not_found" => {
            ErrorCode::NotFound
        }
        "ambiguous_id" => ErrorCode::AmbiguousId,
        "resume_other_copy" => ErrorCode::ResumeOtherCopy,
        "bad_query" | "resume_unavailable" | "unknown_terminal" | "file_exists" | "bad_params" => {
            ErrorCode::InvalidInput
        }
        "io" | "write" | "terminal_failed" => ErrorCode::Io,
        "cache" => ErrorCode::Cache,
        _ => ErrorCode::Internal,
    }
}

impl<T> From<std::sync::PoisonError<T>> for CmdError {
    fn from(e: std::sync::PoisonError<T>) -> Self {
        CmdError::internal(e)
    }
}

/// How the webview names a session: its agent and id and, as the list hands it out, the file
/// it was listed from. Ids are unique per agent only in theory: a project folder copied beside
/// itself holds the same session in two files, and the file is what tells the two rows apart.
/// It only picks among the listed sessions of that agent and id (a path the list did not give
/// names nothing; it is never opened as given). Without it an id two files hold is refused as
/// `ambiguous_id`, never resolved to one of them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub struct SessionRef {
    pub provider: ProviderKind,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub source_path: Option<PathBuf>,
}

#[cfg(test)]
impl SessionRef {
    /// A listed session, named down to its file, as the webview names it (the tests' calls).
    pub fn of(s: &SessionMeta) -> Self {
        SessionRef {
            provider: s.provider,
            id: s.id.clone(),
            source_path: Some(s.source_path.clone()),
        }
    }
}

/// Runs `work` on the blocking pool and waits for it without holding the main thread.
pub async fn off_main<T: Send + 'static>(
    app: AppHandle,
    work: impl FnOnce(&AppState) -> CmdResult<T> + Send + 'static,
) -> CmdResult<T> {
    tauri::async_runtime::spawn_blocking(move || work(&app.state::<AppState>()))
        .await
        .map_err(CmdError::internal)?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_errors_keep_stable_codes() {
        let io = Error::io("/x", std::io::Error::other("boom"));
        let cases = [
            (Error::session_not_found("s"), ErrorCode::NotFound),
            (Error::BadQuery("q".into()), ErrorCode::InvalidInput),
            (Error::ambiguous("s", &[]), ErrorCode::AmbiguousId),
            (
                Error::ResumeOtherCopy {
                    provider: agent_sessions_core::model::ProviderKind::Claude,
                    id: "s".into(),
                    cwd: "/w".into(),
                    chosen: "/c/projects/-w-copy/s.jsonl".into(),
                    opens: Some("/c/projects/-w/s.jsonl".into()),
                    found: Vec::new(),
                },
                ErrorCode::ResumeOtherCopy,
            ),
            (io, ErrorCode::Io),
            (
                Error::Cache {
                    path: "/c".into(),
                    reason: "r".into(),
                },
                ErrorCode::Cache,
            ),
        ];
        for (e, code) in cases {
            let message = e.to_string();
            let copy = None;
            assert_eq!(
                CmdError::from(e),
                CmdError {
                    code,
                    message,
                    copy
                }
            );
        }
        let missing = Error::Terminal(TerminalError::AgentNotFound {
            program: "claude".into(),
            copy: "cd -- /w && claude --resume x".into(),
        });
        let json = serde_json::to_value(CmdError::from(missing)).unwrap();
        assert_eq!(json["code"], "not_found");
        assert_eq!(json["copy"], "cd -- /w && claude --resume x");
        assert!(json["message"]
            .as_str()
            .unwrap()
            .contains("claude was not found"));
        let json = serde_json::to_value(CmdError::not_found("gone")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"code": "not_found", "message": "gone"})
        );
    }

    /// The file is carried back as the list gave it (it only picks among listed sessions: see
    /// `AppState::resolve`); a webview that leaves it out names a session as before.
    #[test]
    fn a_session_is_named_by_provider_id_and_listed_file() {
        let r: SessionRef =
            serde_json::from_str(r#"{"provider":"codex","id":"abc","source_path":"/s/a.jsonl"}"#)
                .unwrap();
        assert_eq!(r.source_path, Some(PathBuf::from("/s/a.jsonl")));
        let old: SessionRef = serde_json::from_str(r#"{"provider":"codex","id":"abc"}"#).unwrap();
        assert_eq!(
            old,
            SessionRef {
                provider: ProviderKind::Codex,
                id: "abc".into(),
                source_path: None,
            }
        );
        assert_eq!(
            serde_json::to_value(&old).unwrap(),
            serde_json::json!({"provider": "codex", "id": "abc"})
        );
        assert!(serde_json::from_str::<SessionRef>(r#"{"provider":"vim","id":"a"}"#).is_err());
    }
}
