//! Where agents keep their stores, per OS and per environment override, and repo roots.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::{ConfigFile, Os, Source};
use crate::error::Error;
use crate::model::ProviderKind;
use crate::provider::Roots;

/// The environment variable that moves an agent's store (OpenCode's is the XDG data dir).
pub fn env_var(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Claude => "CLAUDE_CONFIG_DIR",
        ProviderKind::Codex => "CODEX_HOME",
        ProviderKind::Opencode => "XDG_DATA_HOME",
    }
}

/// The root the agent's own environment variable names, if it is set.
fn env_root(kind: ProviderKind, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let dir = PathBuf::from(env(env_var(kind)).filter(|v| !v.is_empty())?);
    Some(match kind {
        ProviderKind::Opencode => dir.join("opencode"),
        _ => dir,
    })
}

/// The per-OS default root under the home directory.
fn home_root(kind: ProviderKind) -> Option<PathBuf> {
    Some(join(&home()?, home_store(Os::current(), kind)))
}

/// This user's home directory.
fn home() -> Option<PathBuf> {
    Some(directories::BaseDirs::new()?.home_dir().to_path_buf())
}

/// Where an agent keeps its store under the home directory, on `os`: the same on all three
/// systems (`%USERPROFILE%\.claude` and `%USERPROFILE%\.codex` on Windows). OpenCode follows the
/// XDG layout everywhere (its `xdg-basedir` falls back to `~/.local/share` on macOS and Windows).
pub fn home_store(os: Os, kind: ProviderKind) -> &'static [&'static str] {
    match (os, kind) {
        (_, ProviderKind::Claude) => &[".claude"],
        (_, ProviderKind::Codex) => &[".codex"],
        (Os::Linux | Os::Macos | Os::Windows, ProviderKind::Opencode) => {
            &[".local", "share", "opencode"]
        }
    }
}

/// Our own directories on `os`, as components under a base: the base is an environment
/// variable when it is set to an absolute path, else the home directory.
struct Place {
    var: Option<&'static str>,
    under_home: &'static [&'static str],
    ours: &'static [&'static str],
}

/// Which of our directories.
#[derive(Clone, Copy)]
enum Ours {
    Cache,
    Config,
}

/// Where our directories are on `os`. Cache: `$XDG_CACHE_HOME` or `~/.cache` on Linux,
/// `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows, `agent-sessions` below it (and
/// `cache` below that on Windows, whose local app data also holds programs' other files).
/// Config: `$XDG_CONFIG_HOME` or `~/.config`, `~/Library/Application Support`, `%APPDATA%`.
fn place(os: Os, dir: Ours) -> Place {
    let (var, under_home, ours): (_, &'static [&'static str], &'static [&'static str]) =
        match (os, dir) {
            (Os::Linux, Ours::Cache) => (Some("XDG_CACHE_HOME"), &[".cache"], &[APP]),
            (Os::Linux, Ours::Config) => (Some("XDG_CONFIG_HOME"), &[".config"], &[APP]),
            (Os::Macos, Ours::Cache) => (None, &["Library", "Caches"], &[APP]),
            (Os::Macos, Ours::Config) => (None, &["Library", "Application Support"], &[APP]),
            (Os::Windows, Ours::Cache) => {
                (Some("LOCALAPPDATA"), &["AppData", "Local"], &[APP, "cache"])
            }
            (Os::Windows, Ours::Config) => (Some("APPDATA"), &["AppData", "Roaming"], &[APP]),
        };
    Place {
        var,
        under_home,
        ours,
    }
}

const APP: &str = "agent-sessions";

impl Place {
    /// The directory for this home and environment. A relative value of the variable is
    /// ignored, as the XDG spec says (it would move the directory with the working directory).
    fn dir(&self, home: &Path, env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
        let base = self
            .var
            .and_then(env)
            .map(PathBuf::from)
            .filter(|p| is_absolute_anywhere(p));
        let base = base.unwrap_or_else(|| join(home, self.under_home));
        join(&base, self.ours)
    }
}

/// Absolute on any system: `/…`, or a Windows drive (`C:\…`) or UNC (`\\server\…`) path, so a
/// Windows environment reads the same when the tests run on Linux.
fn is_absolute_anywhere(p: &Path) -> bool {
    let s = p.to_string_lossy();
    let b = s.as_bytes();
    p.is_absolute()
        || s.starts_with("\\\\")
        || (b.len() > 2
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'\\' | b'/'))
}

