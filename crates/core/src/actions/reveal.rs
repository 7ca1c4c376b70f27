//! Reveal a session's source file in the system file manager. What runs on each system is a
//! plain argv from [`plan`] (tested for all three everywhere); the path is always one argument,
//! never shell text.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::config::Os;
use crate::error::Error;

/// One way to reveal a file: a program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reveal {
    pub program: &'static str,
    pub args: Vec<OsString>,
    /// Wait for it and try the next way if it fails (a D-Bus call answers; the others hand the
    /// request to a running desktop and return).
    pub wait: bool,
}

/// The ways to reveal `path` on `os`, to be tried in order:
/// - macOS: `open -R <path>` (Finder, the file selected);
/// - Windows: `explorer /select,"<path>"` (the one argument explorer reads whole: it is passed
///   as written, see [`reveal`]);
/// - Linux: the freedesktop `FileManager1.ShowItems` D-Bus call (Files, Dolphin, Nemo, Caja,
///   Thunar select the file), else `xdg-open` on its folder (which cannot select a file).
pub fn plan(os: Os, path: &Path) -> Vec<Reveal> {
    match os {
        Os::Macos => vec![Reveal {
            program: "open",
            args: vec!["-R".into(), path.into()],
            wait: false,
        }],
        Os::Windows => vec![Reveal {
            program: "explorer",
            args: vec![format!("/select,\"{}\"", path.display()).into()],
            wait: false,
        }],
        Os::Linux => vec![
            Reveal {
                program: "dbus-send",
                args: vec![
                    "--session".into(),
                    "--print-reply".into(),
                    "--reply-timeout=3000".into(),
                    "--dest=org.freedesktop.FileManager1".into(),
                    "/org/freedesktop/FileManager1".into(),
                    "org.freedesktop.FileManager1.ShowItems".into(),
                    format!("array:string:{}", file_uri(path)).into(),
                    "string:".into(),
                ],
                wait: true,
            },
            Reveal {
                program: "xdg-open",
                args: vec![path.parent().unwrap_or(path).into()],
                wait: false,
            },
        ],
    }
}

/// A `file://` URI for `path`, every byte but unreserved ones and `/` percent-encoded. (Commas
/// too: dbus-send splits an `array:` argument at them.)
pub fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(char::from(*b))
            }
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri
}

/// Opens the file manager at `path` (selecting it where the system can). `path` must be
/// absolute (a relative one could read as an option); on Windows it may not hold `"`, which
/// no Windows file name does and which would end explorer's argument early.
pub fn reveal(path: &Path) -> Result<(), Error> {
    if !path.is_absolute() || (cfg!(windows) && path.to_string_lossy().contains('"')) {
        return Err(Error::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "not an absolute path"),
        ));
    }
    let mut last = None;
    for way in plan(Os::current(), path) {
        let mut cmd = command(&way);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let done = if way.wait {
            cmd.status().and_then(|s| {
                s.success()
                    .then_some(())
                    .ok_or_else(|| std::io::Error::other(format!("{} failed", way.program)))
            })
        } else {
            cmd.spawn().map(|_| ())
        };
        match done {
            Ok(()) => return Ok(()),
            Err(e) => last = Some(e),
        }
    }
    Err(Error::io(
        path,
        last.unwrap_or_else(|| std::io::Error::other("no file manager")),
    ))
}

#[cfg(windows)]
fn command(way: &Reveal) -> Command {
    use std::os::windows::process::CommandExt;
    // explorer parses its own command line: `/select,"C:\a b\c"` must reach it as written,
    // not quoted again as a whole by Rust's argument quoting.
    let mut cmd = Command::new(way.program);
    for arg in &way.args {
        cmd.raw_arg(arg);
    }
    cmd
}

#[cfg(not(windows))]
fn command(way: &Reveal) -> Command {
    let mut cmd = Command::new(way.program);
    cmd.args(&way.args);
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(r: &Reveal) -> Vec<String> {
        std::iter::once(r.program.to_owned())
            .chain(r.args.iter().map(|a| a.to_string_lossy().into_owned()))
            .collect()
    }

    #[test]
    fn macos_selects_the_file_in_finder() {
        let p = Path::new("/Users/me/.claude/projects/-x/a b;$(rm).jsonl");
        let ways = plan(Os::Macos, p);
        assert_eq!(ways.len(), 1);
        assert_eq!(
            argv(&ways[0]),
            [
                "open",
                "-R",
                "/Users/me/.claude/projects/-x/a b;$(rm).jsonl"
            ]
        );
    }

    #[test]
    fn windows_selects_the_file_in_explorer() {
        let p = Path::new(r"C:\Users\me\.codex\sessions\2025\rollout a&b.jsonl");
        let ways = plan(Os::Windows, p);
        assert_eq!(
            argv(&ways[0]),
            [
                "explorer",
                r#"/select,"C:\Users\me\.codex\sessions\2025\rollout a&b.jsonl""#
            ]
        );
    }

    #[test]
    fn linux_asks_the_file_manager_then_opens_the_folder() {
        let p = Path::new("/home/me/.claude/projects/-x/a b,c%é.jsonl");
        let ways = plan(Os::Linux, p);
        assert_eq!(ways.len(), 2);
        assert!(ways[0].wait);
        let dbus = argv(&ways[0]);
        assert_eq!(dbus[0], "dbus-send");
        assert_eq!(
            dbus[7],
            "array:string:file:///home/me/.claude/projects/-x/a%20b%2Cc%25%C3%A9.jsonl"
        );
        assert_eq!(dbus[8], "string:");
        assert_eq!(argv(&ways[1]), ["xdg-open", "/home/me/.claude/projects/-x"]);
    }

    #[test]
    fn relative_paths_are_refused() {
        assert!(reveal(Path::new("-rf")).is_err());
    }
}
