//! Finding an agent's executable when it is not on `PATH`.
//!
//! An app started from a desktop launcher gets the session's `PATH`, not the one the user's shell
//! builds in `.bashrc`/`.zshrc`, so an agent installed per user is often missing from it. After
//! `PATH`, the places the agents' own installers, the usual per-user package managers, desktop
//! apps and editor extensions put an executable are looked at, in that order, each a fixed
//! directory or a bounded look into a folder of versions (newest version first). Nothing here
//! runs anything: a candidate counts when it is an executable file.

use std::path::{Path, PathBuf};

use super::terminal::{is_executable, Host};
use crate::config::Os;
use crate::model::ProviderKind;
use crate::provider::capability::launch::MacApp;
use crate::provider::registry::AGENTS;

/// How deep below an editor extension's or a desktop app's folder the executable may be.
const MAX_DEPTH: usize = 5;
/// Entries looked at per folder in those bounded looks (a folder of thousands is not searched).
const MAX_ENTRIES: usize = 512;

/// `program` (a bare name like `claude`): on `PATH`, else where [`places`] says.
pub fn find_agent(host: &Host, program: &str) -> Option<PathBuf> {
    let names = names(host.os, program);
    names.iter().find_map(|name| host.which(name)).or_else(|| {
        places(host, program)
            .into_iter()
            .flat_map(|place| place.candidates(&names))
            .find(|p| is_executable(p))
    })
}

/// The program of the agent `kind` (its descriptor's name for it), found as [`find_agent`] finds
/// it.
pub fn find_program(host: &Host, kind: ProviderKind) -> Option<PathBuf> {
    find_agent(host, crate::provider::registry::agent(kind).program)
}

/// The file names `program` may have on `os` (Windows: what PowerShell runs for a bare name).
fn names(os: Os, program: &str) -> Vec<String> {
    if os == Os::Windows && Path::new(program).extension().is_none() {
        [".exe", ".cmd", ".bat", ".com"]
            .iter()
            .map(|ext| format!("{program}{ext}"))
            .collect()
    } else {
        vec![program.to_owned()]
    }
}

/// A place an agent may be installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A directory holding the executable itself.
    Dir(PathBuf),
    /// A folder of versions (`~/.nvm/versions/node/v22.1.0/bin`): each entry whose name starts
    /// with the prefix, newest first, then `sub` below it.
    Versions {
        parent: PathBuf,
        prefix: &'static str,
        sub: &'static str,
    },
    /// An editor extension or app folder: each entry starting with the prefix, newest first,
    /// searched down to [`MAX_DEPTH`] for the executable.
    Bundled {
        parent: PathBuf,
        prefix: &'static str,
    },
}

impl Place {
    fn candidates(&self, names: &[String]) -> Vec<PathBuf> {
        match self {
            Place::Dir(dir) => names.iter().map(|n| dir.join(n)).collect(),
            Place::Versions {
                parent,
                prefix,
                sub,
            } => newest_first(parent, prefix)
                .into_iter()
                .flat_map(|v| names.iter().map(move |n| v.join(sub).join(n)))
                .collect(),
            Place::Bundled { parent, prefix } => newest_first(parent, prefix)
                .into_iter()
                .filter_map(|root| search(&root, names, MAX_DEPTH))
                .collect(),
        }
    }
}

