//! The agent's own records of a session and its subagents, as a complete bundle carries them:
//! each agent says which they are (`registry::Agent::bundles`, its `bundle.rs`), and only
//! those whose names the archive may hold, where the agent's layout puts them
//! ([`super::manifest::native_layout`]), are taken.
//!
//! Files are read later, when the bundle is written; a transcript that is still growing is
//! cut at the end of its last whole line as it was when listed.

use std::path::{Path, PathBuf};

use super::manifest::{check_name, native_layout};
use crate::catalog::Catalog;
use crate::model::{ProviderKind, SessionMeta};
pub(crate) use crate::provider::capability::bundle::Source;
use crate::provider::capability::bundle::{Export, Native};
use crate::provider::registry;

#[derive(Debug)]
pub(crate) struct NativeFile {
    pub name: String,
    pub session: String,
    pub source: Source,
}

/// The native files of `session` and `children`, and notes on what could not be included.
pub(crate) fn collect(
    catalog: &Catalog,
    session: &SessionMeta,
    children: &[&SessionMeta],
) -> Result<(Vec<NativeFile>, Vec<String>), String> {
    let kind = session.provider;
    let root = root_of(catalog, kind, &session.source_path).ok_or_else(|| {
        format!(
            "{} is not under a {kind} root",
            session.source_path.display()
        )
    })?;
    let export = Export {
        root: &root,
        session,
        children,
    };
    let mut files = Vec::new();
    let mut notes = Vec::new();
    for native in (registry::agent(kind).bundles.export)(&export)? {
        match native {
            Native::File(f) => {
                let name = format!("native/{kind}/{}", f.rel);
                if check_name(&name).is_ok() && native_layout(kind, &name, &f.session) {
                    files.push(NativeFile {
                        name,
                        session: f.session,
                        source: f.source,
                    });
                } else {
                    notes.push(format!(
                        "{name} was left out: its name is not one a bundle may hold"
                    ));
                }
            }
            Native::LeftOut(note) => notes.push(note),
        }
    }
    Ok((files, notes))
}

/// The store root (of the provider's roots) holding `path`.
pub(crate) fn root_of(catalog: &Catalog, kind: ProviderKind, path: &Path) -> Option<PathBuf> {
    crate::actions::trash::root_of(catalog, kind, path).map(Path::to_path_buf)
}
