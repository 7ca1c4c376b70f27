//! Every code a command's error can carry ([`super::CmdError`]), as one enum so the UI's
//! `ErrorCode` union is generated from it (`ui/src/lib/generated.ts`) instead of kept by hand.
//!
//! The app's own codes are few (`not_found`, `invalid_input`, `io`, `cache`, `internal`);
//! translation, trash and bundles keep core's codes so the UI can say what was refused. Core
//! gives those as strings ([`ErrorCode::of`]); the test below reads core's `code()` functions
//! and fails when one of them returns a code missing here.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    NotFound,
    InvalidInput,
    Io,
    Cache,
    Internal,
    /// An id (or prefix) that names more than one session, two files of one session included:
    /// the message lists them with their files.
    AmbiguousId,
    /// A resume (or "Resume in terminal") of a Claude Code copy: `claude --resume <id>` would
    /// carry on another file of the session, which the message names.
    ResumeOtherCopy,
    // Translation (core actions::translate, docs/translation.md).
    TranslateNotConfigured,
    TranslateBadUrl,
    TranslateBadKey,
    MessageNotFound,
    TranslateNoText,
    TranslateTooLong,
    TranslateUnreachable,
    TranslateTimeout,
    TranslateUnauthorized,
    TranslateHttp,
    TranslateBadReply,
    // Trash and delete (core actions::trash, docs/trash.md).
    DeleteDisabled,
    PermanentDeleteDisabled,
    SessionLive,
    SessionRecent,
    Unsupported,
    SubagentsUndecided,
    SubagentsGoAlong,
    AgentMissing,
    /// A session id without its agent's shape (a file named `..jsonl`): nothing planned on it.
    InvalidSessionId,
    /// A plan's path that is not a session's own entry in its store.
    UnsafePath,
    StalePlan,
    TrashFailed,
    // Bundles (core bundle, docs/bundle-format.md).
    BundleInvalid,
    BundleUnsafe,
    BundleTooLarge,
    BundleChecksum,
    BundleManifest,
    BundleVersion,
    BundleNotRestorable,
    BadTarget,
    RestoreToken,
    SessionExists,
    RestoreFailed,
    // Remote hosts (agent-sessions-remote's Error::code, docs/remote.md).
    SshAuth,
    SshHostKey,
    SshUnreachable,
    BadHost,
    Spawn,
    ConnectionClosed,
    Protocol,
    VersionMismatch,
    ServerMissing,
    Bootstrap,
    /// The action does not work on a remote host's session yet.
    RemoteUnsupported,
}

impl ErrorCode {
    /// One of core's codes that crosses as it is; a code this enum lacks (the test below
    /// prevents it) would show as `internal` rather than as a code the UI cannot know.
    pub fn of(code: &str) -> ErrorCode {
        serde_json::from_value(serde_json::Value::from(code)).unwrap_or(ErrorCode::Internal)
    }
}

/// So tests and callers can compare with the code as the UI sees it.
impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        serde_json::to_value(self)
            .ok()
            .as_ref()
            .and_then(|v| v.as_str())
            == Some(*other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The string literals a `pub fn code(&self)` returns in `source`.
    fn codes_in(source: &str) -> Vec<&str> {
        let start = source
            .find("pub fn code(&self)")
            .expect("the module has a code() function");
        let body = &source[start..];
        let body = &body[..body.find("\n    }\n").expect("code() ends")];
        body.split("=> \"")
            .skip(1)
            .map(|rest| &rest[..rest.find('"').expect("a closed literal")])
            .collect()
    }

    #[test]
    fn every_code_core_passes_through_is_known() {
        let sources = [
            include_str!("../../../crates/core/src/actions/translate.rs"),
            include_str!("../../../crates/core/src/actions/trash/mod.rs"),
            include_str!("../../../crates/core/src/bundle/mod.rs"),
            include_str!("../../../crates/remote/src/error.rs"),
        ];
        let mut seen = 0;
        for source in sources {
            for code in codes_in(source) {
                seen += 1;
                assert_eq!(
                    serde_json::from_value::<ErrorCode>(code.into()).ok().map(|c| c == code),
                    Some(true),
                    "core's code {code:?} is missing from ErrorCode (src-tauri/src/commands/code.rs)"
                );
            }
        }
        // The reading above found the functions (11 translate + 12 trash + 14 bundle codes).
        assert!(seen >= 35, "read only {seen} codes");
    }

    #[test]
    fn unknown_codes_fall_back_to_internal() {
        assert_eq!(ErrorCode::of("bundle_unsafe"), ErrorCode::BundleUnsafe);
        assert_eq!(ErrorCode::of("no_such_code"), ErrorCode::Internal);
    }
}