/// Where `program` is looked for after `PATH`, in order, on `host` (nothing without a home):
/// the agent's own installer's folders, the package managers', the desktop app carrying it, the
/// editor extensions bundling it (the agent's places are its descriptor's:
/// [`Launch`](crate::provider::capability::launch::Launch)). A
/// program no agent runs is looked for in the package managers' folders alone.
pub fn places(host: &Host, program: &str) -> Vec<Place> {
    let Some(home) = host.home.as_deref() else {
        return Vec::new();
    };
    let launch = AGENTS
        .iter()
        .find(|a| a.program == program)
        .map(|a| a.launch);
    let mut places = Vec::new();
    let dir = |p: PathBuf| Place::Dir(p);
    // The agent's own installer first: it is what the agent's docs tell users to run.
    for sub in launch.iter().flat_map(|l| l.installer_dirs) {
        places.push(dir(home.join(sub)));
    }
    if host.os == Os::Windows {
        if let Some(app_data) = &host.app_data {
            places.push(dir(app_data.join("npm")));
        }
        if let Some(local) = &host.local_app_data {
            places.push(dir(local.join("Programs").join(program)));
            places.push(dir(local.join("Microsoft/WinGet/Links")));
        }
        places.push(dir(home.join("scoop/shims")));
        places.push(dir(home.join(".bun/bin")));
        places.push(dir(home.join(".volta/bin")));
    } else {
        for sub in [
            ".local/bin",
            "bin",
            ".npm-global/bin",
            ".bun/bin",
            ".volta/bin",
            ".yarn/bin",
            ".deno/bin",
            ".cargo/bin",
            ".local/share/pnpm",
            ".asdf/shims",
            ".local/share/mise/shims",
        ] {
            places.push(dir(home.join(sub)));
        }
        places.push(Place::Versions {
            parent: home.join(".nvm/versions/node"),
            prefix: "v",
            sub: "bin",
        });
        places.push(Place::Versions {
            parent: home.join(".local/share/fnm/node-versions"),
            prefix: "v",
            sub: "installation/bin",
        });
        for system in [
            "/opt/homebrew/bin",
            "/usr/local/bin",
            "/home/linuxbrew/.linuxbrew/bin",
            "/snap/bin",
        ] {
            places.push(dir(PathBuf::from(system)));
        }
    }
    // Desktop apps that carry the CLI inside them.
    if host.os == Os::Macos {
        places.extend(
            launch
                .and_then(|l| l.mac_app)
                .into_iter()
                .flat_map(|app| mac_app(host, home, app)),
        );
    }
    // Editor extensions that ship the agent's binary (VS Code and its forks).
    if let Some(prefix) = launch.and_then(|l| l.editor_extension) {
        for editor in [
            ".vscode",
            ".vscode-insiders",
            ".vscode-server",
            ".cursor",
            ".cursor-server",
            ".windsurf",
            ".vscodium",
        ] {
            places.push(Place::Bundled {
                parent: home.join(editor).join("extensions"),
                prefix,
            });
        }
    }
    places
}

/// The folders a macOS desktop app carrying the program is searched in.
fn mac_app(host: &Host, home: &Path, app: MacApp) -> Vec<Place> {
    match app {
        MacApp::InHome { dir, prefix } => vec![Place::Bundled {
            parent: home.join(dir),
            prefix,
        }],
        MacApp::InApplications { prefix } => host
            .apps
            .iter()
            .map(|apps| Place::Bundled {
                parent: apps.clone(),
                prefix,
            })
            .collect(),
    }
}

/// The entries of `parent` whose names start with `prefix`, newest version first.
fn newest_first(parent: &Path, prefix: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut found: Vec<(String, PathBuf)> = entries
        .take(MAX_ENTRIES)
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.starts_with(prefix).then(|| (name, e.path()))
        })
        .collect();
    found.sort_by_key(|(name, _)| std::cmp::Reverse(version_key(name)));
    found.into_iter().map(|(_, p)| p).collect()
}

/// `v22.10.1` and `openai.chatgpt-0.4.12-linux-x64` compare by their numbers, so 22.10 is newer
/// than 22.9 (a plain string sort would say otherwise).
fn version_key(name: &str) -> Vec<u64> {
    name.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or(u64::MAX))
        .collect()
}

