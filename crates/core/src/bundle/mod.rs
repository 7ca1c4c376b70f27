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

pub mod export;
mod jsontext;
pub mod manifest;
mod native;
mod opencode;
pub mod reader;
pub mod redact;

pub use export::{prepare, Prepared, Saved};
pub use manifest::{Manifest, Mode};
pub use reader::{Bundle, Limits};
pub use redact::RedactionCounts;

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
        }
    }

    /// Refused for what the bundle or the request is, not because something broke.
    pub fn is_refusal(&self) -> bool {
        !matches!(self, BundleError::Io { .. })
    }
}
