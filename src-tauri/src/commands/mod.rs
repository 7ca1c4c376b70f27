//! The commands the UI calls, one small module per area.
//!
//! Three rules hold for every command:
//! - It runs off the main thread ([`off_main`]): Tauri runs synchronous commands on the thread
//!   that drives the window, where a slow load or render would freeze it.
//! - The webview names a session only by (provider, id) ([`SessionRef`]); the shell finds its
//!   files itself, from what the cache lists. Nothing the webview sends becomes a path.
//! - Errors cross as `{code, message}` ([`CmdError`]): a stable code to branch on, a sentence
//!   to show.

use agent_sessions_core::actions::terminal::TerminalError;
use agent_sessions_core::{Error, ProviderKind};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager};

use crate::state::AppState;

pub mod actions;
pub mod blob;
pub mod bundle;
pub mod diagnostics;
pub mod dialog;
pub mod export;
pub mod handoff;
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CmdError {
    /// One of `not_found`, `invalid_input`, `io`, `cache`, `internal`; translation keeps core's
    /// own codes (`translate_not_configured`, … and `message_not_found`: `translate.rs`).
    pub code: &'static str,
    pub message: String,
    /// A command the user can run instead (the resume command when its agent was not found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy: Option<String>,
}

impl CmdError {
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new("not_found", message)
    }

    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::new("invalid_input", message)
    }

    /// Something in the app itself failed (a worker thread panicked, a lock was poisoned).
    pub fn internal(message: impl std::fmt::Display) -> Self {
        Self::new("internal", message.to_string())
    }

    pub fn new_io(message: impl Into<String>) -> Self {
        Self::new("io", message)
    }

    fn new(code: &'static str, message: impl Into<String>) -> Self {
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
        let code = match e.code() {
            "session_not_found" | "blob_not_found" | "root_missing" => "not_found",
            "terminal_not_installed" | "no_terminal" | "directory_missing" | "agent_not_found" => {
                "not_found"
            }
            "ambiguous_id" | "bad_query" | "resume_unavailable" | "unknown_terminal"
            | "file_exists" => "invalid_input",
            "io" | "write" | "terminal_failed" => "io",
            "cache" => "cache",
            _ => "internal",
        };
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

impl<T> From<std::sync::PoisonError<T>> for CmdError {
    fn from(e: std::sync::PoisonError<T>) -> Self {
        CmdError::internal(e)
    }
}

/// How the webview names a session.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
pub struct SessionRef {
    pub provider: ProviderKind,
    pub id: String,
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
            (Error::SessionNotFound("s".into()), "not_found"),
            (Error::BadQuery("q".into()), "invalid_input"),
            (io, "io"),
            (
                Error::Cache {
                    path: "/c".into(),
                    reason: "r".into(),
                },
                "cache",
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

    #[test]
    fn a_session_is_named_by_provider_and_id_only() {
        let r: SessionRef =
            serde_json::from_str(r#"{"provider":"codex","id":"abc","source_path":"/etc/passwd"}"#)
                .unwrap();
        assert_eq!(
            r,
            SessionRef {
                provider: ProviderKind::Codex,
                id: "abc".into()
            }
        );
        assert!(serde_json::from_str::<SessionRef>(r#"{"provider":"vim","id":"a"}"#).is_err());
    }
}
