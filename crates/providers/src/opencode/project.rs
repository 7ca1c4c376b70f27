//! OpenCode's project for a directory, worked out as OpenCode 1.18.33 works it out
//! (`Project.resolve` in its bundle), so a session restored as rows is filed where OpenCode
//! lists it (`opencode session list` shows the sessions of the current directory's project):
//!
//! - a directory in no git repository (no `.git` in it or above it) belongs to `global`;
//! - in a repository, the project's worktree is `git rev-parse --show-toplevel`, and its id is
//!   the SHA-1 of `git-remote:<host>/<path>` of the `origin` remote (host in lower case, no
//!   `.git` ending; not for `file:` remotes), else the id OpenCode cached in the repository's
//!   common git directory (`opencode`), else the first (sorted) root commit of `HEAD`, else
//!   `global` (a repository without commits).
//!
//! git runs as OpenCode runs it (read-only commands, an argv, never a shell, as the engine
//! runs commands: [`Host::run`]). Nothing is written
//! to the repository (OpenCode caches the id there itself when it next starts in it).

use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use crate::capability::bundle::Host;

/// A git repository holding a directory, as OpenCode sees it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Repository {
    /// The project's worktree: the repository's top folder.
    pub worktree: String,
    /// OpenCode's id for it; `None` when OpenCode would file it under `global`.
    pub id: Option<String>,
}

/// The repository `dir` is in, or `None` (OpenCode's `global` project).
pub(super) fn repository(dir: &Path, host: &dyn Host) -> Option<Repository> {
    let top = dir
        .ancestors()
        .find(|a| std::fs::symlink_metadata(a.join(".git")).is_ok())?;
    let git = |args: &[&str]| -> Option<String> {
        let mut argv = vec!["git".to_owned()];
        argv.extend(args.iter().map(|a| (*a).to_owned()));
        let out = host.run(&argv, &[], Some(top)).ok()?;
        let line = out.trim_end_matches(['\r', '\n']).to_owned();
        (!line.trim().is_empty()).then_some(line)
    };
    let absolute = |p: String| -> PathBuf {
        let p = PathBuf::from(p);
        if p.is_absolute() {
            p
        } else {
            top.join(p)
        }
    };
    let worktree = git(&["rev-parse", "--show-toplevel"])
        .map(absolute)
        .unwrap_or_else(|| top.to_path_buf());
    let common = git(&["rev-parse", "--git-common-dir"]).map(absolute);
    let from_remote = git(&["remote", "get-url", "origin"])
        .as_deref()
        .and_then(remote_key)
        .map(|key| {
            let digest = Sha1::digest(format!("git-remote:{key}").as_bytes());
            digest
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        });
    let cached = || {
        let text = std::fs::read_to_string(common.as_ref()?.join("opencode")).ok()?;
        let id = text.trim();
        (!id.is_empty()).then(|| id.to_owned())
    };
    let root_commit = || {
        let out = git(&["rev-list", "--max-parents=0", "HEAD"])?;
        let mut roots: Vec<&str> = out
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        roots.sort_unstable();
        roots.first().map(|r| (*r).to_owned())
    };
    Some(Repository {
        worktree: worktree.to_string_lossy().into_owned(),
        id: from_remote.or_else(cached).or_else(root_commit),
    })
}

/// `host/path` of a remote URL as OpenCode keys it: a URL's lower-case host and its path
/// without leading slashes, a `.git` ending or trailing slashes; `user@host:path` likewise;
/// nothing for `file:` URLs and local paths.
fn remote_key(url: &str) -> Option<String> {
    let url = url.trim();
    let (host, path) = match url::Url::parse(url) {
        Ok(u) if u.scheme() == "file" => return None,
        Ok(u) => (u.host_str()?.to_owned(), u.path().to_owned()),
        Err(_) => {
            let (before, path) = url.split_once(':')?;
            let host = before.rsplit_once('@').map_or(before, |(_, h)| h);
            if host.is_empty() || before.contains('/') || before.matches('@').count() > 1 {
                return None;
            }
            (host.to_owned(), path.to_owned())
        }
    };
    let path = path.trim_start_matches('/');
    let path = path.strip_suffix(".git/").unwrap_or(path);
    let path = path
        .strip_suffix(".git")
        .unwrap_or(path)
        .trim_end_matches('/');
    if host.is_empty() || path.is_empty() {
        return None;
    }
    Some(format!("{}/{path}", host.to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::remote_key;

    #[test]
    fn remotes_are_keyed_as_opencode_keys_them() {
        let cases = [
            (
                "git@github.com:Acme/Widget.git",
                Some("github.com/Acme/Widget"),
            ),
            (
                "https://GitHub.com/Acme/Widget.git/",
                Some("github.com/Acme/Widget"),
            ),
            ("ssh://git@host.example:22/a/b", Some("host.example/a/b")),
            // A URL of the scheme `host.example`, without a host (as `new URL` reads it).
            ("host.example:team/repo", None),
            ("me@host.example:team/repo", Some("host.example/team/repo")),
            ("file:///srv/repo.git", None),
            ("/srv/repo.git", None),
            ("", None),
        ];
        for (url, key) in cases {
            assert_eq!(remote_key(url).as_deref(), key, "{url}");
        }
    }
}