fn join(base: &Path, parts: &[&str]) -> PathBuf {
    parts
        .iter()
        .fold(base.to_path_buf(), |p, part| p.join(part))
}

/// Our cache directory on `os` for this home: `AGENT_SESSIONS_CACHE_DIR` when set, else the
/// per-OS place (`~/.cache/agent-sessions`, `~/Library/Caches/agent-sessions`,
/// `%LOCALAPPDATA%\agent-sessions\cache`).
pub fn cache_dir_for(os: Os, home: &Path, env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    match env("AGENT_SESSIONS_CACHE_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => place(os, Ours::Cache).dir(home, env),
    }
}

/// Our config directory on `os` for this home (`~/.config/agent-sessions`,
/// `~/Library/Application Support/agent-sessions`, `%APPDATA%\agent-sessions`).
pub fn config_dir_for(os: Os, home: &Path, env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    place(os, Ours::Config).dir(home, env)
}

/// This machine's cache directory (see [`cache_dir_for`]); None only without a home.
pub fn cache_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    Some(cache_dir_for(Os::current(), &home()?, env))
}

/// This machine's config directory (see [`config_dir_for`]); None only without a home.
pub fn config_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    Some(config_dir_for(Os::current(), &home()?, env))
}

/// The store root used when no root is given on the command line or in the config: the
/// agent's own environment variable first, then the per-OS default. Missing directories are
/// fine (simply empty).
pub fn default_root(kind: ProviderKind, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    env_root(kind, env).or_else(|| home_root(kind))
}

/// One provider's roots after flags, environment, config and defaults, and where they came from.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ProviderRoots {
    pub provider: ProviderKind,
    pub enabled: bool,
    pub enabled_from: Source,
    pub roots: Vec<PathBuf>,
    pub roots_from: Source,
    /// The variable the roots came from, when `roots_from` is `Env`.
    pub env_var: Option<&'static str>,
}

/// Every provider's [`ProviderRoots`], in [`ProviderKind::ALL`] order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resolved {
    pub providers: Vec<ProviderRoots>,
}

impl Resolved {
    /// The roots to read: a disabled provider has none.
    pub fn roots(&self) -> Roots {
        let of = |kind: ProviderKind| {
            let p = self.get(kind);
            if p.enabled {
                p.roots.clone()
            } else {
                Vec::new()
            }
        };
        Roots {
            claude: of(ProviderKind::Claude),
            codex: of(ProviderKind::Codex),
            opencode: of(ProviderKind::Opencode),
        }
    }

    pub fn get(&self, kind: ProviderKind) -> &ProviderRoots {
        self.providers
            .iter()
            .find(|p| p.provider == kind)
            .expect("every provider is resolved")
    }

    /// The provider a `providers.<name>.*` config key is about.
    pub fn for_key(&self, key: &str) -> Option<&ProviderRoots> {
        let name = key.strip_prefix("providers.")?.split('.').next()?;
        Some(self.get(ProviderKind::parse(name)?))
    }
}

/// The roots to read, strongest first: roots given as flags (each must exist; they also enable
/// a provider the config disables), the agent's environment variable, the config's `roots`,
/// the per-OS default (which may be missing: then that provider is simply empty). Whether a
/// provider is read comes from the flags, then the config: the environment only moves roots.
pub fn resolve(
    explicit: &Roots,
    env: &dyn Fn(&str) -> Option<String>,
    config: &ConfigFile,
) -> Result<Resolved, Error> {
    let settings = config.settings();
    let mut providers = Vec::new();
    for kind in ProviderKind::ALL {
        let given = explicit.for_kind(kind);
        if let Some(missing) = given.iter().find(|p| !p.is_dir()) {
            return Err(Error::RootMissing {
                provider: kind.as_str(),
                path: missing.clone(),
            });
        }
        let enabled_key = format!("providers.{kind}.enabled");
        let configured = &settings.provider(kind).roots;
        let (roots, roots_from, env_name) = if !given.is_empty() {
            (given.to_vec(), Source::Flag, None)
        } else if let Some(root) = env_root(kind, env) {
            (vec![root], Source::Env, Some(env_var(kind)))
        } else if !configured.is_empty() {
            (configured.clone(), Source::Config, None)
        } else {
            (home_root(kind).into_iter().collect(), Source::Default, None)
        };
        let (enabled, enabled_from) = if !given.is_empty() {
            (true, Source::Flag)
        } else if config.is_set(&enabled_key) {
            (settings.provider(kind).enabled, Source::Config)
        } else {
            (true, Source::Default)
        };
        providers.push(ProviderRoots {
            provider: kind,
            enabled,
            enabled_from,
            roots,
            roots_from,
            env_var: env_name,
        });
    }
    Ok(Resolved { providers })
}

