//! Terminals: which ones are installed, which one to use, and the exact argv that opens a window
//! of it in a session's directory, optionally running the session's resume command there.
//!
//! [`known`] is the one table of terminal ids (the config's `[terminal] app` is checked against
//! it). How a launch stays exact, whatever a directory name or a store holds:
//!
//! - **An argv, never a shell string.** Each terminal gets its own argv ([`TerminalSpec::argv`],
//!   a pure function tested per terminal per OS); the directory and every word of the command
//!   are single argv elements (`--working-directory=DIR` counts as one). The process is also
//!   started in the directory ([`Launch::cwd`]), so a terminal that has no directory option
//!   (xterm, the generic `x-terminal-emulator`) opens there too.
//! - **Three exceptions, each through `resume.rs`'s checked quoting.** Tilix takes its command
//!   as one string, which it splits like a POSIX shell: it gets the words quoted by
//!   [`ResumeCommand::posix`] (no `cd`; the directory is an option). Terminal and iTerm2 on
//!   macOS can only type a command into a new window's shell (AppleScript): the script is a
//!   constant and the command ([`ResumeCommand::posix`], `cd -- DIR && …`) is its argument,
//!   never pasted into the script. Windows hands PowerShell [`ResumeCommand::powershell`] as
//!   `-EncodedCommand` (base64 UTF-16LE), which no command-line parser can split, not even
//!   Windows Terminal's, which cuts its arguments at every `;`; and Windows Terminal gets `-d .`
//!   with the process started in the directory, so a path never goes through that parser either.
//! - **The agent is found before the launch** (on `PATH`; an absolute program as is), so the
//!   terminal runs it by its full path whatever `PATH` the terminal's own process has. Not found
//!   is an error that carries the command to copy instead.
//! - **A directory that does not exist is refused**, never replaced by the home directory.
//! - **Detection involves no shell:** an executable file on `PATH` (Linux, Windows; empty and
//!   relative `PATH` entries are skipped), an app bundle in an Applications folder (macOS).
//! - **Spawned detached:** stdin, stdout and stderr are null, the terminal gets a process group
//!   of its own (Unix) or a console of its own (a PowerShell console on Windows), and nothing
//!   waits for it beyond a short look at whether it failed at once.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::resume::{ResumeCommand, ShellCommand};
pub use crate::config::Os;

/// Builds a terminal's argv: `(os, program found, directory, command)`. The command's own
/// directory is the launch directory (see [`plan`]).
type Build = fn(Os, &Path, &Path, Option<&ResumeCommand>) -> Vec<OsString>;

/// A terminal the app can open: its id (what `[terminal] app` holds), its name for people, the
/// systems it exists on, how it is found and how its argv is built.
#[derive(Debug, Serialize)]
pub struct TerminalSpec {
    pub id: &'static str,
    pub name: &'static str,
    pub os: &'static [Os],
    /// Executable names looked up on `PATH` (Linux, Windows); the first found is used.
    #[serde(skip)]
    executables: &'static [&'static str],
    /// The app bundle looked up in the Applications folders (macOS).
    #[serde(skip)]
    bundle: Option<&'static str>,
    #[serde(skip)]
    build: Build,
}

const LINUX: &[Os] = &[Os::Linux];
const LINUX_MAC: &[Os] = &[Os::Linux, Os::Macos];
const MAC: &[Os] = &[Os::Macos];
const WINDOWS: &[Os] = &[Os::Windows];

const fn spec(
    id: &'static str,
    name: &'static str,
    os: &'static [Os],
    executables: &'static [&'static str],
    bundle: Option<&'static str>,
    build: Build,
) -> TerminalSpec {
    TerminalSpec {
        id,
        name,
        os,
        executables,
        bundle,
        build,
    }
}

