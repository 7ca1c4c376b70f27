//! Where agents keep their stores, per OS and per environment override, and repo roots.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::model::ProviderKind;
use crate::provider::Roots;

/// The store roots used when no root is given on the command line: the agent's own environment
/// variable first, then the per-OS default. Missing directories are fine (simply empty).
pub fn default_root(kind: ProviderKind, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let from_env = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = || directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    match kind {
        ProviderKind::Claude => {
            from_env("CLAUDE_CONFIG_DIR").or_else(|| Some(home()?.join(".claude")))
        }
        ProviderKind::Codex => from_env("CODEX_HOME").or_else(|| Some(home()?.join(".codex"))),
        // OpenCode uses the XDG layout on macOS too.
        ProviderKind::Opencode => from_env("XDG_DATA_HOME")
            .map(|d| d.join("opencode"))
            .or_else(|| Some(home()?.join(".local/share/opencode"))),
    }
}

/// The roots to read: the ones given explicitly (each must exist), else the default per provider
/// (which may be missing: then that provider is simply empty).
pub fn resolve_roots(
    explicit: &Roots,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Roots, Error> {
    let mut roots = Roots::default();
    for kind in ProviderKind::ALL {
        let given = explicit.for_kind(kind);
        let chosen: Vec<PathBuf> = if given.is_empty() {
            default_root(kind, env).into_iter().collect()
        } else {
            if let Some(missing) = given.iter().find(|p| !p.is_dir()) {
                return Err(Error::RootMissing {
                    provider: kind.as_str(),
                    path: missing.clone(),
                });
            }
            given.to_vec()
        };
        match kind {
            ProviderKind::Claude => roots.claude = chosen,
            ProviderKind::Codex => roots.codex = chosen,
            ProviderKind::Opencode => roots.opencode = chosen,
        }
    }
    Ok(roots)
}

/// The process environment, for [`default_root`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Finds git toplevels of working directories, remembering what it has looked up.
#[derive(Default)]
pub struct RepoRoots {
    known: HashMap<PathBuf, Option<String>>,
}

impl RepoRoots {
    /// The nearest ancestor of `cwd` (itself included) holding `.git`, if `cwd` exists here.
    pub fn find(&mut self, cwd: &str) -> Option<String> {
        let path = PathBuf::from(cwd);
        if let Some(hit) = self.known.get(&path) {
            return hit.clone();
        }
        let found = find_repo_root(&path);
        self.known.insert(path, found.clone());
        found
    }
}

fn find_repo_root(cwd: &Path) -> Option<String> {
    if !cwd.is_absolute() {
        return None;
    }
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(|dir| dir.to_string_lossy().into_owned())
}

/// The session directories that do not exist on this machine (shown dimmed, "missing").
pub fn missing_dirs(sessions: &[crate::model::SessionMeta]) -> Vec<String> {
    let mut dirs: Vec<&str> = sessions.iter().filter_map(|s| s.cwd.as_deref()).collect();
    dirs.sort_unstable();
    dirs.dedup();
    dirs.into_iter()
        .filter(|d| !Path::new(d).is_dir())
        .map(|d| {
            if d.len() > 1 {
                d.trim_end_matches('/')
            } else {
                d
            }
            .to_owned()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_overrides_win() {
        let env = |k: &str| match k {
            "CLAUDE_CONFIG_DIR" => Some("/x/claude".to_owned()),
            "XDG_DATA_HOME" => Some("/x/data".to_owned()),
            _ => None,
        };
        assert_eq!(
            default_root(ProviderKind::Claude, &env),
            Some("/x/claude".into())
        );
        assert_eq!(
            default_root(ProviderKind::Opencode, &env),
            Some("/x/data/opencode".into())
        );
        let codex = default_root(ProviderKind::Codex, &env).unwrap();
        assert!(codex.ends_with(".codex"));
    }

    #[test]
    fn explicit_roots_must_exist_defaults_need_not() {
        let env = |k: &str| (k == "CLAUDE_CONFIG_DIR").then(|| "/nonexistent/claude".to_owned());
        let roots = resolve_roots(&Roots::default(), &env).unwrap();
        assert_eq!(roots.claude, vec![PathBuf::from("/nonexistent/claude")]);
        let explicit = Roots {
            codex: vec!["/nonexistent/codex".into()],
            ..Roots::default()
        };
        let err = resolve_roots(&explicit, &env).unwrap_err();
        assert_eq!(err.code(), "root_missing");
        assert!(err.to_string().contains("/nonexistent/codex"), "{err}");
    }

    #[test]
    fn finds_the_git_toplevel() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("a/b")).unwrap();
        let mut roots = RepoRoots::default();
        let sub = repo.join("a/b").to_string_lossy().into_owned();
        assert_eq!(roots.find(&sub), Some(repo.to_string_lossy().into_owned()));
        assert_eq!(roots.find("relative/path"), None);
    }
}