/// The first executable named one of `names` below `dir`, breadth first, `depth` levels down;
/// symbolic links to directories are not followed.
fn search(dir: &Path, names: &[String], depth: usize) -> Option<PathBuf> {
    let mut level = vec![dir.to_path_buf()];
    for _ in 0..=depth {
        let mut next = Vec::new();
        for d in &level {
            let Ok(entries) = std::fs::read_dir(d) else {
                continue;
            };
            for e in entries.take(MAX_ENTRIES).flatten() {
                let Ok(kind) = e.file_type() else { continue };
                let path = e.path();
                if kind.is_dir() {
                    next.push(path);
                } else if names.iter().any(|n| e.file_name() == n.as_str()) && is_executable(&path)
                {
                    return Some(path);
                }
            }
        }
        next.sort();
        level = next;
    }
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn exe(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn host(os: Os, home: &Path, path: &str) -> Host {
        let home = home.to_str().unwrap().to_owned();
        let path = path.to_owned();
        Host::from_env(os, &move |name| match name {
            "HOME" => Some(home.clone()),
            "PATH" => Some(path.clone()),
            _ => None,
        })
    }

    #[test]
    fn path_first_then_the_agents_own_installer_then_package_managers() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let on_path = tmp.path().join("bin");
        exe(&home.join(".npm-global/bin/claude"));
        exe(&home.join(".claude/local/claude"));
        let h = host(Os::Linux, &home, "");
        assert_eq!(
            find_agent(&h, "claude"),
            Some(home.join(".claude/local/claude"))
        );
        exe(&home.join(".local/bin/claude"));
        assert_eq!(
            find_agent(&h, "claude"),
            Some(home.join(".local/bin/claude"))
        );
        exe(&on_path.join("claude"));
        let h = host(Os::Linux, &home, on_path.to_str().unwrap());
        assert_eq!(find_agent(&h, "claude"), Some(on_path.join("claude")));
        // OpenCode's installer, and a file that is not executable is not an agent.
        std::fs::create_dir_all(home.join(".opencode/bin")).unwrap();
        std::fs::write(home.join(".opencode/bin/opencode"), "not executable").unwrap();
        assert_eq!(find_agent(&h, "opencode"), None);
        exe(&home.join(".opencode/bin/opencode"));
        assert_eq!(
            find_agent(&h, "opencode"),
            Some(home.join(".opencode/bin/opencode"))
        );
    }

    #[test]
    fn version_folders_and_extensions_are_searched_newest_first() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path();
        exe(&home.join(".nvm/versions/node/v22.9.0/bin/codex"));
        exe(&home.join(".nvm/versions/node/v22.10.1/bin/codex"));
        let h = host(Os::Linux, home, "");
        assert_eq!(
            find_agent(&h, "codex"),
            Some(home.join(".nvm/versions/node/v22.10.1/bin/codex"))
        );
        let ext = home.join(".vscode/extensions");
        exe(&ext.join("openai.chatgpt-0.4.9-linux-x64/bin/linux-x86_64/codex"));
        exe(&ext.join("openai.chatgpt-0.4.12-linux-x64/bin/linux-x86_64/codex"));
        // Deeper than the bound: not found.
        exe(&home.join(".cursor/extensions/anthropic.claude-code-2.0.1/a/b/c/d/e/f/claude"));
        std::fs::remove_dir_all(home.join(".nvm")).unwrap();
        assert_eq!(
            find_agent(&h, "codex"),
            Some(ext.join("openai.chatgpt-0.4.12-linux-x64/bin/linux-x86_64/codex"))
        );
        assert_eq!(find_agent(&h, "claude"), None);
        exe(&home.join(".cursor/extensions/anthropic.claude-code-2.0.1/resources/claude"));
        assert_eq!(
            find_agent(&h, "claude"),
            Some(home.join(".cursor/extensions/anthropic.claude-code-2.0.1/resources/claude"))
        );
    }

    #[test]
    fn macos_apps_and_windows_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path();
        let mut mac = host(Os::Macos, home, "");
        mac.apps = vec![home.join("Applications")];
        exe(&home.join("Applications/Codex.app/Contents/Resources/codex"));
        exe(&home.join("Library/Application Support/Claude/claude-code/2.1.0/claude"));
        assert_eq!(
            find_agent(&mac, "codex"),
            Some(home.join("Applications/Codex.app/Contents/Resources/codex"))
        );
        assert_eq!(
            find_agent(&mac, "claude"),
            Some(home.join("Library/Application Support/Claude/claude-code/2.1.0/claude"))
        );
        let appdata = home.join("AppData/Roaming");
        let win = Host::from_env(Os::Windows, &|name| match name {
            "USERPROFILE" => Some(home.to_str().unwrap().to_owned()),
            "APPDATA" => Some(appdata.to_str().unwrap().to_owned()),
            _ => None,
        });
        exe(&appdata.join("npm/codex.cmd"));
        assert_eq!(
            find_agent(&win, "codex"),
            Some(appdata.join("npm/codex.cmd"))
        );
        assert_eq!(find_agent(&win, "claude"), None);
    }

    #[test]
    fn no_home_means_path_only() {
        let h = Host::from_env(Os::Linux, &|_| None);
        assert!(places(&h, "claude").is_empty());
        assert_eq!(version_key("v22.10.1"), vec![22, 10, 1]);
        assert!(version_key("v22.10.1") > version_key("v22.9.0"));
    }
}