/// Every terminal id, in the order Automatic tries them last (see [`automatic`]).
#[rustfmt::skip]
pub static KNOWN: &[TerminalSpec] = &[
    spec("gnome-terminal", "GNOME Terminal", LINUX, &["gnome-terminal"], None, gnome_terminal),
    spec("ptyxis", "Ptyxis", LINUX, &["ptyxis"], None, ptyxis),
    spec("kgx", "Console", LINUX, &["kgx"], None, kgx),
    spec("konsole", "Konsole", LINUX, &["konsole"], None, konsole),
    spec("ghostty", "Ghostty", LINUX_MAC, &["ghostty"], Some("Ghostty.app"), ghostty),
    spec("kitty", "kitty", LINUX_MAC, &["kitty"], Some("kitty.app"), kitty),
    spec("alacritty", "Alacritty", LINUX, &["alacritty"], None, alacritty),
    spec("wezterm", "WezTerm", LINUX_MAC, &["wezterm"], Some("WezTerm.app"), wezterm),
    spec("foot", "foot", LINUX, &["foot"], None, foot),
    spec("tilix", "Tilix", LINUX, &["tilix"], None, tilix),
    spec("xfce4-terminal", "Xfce Terminal", LINUX, &["xfce4-terminal"], None, xfce4_terminal),
    spec("xterm", "xterm", LINUX, &["xterm"], None, xterm),
    spec("x-terminal-emulator", "the system's default terminal", LINUX,
         &["x-terminal-emulator"], None, xterm),
    spec("terminal", "Terminal", MAC, &[], Some("Terminal.app"), mac_terminal),
    spec("iterm2", "iTerm2", MAC, &[], Some("iTerm.app"), iterm2),
    spec("windows-terminal", "Windows Terminal", WINDOWS, &["wt.exe"], None, windows_terminal),
    spec("powershell", "PowerShell console", WINDOWS, &["pwsh.exe", "powershell.exe"], None,
         powershell_console),
];

/// THE table of terminal ids: every terminal of every OS.
pub fn known() -> &'static [TerminalSpec] {
    KNOWN
}

/// The terminal with this id, of any OS.
pub fn find(id: &str) -> Option<&'static TerminalSpec> {
    KNOWN.iter().find(|t| t.id == id)
}

impl TerminalSpec {
    /// The argv that opens this terminal in `dir` (running `command` there, if any), on `os`,
    /// with `program` the executable (or the macOS app bundle) found for it. Pure: nothing is
    /// looked up or started. `command`'s own directory must be `dir` ([`plan`] sees to it).
    pub fn argv(
        &self,
        os: Os,
        program: &Path,
        dir: &Path,
        command: Option<&ResumeCommand>,
    ) -> Vec<OsString> {
        (self.build)(os, program, dir, command)
    }

    /// Runs on this system (of the ones it was built for).
    pub fn runs_on(&self, os: Os) -> bool {
        self.os.contains(&os)
    }
}

// ---- argv per terminal ------------------------------------------------------------------

/// `program` followed by `words`, each one argv element.
fn argv_of(program: &Path, words: &[&str]) -> Vec<OsString> {
    std::iter::once(program.as_os_str().to_owned())
        .chain(words.iter().map(OsString::from))
        .collect()
}

/// `program --flag=DIR`: the directory in the same element as its option, so it can never be
/// read as an option of its own.
fn dir_option(program: &Path, flag: &str, dir: &Path) -> Vec<OsString> {
    let mut option = OsString::from(flag);
    option.push(dir.as_os_str());
    vec![program.as_os_str().to_owned(), option]
}

/// The command's words: program then arguments, one element each.
fn words(command: &ResumeCommand) -> Vec<OsString> {
    std::iter::once(command.program())
        .chain(command.args().iter().map(String::as_str))
        .map(OsString::from)
        .collect()
}

/// `argv` + `marker` + the command's words, when there is a command.
fn then_command(
    mut argv: Vec<OsString>,
    marker: Option<&str>,
    command: Option<&ResumeCommand>,
) -> Vec<OsString> {
    if let Some(c) = command {
        argv.extend(marker.map(OsString::from));
        argv.extend(words(c));
    }
    argv
}

/// On macOS a terminal app is started by `open -na <bundle> --args …`: a new instance with
/// these arguments, as Launch Services starts apps.
fn mac_open(bundle: &Path, args: Vec<OsString>) -> Vec<OsString> {
    let mut argv = argv_of(Path::new("/usr/bin/open"), &["-na"]);
    argv.push(bundle.as_os_str().to_owned());
    argv.push("--args".into());
    argv.extend(args);
    argv
}

/// The arguments alone (no program), for `mac_open`.
fn rest(argv: Vec<OsString>) -> Vec<OsString> {
    argv.into_iter().skip(1).collect()
}

fn gnome_terminal(_: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let argv = dir_option(p, "--working-directory=", dir);
    then_command(argv, Some("--"), c)
}

fn ptyxis(_: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let mut argv = dir_option(p, "--working-directory=", dir);
    argv.insert(1, "--new-window".into());
    then_command(argv, Some("--"), c)
}

fn kgx(_: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let argv = dir_option(p, "--working-directory=", dir);
    then_command(argv, Some("--"), c)
}

