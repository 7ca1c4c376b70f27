//! Where agents keep their stores, per OS and per environment override, and repo roots.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::{ConfigFile, Os, Source};
use crate::error::Error;
use crate::model::ProviderKind;
use crate::provider::registry::{agent, AGENTS};
use crate::provider::Roots;

/// The environment variable that moves an agent's store (OpenCode's is the XDG data dir).
pub fn env_var(kind: ProviderKind) -> &'static str {
    agent(kind).env_var
}

/// The root the agent's own environment variable names, if it is set.
fn env_root(kind: ProviderKind, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let agent = agent(kind);
    let dir = PathBuf::from(env(agent.env_var).filter(|v| !v.is_empty())?);
    Some(match agent.env_subdir {
        Some(sub) => dir.join(sub),
        None => dir,
    })
}

/// The per-OS default roots under the home directory (Cline has two); none for an agent
/// without a central store (its sessions are found where the user works, never by searching
/// the whole home).
fn home_roots(kind: ProviderKind) -> Vec<PathBuf> {
    let Some(home) = home() else {
        return Vec::new();
    };
    let stores = agent(kind).home_stores(Os::current());
    stores.iter().map(|store| join(&home, store)).collect()
}

/// This user's home directory.
fn home() -> Option<PathBuf> {
    Some(directories::BaseDirs::new()?.home_dir().to_path_buf())
}

/// Where an agent keeps its store under the home directory, on `os`: the same on all three
/// systems (`%USERPROFILE%\.claude` and `%USERPROFILE%\.codex` on Windows). OpenCode follows the
/// XDG layout everywhere (its `xdg-basedir` falls back to `~/.local/share` on macOS and Windows).
pub fn home_store(os: Os, kind: ProviderKind) -> &'static [&'static str] {
    (agent(kind).home_store)(os)
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
    p.is_absolute() || agent_sessions_model::path::absolute_on_any_os(&p.to_string_lossy())
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
    env_root(kind, env).or_else(|| home_roots(kind).into_iter().next())
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
        Roots::from_fn(|kind| {
            let p = self.get(kind);
            if p.enabled {
                p.roots.clone()
            } else {
                Vec::new()
            }
        })
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
            (home_roots(kind), Source::Default, None)
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

/// A directory written one way whatever way it came: `.` and repeated or trailing separators
/// dropped, `..` applied, and symlinks resolved where the directory still exists (SPEC §5), so
/// one directory never shows twice. Relative paths are only cleaned.
pub fn normalize_dir(dir: &str) -> String {
    if let Some(windows) = clean_windows(dir) {
        // Its own spelling when it exists here (only a Windows machine has it).
        return match cfg!(windows).then(|| dunce::canonicalize(&windows)) {
            Some(Ok(real)) => real.to_string_lossy().into_owned(),
            _ => windows,
        };
    }
    let path = clean(Path::new(dir));
    let resolved = if path.is_absolute() {
        dunce::canonicalize(&path).unwrap_or(path)
    } else {
        path
    };
    let text = resolved.to_string_lossy().into_owned();
    // A Linux or macOS directory read on Windows (a WSL or remote machine's session, a bundle
    // made there) keeps its `/`: Windows' `Path` writes what it cleaned with `\`, which
    // would make `/home/bob` a `\home\bob` no system has.
    if cfg!(windows) && dir.starts_with('/') {
        text.replace('\\', "/")
    } else {
        text
    }
}

/// Windows file names are case-insensitive, so Windows directories (drive or UNC paths, as
/// [`normalize_dir`] writes them) that differ only in case are one directory: each is written
/// as the first of its spellings in sort order (`C:\Users` before `c:\users`), whatever order
/// the sessions came in. Other paths are case-sensitive and kept as they are.
pub fn one_spelling_per_dir<'a>(dirs: impl Iterator<Item = &'a mut String>) {
    let mut dirs: Vec<&mut String> = dirs.collect();
    let mut first: HashMap<String, String> = HashMap::new();
    for d in dirs.iter().filter(|d| is_windows_absolute(d)) {
        let spelling = first
            .entry(d.to_lowercase())
            .or_insert_with(|| (*d).clone());
        if d.as_str() < spelling.as_str() {
            *spelling = (*d).clone();
        }
    }
    for d in dirs.iter_mut().filter(|d| is_windows_absolute(d)) {
        if let Some(spelling) = first.get(&d.to_lowercase()) {
            spelling.clone_into(d);
        }
    }
}

/// A Windows drive (`C:\…`, `C:/…`) or UNC (`\\server\share\…`) path.
fn is_windows_absolute(dir: &str) -> bool {
    is_absolute_anywhere(Path::new(dir)) && !dir.starts_with('/')
}

