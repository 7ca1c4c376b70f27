//! agent-sessions-test-support: what the workspace's integration tests share — the repository's
//! fixture stores (`testdata/<agent>/<version>/<store>`), writable copies of them, and a
//! snapshot of a folder to check that nothing was written. Test-only: a dev-dependency, never a
//! normal one (`crates/core/tests/layers.rs`). Helpers panic on failure, as test code does.

use std::path::{Path, PathBuf};

use agent_sessions_model::ProviderKind;
use agent_sessions_providers::registry::agent;

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `testdata/<rel>` of the repository.
pub fn testdata(rel: &str) -> PathBuf {
    repo().join("testdata").join(rel)
}

/// The folder inside a fixture version that is the agent's root (`dot-claude`).
pub fn store_dir(kind: ProviderKind) -> &'static str {
    agent(kind).fixture_store
}

/// `testdata/<agent>/<version>/<store>`.
pub fn fixture(kind: ProviderKind, version: &str) -> PathBuf {
    testdata(kind.as_str()).join(version).join(store_dir(kind))
}

/// A writable copy of a fixture store, in a folder removed when it is dropped.
pub fn fixture_copy(kind: ProviderKind, version: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(kind, version), dir.path());
    dir
}

/// A copy of the folder `from` (a fixture store) at `to`, to write into.
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

/// Every file below `dir` with its bytes (links not followed), in path order: what "nothing
/// was written" is checked against.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if std::fs::symlink_metadata(e.path()).unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), std::fs::read(e.path()).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_holds_every_file_of_the_fixture_and_only_those() {
        let from = fixture(ProviderKind::Claude, "2.1.332");
        let copy = fixture_copy(ProviderKind::Claude, "2.1.332");
        let relative = |dir: &Path| -> Vec<(PathBuf, Vec<u8>)> {
            let files = snapshot(dir);
            files
                .into_iter()
                .map(|(p, bytes)| (p.strip_prefix(dir).unwrap().to_path_buf(), bytes))
                .collect()
        };
        let original = relative(&from);
        assert!(original.len() > 3, "{} files", original.len());
        assert_eq!(relative(copy.path()), original);
    }
}