/// Konsole's `-e` takes every argument after it as the command.
fn konsole(_: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let mut argv = argv_of(p, &["--workdir"]);
    argv.push(dir.as_os_str().to_owned());
    then_command(argv, Some("-e"), c)
}

/// Ghostty's `-e` takes every argument after it as the command.
fn ghostty(os: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let argv = dir_option(p, "--working-directory=", dir);
    let argv = then_command(argv, Some("-e"), c);
    match os {
        Os::Macos => mac_open(p, rest(argv)),
        _ => argv,
    }
}

/// kitty runs the first non-option argument and everything after it.
fn kitty(os: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let mut argv = argv_of(p, &["--directory"]);
    argv.push(dir.as_os_str().to_owned());
    let argv = then_command(argv, None, c);
    match os {
        Os::Macos => mac_open(p, rest(argv)),
        _ => argv,
    }
}

fn alacritty(_: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let mut argv = argv_of(p, &["--working-directory"]);
    argv.push(dir.as_os_str().to_owned());
    then_command(argv, Some("-e"), c)
}

fn wezterm(os: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let mut argv = argv_of(p, &["start", "--cwd"]);
    argv.push(dir.as_os_str().to_owned());
    let argv = then_command(argv, Some("--"), c);
    match os {
        Os::Macos => mac_open(p, rest(argv)),
        _ => argv,
    }
}

fn foot(_: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let argv = dir_option(p, "--working-directory=", dir);
    then_command(argv, Some("--"), c)
}

/// Tilix's `-e` takes one string, which it splits as a POSIX shell would: the words quoted by
/// `ResumeCommand::posix` without a `cd` (the directory is the option before it).
fn tilix(_: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let mut argv = dir_option(p, "--working-directory=", dir);
    if let Some(c) = c {
        argv.push("-e".into());
        argv.push(words_only(c).posix().into());
    }
    argv
}

fn xfce4_terminal(_: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let argv = dir_option(p, "--working-directory=", dir);
    then_command(argv, Some("-x"), c)
}

/// xterm (and the Debian policy's `x-terminal-emulator`): no directory option, the process
/// starts in the directory; `-e` takes the rest as the command. A lone word after `-e` is run
/// by a shell when it cannot be executed as is, so a command of one word goes through
/// `/usr/bin/env` (then there are always two).
fn xterm(_: Os, p: &Path, _dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let mut argv = vec![p.as_os_str().to_owned()];
    if let Some(c) = c {
        argv.push("-e".into());
        if c.args().is_empty() {
            argv.push("/usr/bin/env".into());
        }
        argv.extend(words(c));
    }
    argv
}

/// Terminal.app can open a folder (a new window there), but runs a command only by typing it
/// into a new window's shell: the AppleScript is constant and takes the command as its
/// argument (`item 1 of argv`), so nothing is ever pasted into the script.
fn mac_terminal(_: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    match c {
        None => open_folder(p, dir),
        Some(c) => osascript(
            &[
                "on run argv",
                "tell application id \"com.apple.Terminal\"",
                "activate",
                "do script (item 1 of argv)",
                "end tell",
                "end run",
            ],
            c,
        ),
    }
}

fn iterm2(_: Os, p: &Path, dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    match c {
        None => open_folder(p, dir),
        Some(c) => osascript(
            &[
                "on run argv",
                "tell application id \"com.googlecode.iterm2\"",
                "activate",
                "set w to (create window with default profile)",
                "tell current session of w to write text (item 1 of argv)",
                "end tell",
                "end run",
            ],
            c,
        ),
    }
}

/// `open -a <bundle> <dir>`: the app opens a window in that folder.
fn open_folder(bundle: &Path, dir: &Path) -> Vec<OsString> {
    let mut argv = argv_of(Path::new("/usr/bin/open"), &["-a"]);
    argv.push(bundle.as_os_str().to_owned());
    argv.push(dir.as_os_str().to_owned());
    argv
}

/// `osascript -e <line>… <cd -- DIR && command>`: the command is data for the script.
fn osascript(script: &[&str], c: &ResumeCommand) -> Vec<OsString> {
    let mut argv = vec![OsString::from("/usr/bin/osascript")];
    for line in script {
        argv.push("-e".into());
        argv.push((*line).into());
    }
    argv.push(c.posix().into());
    argv
}

