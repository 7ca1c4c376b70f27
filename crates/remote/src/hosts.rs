//! The hosts a user can pick: the `Host` aliases of their ssh config (`~/.ssh/config`, or
//! `AGENT_SESSIONS_SSH_CONFIG` as the CLI reads it), following `Include` as ssh does.
//!
//! Only what a picker needs is read: `Host` lines (several aliases per line; patterns with `*`
//! or `?` and negations `!x` are no host one can connect to, so they are left out), and
//! `Include` (globs; a relative path is under `~/.ssh`, as ssh_config(5) says for a user's
//! config; `~/` is the home). `Match` blocks are conditions ssh evaluates at connect time: an
//! `Include` inside one is not followed (which hosts it adds depends on the connection), but a
//! `Host` line ends the block, as in ssh. Keywords are case-insensitive and take `=` or spaces.
//! A missing config is no host, not an error; an unreadable include is a problem, listed.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::ssh::check_alias;
use crate::wsl::{distro_of, host_name, Distro};

/// Includes nested deeper than this are not followed (ssh's own limit is 16).
const MAX_DEPTH: usize = 16;

/// A config file larger than this is read only up to it.
const MAX_FILE: u64 = 1 << 20;

/// The aliases found, in the order ssh reads them, each once, and what could not be read.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Hosts {
    pub aliases: Vec<String>,
    pub problems: Vec<String>,
}

/// The config the app and the CLI read: `AGENT_SESSIONS_SSH_CONFIG` if set, else
/// `~/.ssh/config`; and the folder relative includes are under (`~/.ssh`). None without a home.
pub fn user_config(env: &dyn Fn(&str) -> Option<String>) -> Option<(PathBuf, PathBuf)> {
    let home = PathBuf::from(env("HOME").filter(|h| !h.is_empty())?);
    let ssh_dir = home.join(".ssh");
    let config = env("AGENT_SESSIONS_SSH_CONFIG")
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| ssh_dir.join("config"));
    Some((config, ssh_dir))
}

/// The `Host` aliases of `config` and the files it includes (relative ones under `ssh_dir`).
pub fn list(config: &Path, ssh_dir: &Path) -> Hosts {
    let mut walk = Walk {
        ssh_dir,
        home: ssh_dir.parent().unwrap_or(ssh_dir),
        hosts: Hosts::default(),
        seen: BTreeSet::new(),
        visited: BTreeSet::new(),
    };
    match read_capped(config) {
        Ok(text) => walk.file(config, &text, 0),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => walk.problem(format!("{}: {e}", config.display())),
    }
    walk.hosts
}

struct Walk<'a> {
    ssh_dir: &'a Path,
    home: &'a Path,
    hosts: Hosts,
    seen: BTreeSet<String>,
    /// Files read (canonical), so an include cycle ends.
    visited: BTreeSet<PathBuf>,
}