/// A Windows path written one way on any system (a Windows agent's store is read on Linux too):
/// the verbatim `\\?\` prefix dropped, `\` as the separator, `.`, repeated and trailing
/// separators dropped and `..` applied as [`clean`] does (never above the drive or share), the
/// drive letter upper-case. None for a path that is not a Windows drive or UNC path.
fn clean_windows(dir: &str) -> Option<String> {
    let dir = match dir.strip_prefix(r"\\?\") {
        Some(rest) => match rest.strip_prefix(r"UNC\") {
            Some(unc) => format!(r"\\{unc}"),
            None => rest.to_owned(),
        },
        None => dir.to_owned(),
    };
    if !is_windows_absolute(&dir) {
        return None;
    }
    let mut parts = dir
        .split(['\\', '/'])
        .filter(|p| !p.is_empty() && *p != ".");
    let root = if dir.starts_with(r"\\") {
        format!(r"\\{}\{}", parts.next()?, parts.next()?)
    } else {
        parts.next()?.to_ascii_uppercase()
    };
    let mut kept: Vec<&str> = Vec::new();
    for part in parts {
        if part == ".." {
            kept.pop();
        } else {
            kept.push(part);
        }
    }
    Some(match (kept.is_empty(), root.ends_with(':')) {
        (true, true) => format!(r"{root}\"),
        (true, false) => root,
        (false, _) => format!(r"{root}\{}", kept.join(r"\")),
    })
}

/// `path` without `.`, repeated or trailing separators, and with each `..` taking away the
/// part before it (never above the root).
fn clean(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                let above_root = matches!(
                    out.components().next_back(),
                    None | Some(Component::ParentDir)
                );
                if above_root && !out.has_root() {
                    out.push("..");
                } else {
                    out.pop();
                }
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// Finds the repository of working directories, remembering what it has looked up: the git
/// toplevel, with worktrees folded under their main repository (SPEC §5 "Fold by repository").
#[derive(Default)]
pub struct RepoRoots {
    known: HashMap<String, Option<String>>,
    normal: HashMap<String, String>,
    exists: HashMap<String, bool>,
}

/// Worktrees an agent recorded for its projects (OpenCode's worktree tables): normalised
/// worktree directory → the project's main worktree.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct RecordedWorktrees(HashMap<String, String>);

impl RecordedWorktrees {
    /// From `(worktree, main)` pairs as the agent wrote them.
    pub fn new(pairs: impl IntoIterator<Item = (String, String)>) -> Self {
        RecordedWorktrees(
            pairs
                .into_iter()
                .map(|(dir, main)| (normalize_dir(&dir), main))
                .collect(),
        )
    }

    /// The main worktree of the recorded worktree `dir` is in (itself or an ancestor).
    pub fn main_of(&self, dir: &str) -> Option<&str> {
        if self.0.is_empty() {
            return None;
        }
        Path::new(dir)
            .ancestors()
            .find_map(|a| self.0.get(a.to_str()?))
            .map(String::as_str)
    }
}

impl RepoRoots {
    /// [`normalize_dir`], once per distinct directory.
    pub fn normalize(&mut self, dir: &str) -> String {
        if let Some(hit) = self.normal.get(dir) {
            return hit.clone();
        }
        let normal = normalize_dir(dir);
        self.normal.insert(dir.to_owned(), normal.clone());
        normal
    }

    /// The main repository of `cwd`: the nearest ancestor (itself included) holding `.git`,
    /// or, for a git worktree (a `.git` file whose `gitdir` has a `commondir`) or an agent's
    /// worktree (`<repo>/.claude/worktrees/<name>`), the repository it was made from. None
    /// when `cwd` is in no repository here (or is relative).
    pub fn find(&mut self, cwd: &str) -> Option<String> {
        if let Some(hit) = self.known.get(cwd) {
            return hit.clone();
        }
        let found = find_repo_root(Path::new(&self.normalize(cwd)));
        self.known.insert(cwd.to_owned(), found.clone());
        found
    }

    /// A toplevel a provider named (OpenCode's project worktree), folded as [`Self::find`]
    /// folds one, or as it was when it is not a directory here.
    pub fn main_of(&mut self, root: &str) -> String {
        self.find(root).unwrap_or_else(|| self.normalize(root))
    }

    /// The repository of the normalised directory `dir`: git's answer while the directory is
    /// here and in a repository; else the worktree an agent recorded it as (`recorded`, asked
    /// only then: a worktree that is gone, or one git does not know); else whatever git
    /// finds above it.
    pub fn repo_of(
        &mut self,
        dir: &str,
        recorded: &mut dyn FnMut() -> std::sync::Arc<RecordedWorktrees>,
    ) -> Option<String> {
        let git = self.find(dir);
        let here = *self
            .exists
            .entry(dir.to_owned())
            .or_insert_with(|| Path::new(dir).is_dir());
        if here && git.is_some() {
            return git;
        }
        match recorded().main_of(dir) {
            Some(main) => Some(self.main_of(main)),
            None => git,
        }
    }
}

fn find_repo_root(cwd: &Path) -> Option<String> {
    if !cwd.is_absolute() {
        return None;
    }
    if let Some(base) = agent_worktree_base(cwd) {
        return find_repo_root(&base).or_else(|| Some(base.to_string_lossy().into_owned()));
    }
    let top = cwd.ancestors().find(|dir| dir.join(".git").exists())?;
    let main = worktree_main(top).unwrap_or_else(|| top.to_path_buf());
    Some(main.to_string_lossy().into_owned())
}

/// `<repo>` for a directory inside `<repo>/<folder>/<name>`, where `<folder>` is where an agent
/// makes its worktrees inside a repository (`Worktrees::in_repo` of its descriptor).
fn agent_worktree_base(dir: &Path) -> Option<PathBuf> {
    let parts: Vec<_> = dir.components().collect();
    let mut markers = AGENTS.iter().flat_map(|a| a.worktrees.in_repo);
    markers.find_map(|marker| {
        (0..parts.len().saturating_sub(marker.len())).find_map(|i| {
            let hit = marker
                .iter()
                .enumerate()
                .all(|(j, m)| parts[i + j].as_os_str() == *m);
            hit.then(|| parts[..i].iter().collect())
        })
    })
}

/// The main repository of a git worktree: `top/.git` is a file `gitdir: <dir>`, and that dir's
/// `commondir` names the main `.git` (relative to it). A `.git` file without `commondir` is a
/// submodule, a repository of its own: None.
fn worktree_main(top: &Path) -> Option<PathBuf> {
    let dot_git = top.join(".git");
    if !dot_git.is_file() {
        return None;
    }
    let text = read_small(&dot_git)?;
    let gitdir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let gitdir = top.join(gitdir);
    let common = read_small(&gitdir.join("commondir"))?;
    let common = dunce::canonicalize(gitdir.join(common.trim())).ok()?;
    // A worktree of a bare repository has no main working tree to fold under.
    (common.file_name()? == ".git").then(|| common.parent().map(Path::to_path_buf))?
}

/// A git metadata file: a line or two; anything large is not one.
fn read_small(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(4096)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// The session directories that do not exist on this machine (shown dimmed, "missing").
pub fn missing_dirs(sessions: &[crate::model::SessionMeta]) -> Vec<String> {
    let mut dirs: Vec<&str> = sessions
        .iter()
        .filter_map(|s| s.dir.as_deref().or(s.cwd.as_deref()))
        .collect();
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
        assert_eq!(
            roots.get(ProviderKind::Claude),
            [PathBuf::from("/nonexistent/claude")]
        );
        let explicit = Roots::default().with(ProviderKind::Codex, ["/nonexistent/codex"]);
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

    /// An agent may have two default stores: Cline reads `~/.cline` and its VS Code
    /// extension's `globalStorage` folder, where each system keeps VS Code's settings.
    #[test]
    fn an_agent_may_have_two_default_stores() {
        let roots = resolve_roots(&Roots::default(), &|_| None).unwrap();
        let home = home().unwrap();
        let vscode: &[&str] = match Os::current() {
            Os::Macos => &["Library", "Application Support"],
            Os::Windows => &["AppData", "Roaming"],
            Os::Linux => &[".config"],
        };
        let extension = join(&join(&home, vscode), &["Code", "User", "globalStorage"]);
        assert_eq!(
            roots.get(ProviderKind::Cline),
            [
                home.join(".cline"),
                extension.join("saoudrizwan.claude-dev")
            ]
        );
        assert_eq!(roots.get(ProviderKind::Claude), [home.join(".claude")]);
        assert!(roots.get(ProviderKind::Aider).is_empty());
    }

    #[test]
    #[cfg_attr(
        windows,
        ignore = "spells Linux and macOS folders, which a Windows build joins with \\"
    )]
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
        let repo = normalize_dir(&repo.to_string_lossy());
        assert_eq!(roots.find(&sub), Some(repo));
        assert_eq!(roots.find("relative/path"), None);
    }

    #[test]
    fn directories_are_cleaned_and_symlinks_resolved() {
        assert_eq!(clean(Path::new("/a/./b//c/../d/")), PathBuf::from("/a/b/d"));
        assert_eq!(clean(Path::new("/../a")), PathBuf::from("/a"));
        assert_eq!(clean(Path::new("../a/..")), PathBuf::from(".."));
        // A directory that is gone is only cleaned.
        assert_eq!(normalize_dir("/no/such/dir/./x/../"), "/no/such/dir");
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir_all(real.join("sub")).unwrap();
        let real = normalize_dir(&real.to_string_lossy());
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&real, &link).unwrap();
            let via_link = format!("{}/sub/../", link.display());
            assert_eq!(normalize_dir(&via_link), real);
        }
        assert_eq!(normalize_dir(&format!("{real}/")), real);
    }

    #[test]
    fn a_windows_directory_is_one_directory_however_it_is_written() {
        // On any system: a Windows agent's store is read on Linux too (a copied store, tests).
        assert_eq!(normalize_dir(r"c:\users\ann\proj\"), r"C:\users\ann\proj");
        assert_eq!(
            normalize_dir(r"C:/Users/Ann//proj/./x/..\"),
            r"C:\Users\Ann\proj"
        );
        assert_eq!(
            normalize_dir(r"\\?\C:\Users\Ann\proj"),
            r"C:\Users\Ann\proj"
        );
        assert_eq!(normalize_dir(r"C:\..\.."), r"C:\");
        assert_eq!(normalize_dir(r"\\srv\share\a\..\..\b"), r"\\srv\share\b");
        assert_eq!(normalize_dir(r"\\?\UNC\srv\share\a"), r"\\srv\share\a");
        // Names differing only in case are one Windows directory, written as its first
        // spelling in sort order; POSIX names are case-sensitive and stay apart.
        let mut dirs: Vec<String> = [
            r"c:\users\ann\proj\",
            r"C:\Users\Ann\proj",
            r"C:\Users\Ann\Proj2",
            "/home/ann/Proj",
            "/home/ann/proj",
        ]
        .iter()
        .map(|d| normalize_dir(d))
        .collect();
        one_spelling_per_dir(dirs.iter_mut());
        assert_eq!(
            dirs[..3],
            [
                r"C:\Users\Ann\proj",
                r"C:\Users\Ann\proj",
                r"C:\Users\Ann\Proj2"
            ]
        );
        assert_ne!(dirs[3], dirs[4]);
    }

    fn git(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    #[cfg_attr(windows, ignore = "runs git, which Wine has no Windows build of")]
    fn worktrees_fold_under_their_main_repository() {
        let dir = tempfile::tempdir().unwrap();
        let base = PathBuf::from(normalize_dir(&dir.path().to_string_lossy()));
        let main = base.join("app");
        std::fs::create_dir_all(main.join("src/deep")).unwrap();
        git(&main, &["init", "-q"]);
        git(&main, &["commit", "-q", "--allow-empty", "-m", "first"]);
        // A git worktree beside the repository, one inside it, and an agent's worktree.
        git(
            &main,
            &["worktree", "add", "-q", "../app-feature", "-b", "feature"],
        );
        git(
            &main,
            &[
                "worktree",
                "add",
                "-q",
                ".claude/worktrees/x",
                "-b",
                "agent-x",
            ],
        );
        std::fs::create_dir_all(base.join("app-feature/lib")).unwrap();
        // A submodule-like `.git` file (no commondir) is a repository of its own.
        let sub = base.join("vendored");
        std::fs::create_dir_all(base.join("modules/vendored")).unwrap();
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(".git"), "gitdir: ../modules/vendored\n").unwrap();

        let s = |p: &Path| p.to_string_lossy().into_owned();
        let want = Some(s(&main));
        let mut roots = RepoRoots::default();
        assert_eq!(roots.find(&s(&main)), want);
        assert_eq!(roots.find(&format!("{}/src/deep/", s(&main))), want);
        assert_eq!(roots.find(&s(&base.join("app-feature"))), want);
        assert_eq!(roots.find(&s(&base.join("app-feature/lib"))), want);
        assert_eq!(roots.find(&s(&main.join(".claude/worktrees/x"))), want);
        // An agent worktree that is gone still folds under the repository it was made in.
        assert_eq!(roots.find(&s(&main.join(".claude/worktrees/gone/a"))), want);
        assert_eq!(roots.find(&s(&sub)), Some(s(&sub)));
        assert_eq!(roots.main_of(&s(&base.join("app-feature"))), s(&main));
        assert_eq!(roots.main_of("/no/such/repo/"), "/no/such/repo");
        assert_eq!(roots.find(&s(&base.join("elsewhere"))), None);
    }
}