/// `wt.exe -w new -d . [powershell.exe -NoExit -EncodedCommand …]`, started in the directory:
/// Windows Terminal splits its command line at every `;` and mangles some quoted paths, so
/// neither the directory nor the command is ever given to it as text it parses.
fn windows_terminal(_: Os, p: &Path, _dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let mut argv = argv_of(p, &["-w", "new", "-d", "."]);
    if let Some(c) = c {
        argv.push("powershell.exe".into());
        argv.extend(encoded(c));
    }
    argv
}

/// A PowerShell console of its own (see [`Launch::new_console`]), started in the directory.
fn powershell_console(_: Os, p: &Path, _dir: &Path, c: Option<&ResumeCommand>) -> Vec<OsString> {
    let mut argv = vec![p.as_os_str().to_owned()];
    if let Some(c) = c {
        argv.extend(encoded(c));
    }
    argv
}

/// `-NoExit -EncodedCommand <base64 of UTF-16LE>` of `Set-Location …; if ($?) { & … }`.
fn encoded(c: &ResumeCommand) -> Vec<OsString> {
    use base64::Engine;
    let utf16: Vec<u8> = c
        .powershell()
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let b64 = base64::engine::general_purpose::STANDARD.encode(utf16);
    vec!["-NoExit".into(), "-EncodedCommand".into(), b64.into()]
}

/// The same command with no directory: its words alone.
fn words_only(c: &ResumeCommand) -> ResumeCommand {
    let args: Vec<&str> = c.args().iter().map(String::as_str).collect();
    // The words passed the same checks when `c` was built, so this cannot fail.
    ResumeCommand::new(c.program(), &args, None).unwrap_or_else(|_| c.clone())
}

// ---- detection --------------------------------------------------------------------------

/// What detection and Automatic look at, read once from the environment (or made up by a test).
#[derive(Debug, Clone)]
pub struct Host {
    pub os: Os,
    /// `PATH`, split; only absolute entries are searched.
    pub path: Vec<PathBuf>,
    /// Where macOS app bundles are looked for.
    pub apps: Vec<PathBuf>,
    /// `$TERMINAL`: the user's terminal, where they name one.
    pub terminal: Option<String>,
    /// `$XDG_CURRENT_DESKTOP` (`ubuntu:GNOME`, `KDE`, …).
    pub desktop: Option<String>,
    /// `$TERM_PROGRAM` (macOS terminals set it: `Apple_Terminal`, `iTerm.app`, …).
    pub term_program: Option<String>,
    /// The user's home (`$HOME`; `%USERPROFILE%` on Windows), where per-user installs of the
    /// agents are looked for ([`super::locate`]).
    pub home: Option<PathBuf>,
    /// `%APPDATA%` and `%LOCALAPPDATA%` (Windows).
    pub app_data: Option<PathBuf>,
    pub local_app_data: Option<PathBuf>,
}

impl Host {
    /// This machine.
    pub fn this() -> Host {
        Host::from_env(Os::current(), &|name| std::env::var(name).ok())
    }

    /// `os` with these environment variables (`PATH`, `HOME`, `TERMINAL`, …).
    pub fn from_env(os: Os, env: &dyn Fn(&str) -> Option<String>) -> Host {
        let separator = if os == Os::Windows { ';' } else { ':' };
        let path = env("PATH")
            .unwrap_or_default()
            .split(separator)
            .map(PathBuf::from)
            .collect();
        let mut apps: Vec<PathBuf> = [
            "/Applications",
            "/Applications/Utilities",
            "/System/Applications",
            "/System/Applications/Utilities",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        if let Some(home) = env("HOME").filter(|h| !h.is_empty()) {
            apps.push(Path::new(&home).join("Applications"));
        }
        let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let dir = |name: &str| set(name).map(PathBuf::from).filter(|p| p.is_absolute());
        Host {
            os,
            path,
            apps,
            terminal: set("TERMINAL"),
            desktop: set("XDG_CURRENT_DESKTOP"),
            term_program: set("TERM_PROGRAM"),
            home: dir(if os == Os::Windows {
                "USERPROFILE"
            } else {
                "HOME"
            }),
            app_data: dir("APPDATA"),
            local_app_data: dir("LOCALAPPDATA"),
        }
    }

    /// The first `name` on `PATH` that is an executable file.
    pub fn which(&self, name: &str) -> Option<PathBuf> {
        self.path
            .iter()
            .filter(|dir| dir.is_absolute())
            .map(|dir| dir.join(name))
            .find(|p| is_executable(p))
    }
}

#[cfg(unix)]
pub(super) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Windows' app execution aliases (`WindowsApps\wt.exe`) are reparse points that `metadata`
/// cannot follow: that they exist is enough.
#[cfg(not(unix))]
pub(super) fn is_executable(path: &Path) -> bool {
    path.symlink_metadata().is_ok_and(|m| !m.is_dir())
}

/// A terminal found on this machine.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(rename = "InstalledTerminal")]
pub struct Installed {
    pub id: &'static str,
    pub name: &'static str,
    /// The executable (on macOS, the app bundle) found.
    pub program: PathBuf,
    /// For `x-terminal-emulator`: the known terminal it points to, if it is one.
    pub target: Option<&'static str>,
    #[serde(skip)]
    spec: &'static TerminalSpec,
}

impl Installed {
    pub fn spec(&self) -> &'static TerminalSpec {
        self.spec
    }
}