/// The roots to read with no config file: see [`resolve`].
pub fn resolve_roots(
    explicit: &Roots,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Roots, Error> {
    resolve(explicit, env, &ConfigFile::none()).map(|r| r.roots())
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

    /// A path under `base` from its components, as the running system joins them.
    fn under(base: &str, parts: &[&str]) -> PathBuf {
        parts.iter().fold(PathBuf::from(base), |p, c| p.join(c))
    }

    #[test]
    fn agents_stores_are_under_the_home_on_every_system() {
        for os in [Os::Linux, Os::Macos, Os::Windows] {
            assert_eq!(home_store(os, ProviderKind::Claude), [".claude"]);
            assert_eq!(home_store(os, ProviderKind::Codex), [".codex"]);
            assert_eq!(
                home_store(os, ProviderKind::Opencode),
                [".local", "share", "opencode"]
            );
        }
    }

    #[test]
    fn cache_and_config_dirs_per_system() {
        let none = |_: &str| None;
        let home = Path::new("/Users/me");
        assert_eq!(
            cache_dir_for(Os::Macos, home, &none),
            PathBuf::from("/Users/me/Library/Caches/agent-sessions")
        );
        assert_eq!(
            config_dir_for(Os::Macos, home, &none),
            PathBuf::from("/Users/me/Library/Application Support/agent-sessions")
        );
        // macOS has no XDG variables of its own: they do not move our directories there.
        let xdg = |k: &str| k.starts_with("XDG_").then(|| "/x".to_owned());
        assert_eq!(
            cache_dir_for(Os::Macos, home, &xdg),
            PathBuf::from("/Users/me/Library/Caches/agent-sessions")
        );

        let home = Path::new("/home/me");
        assert_eq!(
            cache_dir_for(Os::Linux, home, &none),
            PathBuf::from("/home/me/.cache/agent-sessions")
        );
        assert_eq!(
            config_dir_for(Os::Linux, home, &none),
            PathBuf::from("/home/me/.config/agent-sessions")
        );
        assert_eq!(
            cache_dir_for(Os::Linux, home, &xdg),
            PathBuf::from("/x/agent-sessions")
        );
        let relative = |k: &str| k.starts_with("XDG_").then(|| "rel/dir".to_owned());
        assert_eq!(
            config_dir_for(Os::Linux, home, &relative),
            PathBuf::from("/home/me/.config/agent-sessions")
        );

        let home = Path::new(r"C:\Users\me");
        assert_eq!(
            cache_dir_for(Os::Windows, home, &none),
            under(
                r"C:\Users\me",
                &["AppData", "Local", "agent-sessions", "cache"]
            )
        );
        assert_eq!(
            config_dir_for(Os::Windows, home, &none),
            under(r"C:\Users\me", &["AppData", "Roaming", "agent-sessions"])
        );
        let win = |k: &str| match k {
            "LOCALAPPDATA" => Some(r"D:\Local".to_owned()),
            "APPDATA" => Some(r"\\srv\profiles\me".to_owned()),
            _ => None,
        };
        assert_eq!(
            cache_dir_for(Os::Windows, home, &win),
            under(r"D:\Local", &["agent-sessions", "cache"])
        );
        assert_eq!(
            config_dir_for(Os::Windows, home, &win),
            under(r"\\srv\profiles\me", &["agent-sessions"])
        );

        // The override wins on every system.
        let moved = |k: &str| (k == "AGENT_SESSIONS_CACHE_DIR").then(|| "/tmp/c".to_owned());
        for os in [Os::Linux, Os::Macos, Os::Windows] {
            assert_eq!(cache_dir_for(os, home, &moved), PathBuf::from("/tmp/c"));
        }
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
