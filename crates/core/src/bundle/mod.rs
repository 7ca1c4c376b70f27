//! Portable session bundles (SPEC §7, M6; the format is `docs/bundle-format.md`): a session
//! as one `<title>.agent-session.zip` that moves it to another machine, to be restored into
//! the agent's own store there and resumed with the agent's own command.
//!
//! - [`export`]: a complete bundle (private, 0600: the agent's own records verbatim, plus the
//!   unified transcript as JSON and Markdown) or a share-safe one (redacted by [`redact`],
//!   without the agent's records: for handoff only).
//! - [`reader`]: opening a bundle that came from elsewhere, trusting nothing in it.
//! - [`restore`]: a preview, then the restore it allows (a short-lived HMAC token binds the
//!   bundle's hash and the target), into the store under a directory the user chose.
//! - [`handoff`]: "Continue in…" an agent from the bundle's transcript, nothing restored.

pub mod export;
pub mod handoff;
mod jsontext;
pub mod manifest;
mod native;
pub mod reader;
mod records;
pub mod redact;
pub mod restore;
pub mod token;

pub use export::{prepare, Prepared, Saved};
pub use manifest::{Manifest, Mode};
pub use reader::{Bundle, Limits};
pub use redact::RedactionCounts;
pub use restore::{preview, restore, Agents, Preview, Restored, Target};
pub use token::Tokens;

/// Why a bundle was not made, read or restored. Nothing was written in any case but
/// [`BundleError::Failed`], which says what was left.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// Not a bundle: not a complete zip archive, a file missing, an entry unreadable.
    #[error("this is not a usable bundle: {0}")]
    Invalid(String),

    /// An entry or a name that could be turned against the machine: `..`, absolute paths,
    /// links, ids or titles of the wrong shape.
    #[error("the bundle is refused as unsafe: {0}")]
    Unsafe(String),

    /// Over a size limit (a zip bomb, or simply too large).
    #[error("the bundle is refused as too large: {0}")]
    TooLarge(String),

    /// A file's bytes differ from what the manifest says.
    #[error("the bundle is damaged: {0}")]
    Checksum(String),

    /// The manifest is missing or not one this version reads.
    #[error("the bundle's manifest is not usable: {0}")]
    Manifest(String),

    #[error("{0}")]
    Version(String),

    #[error("cannot read {path}: {reason}")]
    Io {
        path: std::path::PathBuf,
        reason: String,
    },

    /// What was asked cannot be done with this session or bundle.
    #[error("{0}")]
    Unsupported(String),

    /// The bundle cannot be restored (share-safe, or without the agent's records).
    #[error("{0}")]
    NotRestorable(String),

    /// The store or directory to restore into cannot be used.
    #[error("{0}")]
    Target(String),

    /// The restore was not allowed by a valid preview token.
    #[error("the restore token is refused: {0}")]
    Token(String),

    #[error("the {provider} session {id} is live (a running {provider} process has it open); close it first")]
    Live {
        provider: crate::model::ProviderKind,
        id: String,
    },

    /// A session of the bundle is in the store already.
    #[error("{0}")]
    Exists(String),

    /// Writing failed part way; `state` says what was left.
    #[error("could not {what}: {reason}; {state}")]
    Failed {
        what: String,
        reason: String,
        state: String,
    },
}

impl BundleError {
    pub fn code(&self) -> &'static str {
        match self {
            BundleError::Invalid(_) => "bundle_invalid",
            BundleError::Unsafe(_) => "bundle_unsafe",
            BundleError::TooLarge(_) => "bundle_too_large",
            BundleError::Checksum(_) => "bundle_checksum",
            BundleError::Manifest(_) => "bundle_manifest",
            BundleError::Version(_) => "bundle_version",
            BundleError::Io { .. } => "io",
            BundleError::Unsupported(_) => "unsupported",
            BundleError::NotRestorable(_) => "bundle_not_restorable",
            BundleError::Target(_) => "bad_target",
            BundleError::Token(_) => "restore_token",
            BundleError::Live { .. } => "session_live",
            BundleError::Exists(_) => "session_exists",
            BundleError::Failed { .. } => "restore_failed",
        }
    }

    /// Refused for what the bundle or the request is, not because something broke.
    pub fn is_refusal(&self) -> bool {
        !matches!(self, BundleError::Io { .. } | BundleError::Failed { .. })
    }
}