/// The known terminals of `host.os` that are installed, in [`KNOWN`] order.
pub fn installed(host: &Host) -> Vec<Installed> {
    KNOWN
        .iter()
        .filter(|s| s.runs_on(host.os))
        .filter_map(|spec| {
            let program = locate(spec, host)?;
            let target = if spec.id == "x-terminal-emulator" {
                alternative_target(&program)
            } else {
                None
            };
            Some(Installed {
                id: spec.id,
                name: spec.name,
                program,
                target,
                spec,
            })
        })
        .collect()
}

fn locate(spec: &TerminalSpec, host: &Host) -> Option<PathBuf> {
    if host.os == Os::Macos {
        let bundle = spec.bundle?;
        return host
            .apps
            .iter()
            .map(|dir| dir.join(bundle))
            .find(|p| p.is_dir());
    }
    spec.executables.iter().find_map(|name| host.which(name))
}

/// Debian's `x-terminal-emulator` is a chain of links to a terminal or its `.wrapper` script
/// (`/usr/bin/gnome-terminal.wrapper`): the known terminal at the end, if any.
fn alternative_target(link: &Path) -> Option<&'static str> {
    let real = std::fs::canonicalize(link).ok()?;
    let name = real.file_name()?.to_str()?;
    let name = name.strip_suffix(".wrapper").unwrap_or(name);
    KNOWN
        .iter()
        .filter(|s| s.id != "x-terminal-emulator" && s.runs_on(Os::Linux))
        .find(|s| s.executables.contains(&name))
        .map(|s| s.id)
}

/// The terminal Automatic picks, in this order:
/// - Linux: the one `$TERMINAL` names; the desktop's own (`$XDG_CURRENT_DESKTOP`: GNOME →
///   Ptyxis, GNOME Terminal, Console; KDE → Konsole; Xfce → Xfce Terminal; Budgie → Tilix);
///   the one `x-terminal-emulator` points to (Debian's system default), or that command itself;
///   then the [`KNOWN`] order.
/// - macOS: the one `$TERM_PROGRAM` names, then Terminal.
/// - Windows: Windows Terminal, then a PowerShell console.
pub fn automatic<'a>(host: &Host, installed: &'a [Installed]) -> Option<&'a Installed> {
    let by_id = |id: &str| installed.iter().find(|t| t.id == id);
    // An `x-terminal-emulator` pointing to an installed known terminal is that terminal.
    let resolved = |t: &'a Installed| t.target.and_then(by_id).unwrap_or(t);
    let mut preferred: Vec<&str> = Vec::new();
    match host.os {
        Os::Linux => {
            if let Some(named) = host.terminal.as_deref().and_then(terminal_named) {
                preferred.push(named);
            }
            for desktop in host.desktop.as_deref().unwrap_or("").split(':') {
                preferred.extend(desktop_terminals(desktop));
            }
            preferred.push("x-terminal-emulator");
        }
        Os::Macos => {
            let named = match host.term_program.as_deref() {
                Some("Apple_Terminal") => Some("terminal"),
                Some("iTerm.app") => Some("iterm2"),
                Some("ghostty") => Some("ghostty"),
                Some("WezTerm") => Some("wezterm"),
                _ => None,
            };
            preferred.extend(named);
            preferred.push("terminal");
        }
        Os::Windows => {}
    }
    preferred
        .into_iter()
        .find_map(by_id)
        .or_else(|| installed.first())
        .map(resolved)
}

/// The known terminal `$TERMINAL` names: an id or an executable name, or a path to one, maybe
/// followed by options (`kitty -1`).
fn terminal_named(value: &str) -> Option<&'static str> {
    let first = value.split_whitespace().next()?;
    let name = Path::new(first).file_name()?.to_str()?;
    KNOWN
        .iter()
        .filter(|s| s.runs_on(Os::Linux))
        .find(|s| s.id == name || s.executables.contains(&name))
        .map(|s| s.id)
}