impl Walk<'_> {
    fn file(&mut self, path: &Path, text: &str, depth: usize) {
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if !self.visited.insert(canonical) {
            return;
        }
        let mut in_match = false;
        for line in text.lines() {
            let Some((keyword, args)) = directive(line) else {
                continue;
            };
            match keyword.to_ascii_lowercase().as_str() {
                "host" => {
                    in_match = false;
                    args.iter().for_each(|a| self.alias(a));
                }
                "match" => in_match = true,
                "include" if !in_match => {
                    for pattern in &args {
                        self.include(path, pattern, depth + 1);
                    }
                }
                _ => {}
            }
        }
    }

    fn alias(&mut self, pattern: &str) {
        let wildcard = pattern.starts_with('!') || pattern.contains(['*', '?']);
        if wildcard || check_alias(pattern, None).is_err() {
            return;
        }
        if self.seen.insert(pattern.to_owned()) {
            self.hosts.aliases.push(pattern.to_owned());
        }
    }

    fn include(&mut self, from: &Path, pattern: &str, depth: usize) {
        if depth > MAX_DEPTH {
            self.problem(format!(
                "{}: Include {pattern} is nested more than {MAX_DEPTH} deep; not followed",
                from.display()
            ));
            return;
        }
        let full = self.resolve(pattern);
        let Some(full_text) = full.to_str() else {
            return;
        };
        let Ok(matches) = glob::glob(full_text) else {
            self.problem(format!(
                "{}: Include {pattern} is not a valid pattern",
                from.display()
            ));
            return;
        };
        // glob yields in alphabetical order, as ssh reads them.
        for path in matches.flatten().filter(|p| p.is_file()) {
            match read_capped(&path) {
                Ok(text) => self.file(&path, &text, depth),
                Err(e) => self.problem(format!("{}: {e}", path.display())),
            }
        }
    }

    /// `~/x` under the home, a relative path under `~/.ssh`.
    fn resolve(&self, pattern: &str) -> PathBuf {
        if let Some(rest) = pattern.strip_prefix("~/") {
            return self.home.join(rest);
        }
        let path = Path::new(pattern);
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.ssh_dir.join(path)
        }
    }

    fn problem(&mut self, text: String) {
        self.hosts.problems.push(text);
    }
}

fn read_capped(path: &Path) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_FILE)
        .read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A line's keyword and arguments (`Keyword args`, `Keyword=args`, `Keyword = args`;
/// double-quoted arguments may hold spaces); none for blank lines and comments.
fn directive(line: &str) -> Option<(&str, Vec<String>)> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let end = line
        .find(|c: char| c.is_whitespace() || c == '=')
        .unwrap_or(line.len());
    let (keyword, rest) = line.split_at(end);
    let rest = rest.trim_start();
    let rest = rest.strip_prefix('=').unwrap_or(rest);
    Some((keyword, words(rest)))
}

/// Splits on whitespace, keeping double-quoted runs together (quotes removed).
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out
}

