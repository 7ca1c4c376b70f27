//! Helpers shared by the integration tests: fixture stores, copies of them, provider sets.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use agent_sessions_core::provider::ProviderSet;
use agent_sessions_core::{Catalog, ProviderKind, Roots};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The folder inside a fixture version that is the agent's root.
pub fn store_dir(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Claude => "dot-claude",
        ProviderKind::Codex => "dot-codex",
        ProviderKind::Opencode => "local-share-opencode",
    }
}

/// `testdata/<provider>/<version>/<store>`.
pub fn fixture(kind: ProviderKind, version: &str) -> PathBuf {
    repo()
        .join("testdata")
        .join(kind.as_str())
        .join(version)
        .join(store_dir(kind))
}

/// A writable copy of a fixture store.
pub fn fixture_copy(kind: ProviderKind, version: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(kind, version), dir.path());
    dir
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

pub fn roots(kind: ProviderKind, root: &Path) -> Roots {
    let mut roots = Roots::default();
    match kind {
        ProviderKind::Claude => roots.claude.push(root.to_path_buf()),
        ProviderKind::Codex => roots.codex.push(root.to_path_buf()),
        ProviderKind::Opencode => roots.opencode.push(root.to_path_buf()),
    }
    roots
}

pub fn provider_set(kind: ProviderKind, root: &Path) -> ProviderSet {
    ProviderSet::new(&roots(kind, root), &[kind])
}

pub fn catalog(kind: ProviderKind, root: &Path) -> Catalog {
    Catalog::new(&roots(kind, root), &[kind])
}