fn desktop_terminals(desktop: &str) -> &'static [&'static str] {
    match desktop.to_ascii_lowercase().as_str() {
        "gnome" | "gnome-classic" | "gnome-flashback" | "ubuntu" | "unity" | "pantheon"
        | "x-cinnamon" | "cinnamon" => &["ptyxis", "gnome-terminal", "kgx"],
        "budgie" => &["tilix", "gnome-terminal"],
        "kde" => &["konsole"],
        "xfce" => &["xfce4-terminal"],
        _ => &[],
    }
}

/// The terminal to use: `requested` (an id from a flag or the config) when given, else
/// Automatic. A `requested` id that is unknown, of another system or not installed is an
/// error naming the choices; nothing else is opened instead.
pub fn choose<'a>(
    requested: Option<&str>,
    host: &Host,
    installed: &'a [Installed],
) -> Result<&'a Installed, TerminalError> {
    let Some(id) = requested.filter(|id| !id.is_empty()) else {
        return automatic(host, installed).ok_or_else(|| none_installed(host));
    };
    let spec = find(id).ok_or_else(|| TerminalError::Unknown {
        id: id.to_owned(),
        known: ids_of(host.os),
    })?;
    if !spec.runs_on(host.os) {
        return Err(TerminalError::OtherSystem {
            id: spec.id,
            name: spec.name,
            systems: spec
                .os
                .iter()
                .map(|o| os_name(*o))
                .collect::<Vec<_>>()
                .join(" and "),
            here: os_name(host.os),
        });
    }
    installed
        .iter()
        .find(|t| t.id == spec.id)
        .ok_or_else(|| TerminalError::NotInstalled {
            id: spec.id,
            name: spec.name,
            installed: if installed.is_empty() {
                "none".to_owned()
            } else {
                installed
                    .iter()
                    .map(|t| t.id)
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        })
}

fn none_installed(host: &Host) -> TerminalError {
    TerminalError::NoneInstalled {
        known: ids_of(host.os),
    }
}

fn ids_of(os: Os) -> String {
    KNOWN
        .iter()
        .filter(|s| s.runs_on(os))
        .map(|s| s.id)
        .collect::<Vec<_>>()
        .join(", ")
}

fn os_name(os: Os) -> &'static str {
    match os {
        Os::Linux => "Linux",
        Os::Macos => "macOS",
        Os::Windows => "Windows",
    }
}

// ---- launching --------------------------------------------------------------------------

/// Everything a launch runs: shown by a dry run, started by [`launch`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Launch {
    /// The terminal's id (for `x-terminal-emulator`, the terminal it points to when known).
    pub terminal: &'static str,
    #[serde(serialize_with = "lossy_strings")]
    pub argv: Vec<OsString>,
    /// The directory the terminal process is started in (always the session's directory).
    pub cwd: PathBuf,
    /// Windows: the process gets a console of its own (a PowerShell console).
    #[serde(skip)]
    pub new_console: bool,
}

fn lossy_strings<S: serde::Serializer>(argv: &[OsString], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(argv.iter().map(|a| a.to_string_lossy()))
}

/// The launch of `terminal` in `dir`, running `command` there if given. `dir` must be an
/// absolute path to a directory that exists. The command runs in `dir` (its own directory is
/// replaced) and its program is looked up on `PATH` now, unless it is a path already.
pub fn plan(
    terminal: &Installed,
    installed: &[Installed],
    host: &Host,
    dir: &Path,
    command: Option<&ResumeCommand>,
) -> Result<Launch, TerminalError> {
    check_dir(dir)?;
    let command = command.map(|c| in_dir(c, dir, host)).transpose()?;
    // `x-terminal-emulator` pointing to a known terminal gets that terminal's own argv.
    let (spec, program) = match terminal
        .target
        .and_then(|id| installed.iter().find(|t| t.id == id))
    {
        Some(target) => (target.spec, target.program.as_path()),
        None => (terminal.spec, terminal.program.as_path()),
    };
    Ok(Launch {
        terminal: spec.id,
        argv: spec.argv(host.os, program, dir, command.as_ref()),
        cwd: dir.to_path_buf(),
        new_console: spec.id == "powershell",
    })
}