/// The picker's hosts on Windows: the ssh config's aliases, then `wsl:NAME` for each WSL
/// distribution, each once (elsewhere the ssh list is used as it is, `wsl:` aliases included). On Windows a `wsl:NAME` host is
/// that distribution, reached through wsl.exe (`wsl::distro_of`), so an ssh alias spelled
/// `wsl:…` cannot be reached there: it is left out and said in `problems`. A distribution whose
/// name could not round-trip through its host name (a leading `-`, a control character) is
/// left out too.
pub fn with_distros(ssh: Hosts, distros: &[Distro]) -> Hosts {
    let Hosts {
        aliases,
        mut problems,
    } = ssh;
    let mut out: Vec<String> = Vec::new();
    for alias in aliases {
        if let Some(distro) = distro_of(&alias) {
            problems.push(format!(
                "the ssh Host {alias} is not offered: here wsl:{distro} names a WSL distribution; give that Host another alias to reach it over ssh"
            ));
        } else {
            out.push(alias);
        }
    }
    for distro in distros {
        let name = host_name(&distro.name);
        if distro_of(&name) == Some(distro.name.as_str()) && !out.contains(&name) {
            out.push(name);
        }
    }
    Hosts {
        aliases: out,
        problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distro(name: &str) -> Distro {
        Distro {
            name: name.into(),
            state: "Stopped".into(),
            version: 2,
            default: false,
        }
    }

    /// The picker's list on Windows: ssh aliases first, then the distributions; an ssh alias
    /// that reads as a distribution's host name is not offered (said), one that merely looks
    /// similar stays; distributions that would not round-trip and repeats are left out.
    #[test]
    fn distributions_join_the_ssh_aliases_without_confusion() {
        let (_d, config, ssh) = home("Host devbox wsl:Ubuntu wsl: wslbox\nHost wsl:Old\n");
        let listed = list(&config, &ssh);
        assert_eq!(
            listed.aliases,
            ["devbox", "wsl:Ubuntu", "wsl:", "wslbox", "wsl:Old"]
        );
        let distros = [
            distro("Ubuntu"),
            distro("Debian 12"),
            distro("-oProxyCommand=x"),
            distro("bad\u{1b}name"),
            distro("Ubuntu"),
        ];
        let merged = with_distros(listed, &distros);
        assert_eq!(
            merged.aliases,
            ["devbox", "wsl:", "wslbox", "wsl:Ubuntu", "wsl:Debian 12"]
        );
        assert_eq!(merged.problems.len(), 2, "{:?}", merged.problems);
        assert!(merged.problems[0].contains("wsl:Ubuntu names a WSL distribution"));
        assert!(merged.problems[1].contains("ssh Host wsl:Old"));
        // Each listed WSL host connects to its own distribution.
        assert_eq!(distro_of("wsl:Debian 12"), Some("Debian 12"));
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A home with `.ssh/config` holding `text`.
    fn home(text: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let ssh = dir.path().join(".ssh");
        write(&ssh.join("config"), text);
        (dir, ssh.join("config"), ssh)
    }

    #[test]
    fn hosts_in_order_several_per_line_wildcards_left_out() {
        let (_d, config, ssh) = home(
            "# mine\nHost *\n  ServerAliveInterval 30\nHost devbox build-1 *.corp !bad gpu?\n  \
             HostName 10.0.0.2\nhost=lower\n  User me\nHOST  =  upper \"quoted alias\"\n\
             Host devbox\nHost -oProxyCommand=x\n",
        );
        let hosts = list(&config, &ssh);
        assert_eq!(hosts.aliases, ["devbox", "build-1", "lower", "upper"]);
        assert!(hosts.problems.is_empty());
    }

    #[test]
    fn includes_follow_globs_relative_paths_and_home() {
        let (d, config, ssh) = home(
            "Host first\nInclude config.d/*.conf ~/extra/hosts\nHost last\nInclude /nowhere/*\n",
        );
        write(&ssh.join("config.d/b.conf"), "Host bee\n");
        write(&ssh.join("config.d/a.conf"), "Host ay\nInclude nested\n");
        write(&ssh.join("config.d/skip.txt"), "Host not-matched\n");
        write(&ssh.join("nested"), "Host deep\n");
        write(&d.path().join("extra/hosts"), "host=from-home\n");
        let hosts = list(&config, &ssh);
        assert_eq!(
            hosts.aliases,
            ["first", "ay", "deep", "bee", "from-home", "last"]
        );
    }

    #[test]
    fn match_blocks_do_not_include_and_host_ends_them() {
        let (_d, config, ssh) = home(
            "Match host foo exec \"true\"\n  Include conditional\nHost after\nInclude always\n",
        );
        write(&ssh.join("conditional"), "Host only-when-matched\n");
        write(&ssh.join("always"), "Host always-there\n");
        let hosts = list(&config, &ssh);
        assert_eq!(hosts.aliases, ["after", "always-there"]);
    }

    #[test]
    fn include_cycles_end_and_a_missing_config_is_no_host() {
        let (_d, config, ssh) = home("Host a\nInclude other\n");
        write(&ssh.join("other"), "Host b\nInclude config\n");
        assert_eq!(list(&config, &ssh).aliases, ["a", "b"]);
        let none = list(&ssh.join("absent"), &ssh);
        assert_eq!(none, Hosts::default());
    }

    #[test]
    fn the_override_names_the_config() {
        let env = |k: &str| match k {
            "HOME" => Some("/home/u".to_owned()),
            "AGENT_SESSIONS_SSH_CONFIG" => Some("/tmp/cfg".to_owned()),
            _ => None,
        };
        let (config, ssh) = user_config(&env).unwrap();
        assert_eq!(config, PathBuf::from("/tmp/cfg"));
        assert_eq!(ssh, PathBuf::from("/home/u/.ssh"));
        let plain = |k: &str| (k == "HOME").then(|| "/home/u".to_owned());
        assert_eq!(
            user_config(&plain).unwrap().0,
            PathBuf::from("/home/u/.ssh/config")
        );
        assert!(user_config(&|_| None).is_none());
    }
}
