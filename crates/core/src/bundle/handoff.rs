//! "Continue in…" from a bundle: the bundle's session handed to an agent (its own or another)
//! in a directory the user chose, without restoring anything (SPEC §7, M6).
//!
//! This is what a share-safe bundle is for (it holds no records of the agent's own), and the
//! other choice beside Restore for a complete one. The handoff document is written from the
//! bundle's unified transcript (`transcript.json`, the `agent-sessions.export.v1` document the
//! bundle was made with) by the same rules as a handoff from a store
//! ([`crate::actions::handoff`]): the bundle's text is quoted like any transcript text. The
//! session keeps the directory it was recorded in for the document (its paths are relative to
//! it), which names the chosen one too when it differs; the agent starts in the chosen one.
//! Nothing is written but the launch's prompt file.

use std::path::Path;

use serde::Deserialize;

use super::manifest::TRANSCRIPT;
use super::reader::Bundle;
use super::restore::checked_folder;
use super::BundleError;
use crate::actions::handoff::{self, Budget, Handoff};
use crate::error::Error;
use crate::model::{Message, ProviderKind, SessionMeta};

/// The fields of `transcript.json` a handoff reads (the rest is ignored).
#[derive(Deserialize)]
struct Exported {
    session: SessionMeta,
    messages: Vec<Message>,
}

/// A bundle's session ready to continue in `target`.
#[derive(Debug, Clone)]
pub struct Continued {
    /// The bundle's session with `cwd` set to the chosen directory (the launch starts there).
    pub session: SessionMeta,
    pub handoff: Handoff,
}

/// The handoff of `bundle`'s session to `target`, to continue in `dir` (an existing folder).
pub fn handoff(
    bundle: &Bundle,
    dir: &Path,
    target: ProviderKind,
    budget: Budget,
) -> Result<Continued, Error> {
    let dir = checked_folder(dir, "directory", super::restore::CREATE_IT)?;
    let bytes = bundle.read(TRANSCRIPT)?;
    let exported: Exported = serde_json::from_slice(&bytes).map_err(|e| {
        BundleError::Invalid(format!(
            "{TRANSCRIPT} is not a transcript this version reads: {e}"
        ))
    })?;
    let listed = &bundle.manifest;
    if exported.session.id != listed.session.id
        || exported.session.provider != listed.source.provider
    {
        return Err(BundleError::Invalid(format!(
            "{TRANSCRIPT} holds {} session {}, but the manifest names {} session {}",
            exported.session.provider,
            exported.session.id,
            listed.source.provider,
            listed.session.id
        ))
        .into());
    }
    let starts_in = dir.to_string_lossy().into_owned();
    let doc = handoff::from_messages(
        &exported.session,
        &exported.messages,
        target,
        Some(&starts_in),
        budget,
    );
    let mut session = exported.session;
    session.cwd = Some(starts_in);
    Ok(Continued {
        session,
        handoff: doc,
    })
}