/// `dir` is an absolute path to a directory that exists (also what a remote's server checks
/// before a terminal here opens in a directory there).
pub fn check_dir(dir: &Path) -> Result<(), TerminalError> {
    if !dir.is_absolute() {
        return Err(TerminalError::DirNotAbsolute(dir.to_path_buf()));
    }
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(TerminalError::NotADirectory(dir.to_path_buf())),
        Err(_) => Err(TerminalError::DirMissing(dir.to_path_buf())),
    }
}

/// `command` with its program found on `PATH` and `dir` as its directory.
fn in_dir(
    command: &ResumeCommand,
    dir: &Path,
    host: &Host,
) -> Result<ResumeCommand, TerminalError> {
    let program = command.program();
    let found = if Path::new(program).is_absolute() {
        Some(PathBuf::from(program))
    } else if program.contains(['/', '\\']) {
        None // A relative path would depend on where the terminal starts: not guessed.
    } else {
        super::locate::find_agent(host, program)
    };
    let found = found.ok_or_else(|| TerminalError::AgentNotFound {
        program: program.to_owned(),
        copy: if host.os == Os::Windows {
            command.powershell()
        } else {
            command.posix()
        },
    })?;
    let args: Vec<&str> = command.args().iter().map(String::as_str).collect();
    let (Some(found), Some(dir)) = (found.to_str(), dir.to_str()) else {
        let why = "the directory or the program path is not valid UTF-8; resume it manually";
        return Err(TerminalError::Command(Box::new(
            crate::error::Error::resume_unavailable(why),
        )));
    };
    ResumeCommand::new(found, &args, Some(dir))
        .map_err(|e| TerminalError::Command(Box::new(e.into())))
}

/// What "Open terminal" (`resume` false: a shell in the session's directory) and "Resume in
/// terminal" (`resume` true: the session's resume command there) run, in `terminal` (an id from
/// a flag or the config; None or empty for Automatic). The one call both front ends make.
pub fn plan_session(
    catalog: &crate::Catalog,
    session: &crate::SessionMeta,
    terminal: Option<&str>,
    resume: bool,
    host: &Host,
) -> Result<Launch, crate::Error> {
    let dir = session
        .cwd
        .as_deref()
        .filter(|d| !d.is_empty())
        .ok_or(TerminalError::NoDirectory)?;
    // First, so a resume that would carry on another file is refused whatever the terminal.
    let command = if resume {
        Some(catalog.resume_command(session)?)
    } else {
        None
    };
    let found = installed(host);
    let chosen = choose(terminal, host, &found)?;
    let dir = Path::new(dir);
    check_dir(dir)?;
    let command = match command {
        Some(c) => Some(held(in_dir(&c, dir, host)?, host)?),
        None => None,
    };
    Ok(plan(chosen, &found, host, dir, command.as_ref())?)
}

/// What keeps an agent's last words on screen when it fails: run by `sh -c` with the command's
/// words as its arguments (`"$@"`), so the script is the same for every session and nothing of
/// a session (its directory, its id) is ever inside its text.
pub const HOLD: &str = r#""$@" || { s=$?; printf '\n%s\n' "agent-sessions: the agent ended with exit status $s (the reason is above). Press Enter to close this window."; read -r _; exit "$s"; }"#;

/// `command` (its program found) run so that a failure stays on screen: a terminal closes when
/// its command ends, so an agent that stopped at once (a session it cannot find, an install
/// that is broken) flashed a window and left no reason. A success closes it as before. On
/// Windows the command runs as it is (no POSIX shell there).
pub fn held(command: ResumeCommand, host: &Host) -> Result<ResumeCommand, TerminalError> {
    if host.os == Os::Windows {
        return Ok(command);
    }
    let mut args = vec!["-c", HOLD, "agent-sessions", command.program()];
    args.extend(command.args().iter().map(String::as_str));
    ResumeCommand::new("/bin/sh", &args, command.cwd())
        .map_err(|e| TerminalError::Command(Box::new(e.into())))
}

/// Starts `launch` detached and returns once it is running (or has handed over, like
/// `gnome-terminal`, whose window belongs to a server); a terminal that could not be started or
/// failed at once is an error.
pub fn launch(launch: &Launch) -> Result<(), TerminalError> {
    check_dir(&launch.cwd)?;
    spawn(launch.command(), launch.terminal)
}

impl Launch {
    /// The process to start: argv, directory, null stdio, detached.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.argv[0]);
        cmd.args(&self.argv[1..])
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group: Ctrl-C in the terminal that ran us does not reach it.
            cmd.process_group(0);
        }
        #[cfg(windows)]
        {
            use std::os::windows::process::CommandExt;
            const CREATE_NEW_CONSOLE: u32 = 0x0000_0010;
            const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
            let console = if self.new_console {
                CREATE_NEW_CONSOLE
            } else {
                0
            };
            cmd.creation_flags(console | CREATE_NEW_PROCESS_GROUP);
        }
        cmd
    }
}

/// How long a just-started terminal is watched for failing at once (a missing display, a bad
/// option): long enough for those, short enough not to be noticed.
const EARLY_EXIT: Duration = Duration::from_millis(400);

/// Starts `cmd` (a terminal, `what` in messages) detached: an error if it cannot start or exits
/// with a failure within [`EARLY_EXIT`]; otherwise a thread reaps it whenever it ends.
pub fn spawn(cmd: Command, what: &str) -> Result<(), TerminalError> {
    spawn_watched(cmd, what, EARLY_EXIT)
}

/// [`spawn`], watching for a failure for `watch`.
pub fn spawn_watched(mut cmd: Command, what: &str, watch: Duration) -> Result<(), TerminalError> {
    let program = PathBuf::from(cmd.get_program());
    let mut child = cmd.spawn().map_err(|source| TerminalError::Spawn {
        terminal: what.to_owned(),
        program: program.clone(),
        source,
    })?;
    let started = Instant::now();
    while started.elapsed() < watch {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                return Err(TerminalError::Exited {
                    terminal: what.to_owned(),
                    status: status.to_string(),
                })
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break,
        }
    }
    // Never a zombie in a long-running app: someone waits for it.
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(())
}

/// Why no terminal was opened. Nothing was started in any of these cases.
#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    #[error(
        "{id:?} is not a terminal this app knows; use one of {known}, or nothing for Automatic"
    )]
    Unknown { id: String, known: String },

    #[error("{id} ({name}) is a terminal of {systems}, not of {here}")]
    OtherSystem {
        id: &'static str,
        name: &'static str,
        systems: String,
        here: &'static str,
    },

    #[error("{name} ({id}) is not installed here; the installed terminals are: {installed}")]
    NotInstalled {
        id: &'static str,
        name: &'static str,
        installed: String,
    },

    #[error("no terminal was found on this system; install one of {known}")]
    NoneInstalled { known: String },

    #[error("the session recorded no directory, so there is nowhere to open a terminal")]
    NoDirectory,

    #[error("the session's directory {0} no longer exists; nothing was opened (a terminal is never opened somewhere else instead)")]
    DirMissing(PathBuf),

    #[error("the session's directory {0} is not a directory; nothing was opened")]
    NotADirectory(PathBuf),

    #[error("the session's directory {0} is not an absolute path; nothing was opened")]
    DirNotAbsolute(PathBuf),

    #[error("{program} was not found on PATH nor where its installers, desktop apps and editor extensions put it, so no terminal was opened; run the command yourself: {copy}")]
    AgentNotFound { program: String, copy: String },

    /// An agent that lacks the action, with its own reason (`capability::Capability::Lacks`).
    #[error("{agent} cannot {action}: {why}")]
    Unavailable {
        agent: &'static str,
        action: &'static str,
        why: &'static str,
    },

    #[error("{0}")]
    Command(Box<crate::error::Error>),

    #[error("could not start {terminal} ({program}): {source}")]
    Spawn {
        terminal: String,
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("{terminal} exited at once ({status}); is a display available?")]
    Exited { terminal: String, status: String },
}

impl TerminalError {
    /// A short stable code for front ends.
    pub fn code(&self) -> &str {
        match self {
            TerminalError::Unknown { .. } | TerminalError::OtherSystem { .. } => "unknown_terminal",
            TerminalError::NotInstalled { .. } => "terminal_not_installed",
            TerminalError::NoneInstalled { .. } => "no_terminal",
            TerminalError::NoDirectory
            | TerminalError::DirMissing(_)
            | TerminalError::NotADirectory(_)
            | TerminalError::DirNotAbsolute(_) => "directory_missing",
            TerminalError::AgentNotFound { .. } => "agent_not_found",
            TerminalError::Unavailable { .. } => "action_unavailable",
            TerminalError::Command(e) => e.code(),
            TerminalError::Spawn { .. } | TerminalError::Exited { .. } => "terminal_failed",
        }
    }

    /// A terminal id that cannot be right on this system: a usage error (the CLI exits 2).
    pub fn is_bad_id(&self) -> bool {
        matches!(
            self,
            TerminalError::Unknown { .. } | TerminalError::OtherSystem { .. }
        )
    }
}
