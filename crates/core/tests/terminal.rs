//! Terminals: every terminal's argv on every OS it runs on keeps odd directories and command
//! words whole (one argv element each, or quoted by resume.rs's checked quoting where a terminal
//! only takes a string); detection, Automatic and the choice of a terminal; refusals (unknown
//! ids, missing directories, an agent not on PATH); and real terminals under Xvfb running a probe
//! with exactly the intended argv in exactly the intended (hostile) directory.

#![cfg(unix)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agent_sessions_core::actions::resume::{ResumeCommand, ShellCommand};
use agent_sessions_core::actions::terminal::{
    self, automatic, choose, held, installed, plan, Host, Installed, Os, TerminalError,
};
use base64::Engine;

const ALL_OS: [Os; 3] = [Os::Linux, Os::Macos, Os::Windows];

/// Directory names every terminal must take literally (absolute, as sessions record them).
const ODD_DIRS: &[&str] = &[
    "/home/me/with space",
    "/home/me/it's \"q\"",
    "/home/me/$(touch pwned)",
    "/home/me/`touch pwned`",
    "/home/me/a;touch pwned&&x||y|z&",
    "/home/me/new\nline",
    "/home/me/é ü 日本 🙂",
    "/home/me/-rf",
    "/home/me/--",
    "/home/me/-e",
    "/home/me/back\\slash\\",
    "/home/me/*?[a]{b,c}~$HOME%x",
    "C:\\Users\\me\\it’s here; & 'x'",
];

const ID: &str = "0c6a524c-d98f-459f-ab17-05cfea6d7f09";

fn os_s(v: &[OsString]) -> Vec<String> {
    v.iter().map(|a| a.to_string_lossy().into_owned()).collect()
}

fn program_for(spec: &terminal::TerminalSpec, os: Os) -> PathBuf {
    match os {
        Os::Linux => PathBuf::from(format!("/usr/bin/{}", spec.id)),
        Os::Macos => PathBuf::from(format!("/Applications/{}.app", spec.name)),
        Os::Windows => PathBuf::from(format!("C:\\Program Files\\{}.exe", spec.id)),
    }
}

/// The words a POSIX shell splits `text` into (tilix splits its `-e` string the same way).
fn sh_words(text: &str) -> Vec<String> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("printf '%s\\0' {text}"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{text}");
    let mut words: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .split('\0')
        .map(str::to_owned)
        .collect();
    words.pop();
    words
}

fn decode_powershell(b64: &str) -> String {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    let units: Vec<u16> = bytes
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    String::from_utf16(&units).unwrap()
}

/// Every terminal on every OS it runs on, for every odd directory, with and without a command:
/// the directory is one argv element (alone or after its `--option=`) or the process's own
/// directory; the command's words are the argv's last elements, one each, or (tilix, macOS
/// Terminal and iTerm2, Windows) exactly resume.rs's quoting of them; nothing else holds them.
#[test]
fn every_argv_keeps_directories_and_words_whole() {
    let mut checked = 0;
    for spec in terminal::known() {
        for os in spec.os.iter().copied() {
            let program = program_for(spec, os);
            for dir in ODD_DIRS {
                let dir_path = Path::new(dir);
                let argv = os_s(&spec.argv(os, &program, dir_path, None));
                check_dir_only(spec.id, os, &program, dir, &argv);
                let args = ["--resume", "a b", "$(touch pwned)", "it's", "-e", "--", ""];
                let Ok(command) = ResumeCommand::new("/opt/my agent/claude", &args, Some(dir))
                else {
                    assert!(dir.contains('\n'), "{dir:?} refused");
                    continue;
                };
                let argv = os_s(&spec.argv(os, &program, dir_path, Some(&command)));
                check_with_command(spec.id, os, dir, &command, &argv);
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "{checked}");
}

fn check_dir_only(id: &str, os: Os, program: &Path, dir: &str, argv: &[String]) {
    let holds_dir = |a: &String| a == dir || a.strip_suffix(dir).is_some_and(|f| f.ends_with('='));
    let carriers = argv.iter().filter(|a| holds_dir(a)).count();
    match (id, os) {
        // Started in the directory: nothing in the argv names it.
        ("xterm" | "x-terminal-emulator", _) | (_, Os::Windows) => {
            assert!(argv.iter().all(|a| !a.contains(dir)), "{id} {argv:?}")
        }
        _ => assert_eq!(carriers, 1, "{id} {os:?} {argv:?}"),
    }
    // Nothing else holds any part of it.
    let others = argv
        .iter()
        .filter(|a| !holds_dir(a) && a.contains(dir))
        .count();
    assert_eq!(others, 0, "{id} {os:?} {argv:?}");
    match os {
        Os::Macos => assert_eq!(argv[0], "/usr/bin/open", "{id}"),
        _ => assert_eq!(argv[0], program.to_string_lossy(), "{id}"),
    }
}

fn check_with_command(id: &str, os: Os, dir: &str, command: &ResumeCommand, argv: &[String]) {
    let words: Vec<String> = std::iter::once(command.program().to_owned())
        .chain(command.args().iter().cloned())
        .collect();
    let last = argv.last().unwrap();
    match (id, os) {
        ("tilix", _) => {
            assert_eq!(&argv[argv.len() - 2], "-e");
            assert_eq!(sh_words(last), words, "{argv:?}");
            assert!(!last.contains(dir), "tilix gets the directory as an option");
        }
        ("terminal" | "iterm2", Os::Macos) => {
            assert_eq!(argv[0], "/usr/bin/osascript");
            assert_eq!(
                last,
                &command.posix(),
                "the command is the script's argument"
            );
            // The script itself is constant: no word or directory pasted in.
            for a in &argv[..argv.len() - 1] {
                assert!(!a.contains("pwned") && !a.contains(dir), "{a}");
            }
        }
        (_, Os::Windows) => {
            let n = argv.len();
            assert_eq!(argv[n - 3..n - 1], ["-NoExit", "-EncodedCommand"]);
            assert_eq!(decode_powershell(last), command.powershell());
            assert!(command.powershell().contains("Set-Location -LiteralPath"));
            assert!(argv.iter().all(|a| !a.contains("pwned")), "{argv:?}");
        }
        _ => {
            let tail = &argv[argv.len() - words.len()..];
            assert_eq!(tail, &words[..], "{id} {os:?} {argv:?}");
            // Each word once: none is also pasted into another element (but the directory's).
            let head = &argv[..argv.len() - words.len()];
            let pasted = head
                .iter()
                .filter(|a| !a.ends_with(dir) && a.contains("pwned"));
            assert_eq!(pasted.count(), 0, "{id} {argv:?}");
        }
    }
}

/// The exact argv of each terminal on each OS, for one hostile directory and command.
#[test]
fn each_terminal_argv_exactly() {
    let dir = "/home/me/it's $(x)";
    let cmd = ResumeCommand::new("/usr/local/bin/claude", &["--resume", ID], Some(dir)).unwrap();
    let words = ["/usr/local/bin/claude", "--resume", ID];
    let argv = |id: &str, os: Os, program: &str, command: Option<&ResumeCommand>| {
        os_s(
            &terminal::find(id)
                .unwrap()
                .argv(os, Path::new(program), Path::new(dir), command),
        )
    };
    let with = |head: &[&str]| -> Vec<String> {
        head.iter()
            .chain(words.iter())
            .map(|s| s.to_string())
            .collect()
    };
    let l = Os::Linux;
    let wd = format!("--working-directory={dir}");
    let cases: Vec<(&str, Vec<String>, Vec<String>)> = vec![
        (
            "gnome-terminal",
            with(&["/g", &wd, "--"]),
            with(&["/g", &wd])[..2].to_vec(),
        ),
        ("ptyxis", with(&["/g", "--new-window", &wd, "--"]), vec![]),
        ("kgx", with(&["/g", &wd, "--"]), vec![]),
        ("konsole", with(&["/g", "--workdir", dir, "-e"]), vec![]),
        ("ghostty", with(&["/g", &wd, "-e"]), vec![]),
        ("kitty", with(&["/g", "--directory", dir]), vec![]),
        (
            "alacritty",
            with(&["/g", "--working-directory", dir, "-e"]),
            vec![],
        ),
        (
            "wezterm",
            with(&["/g", "start", "--cwd", dir, "--"]),
            vec![],
        ),
        ("foot", with(&["/g", &wd, "--"]), vec![]),
        ("xfce4-terminal", with(&["/g", &wd, "-x"]), vec![]),
        ("xterm", with(&["/g", "-e"]), vec!["/g".into()]),
        ("x-terminal-emulator", with(&["/g", "-e"]), vec![]),
    ];
    for (id, expected, shell_only) in cases {
        assert_eq!(argv(id, l, "/g", Some(&cmd)), expected, "{id}");
        if !shell_only.is_empty() {
            assert_eq!(argv(id, l, "/g", None), shell_only, "{id}");
        }
    }
    assert_eq!(
        argv("tilix", l, "/g", Some(&cmd)),
        [
            "/g",
            &wd,
            "-e",
            &format!("/usr/local/bin/claude --resume {ID}")
        ]
    );
    // A command of one word: xterm would give a lone word to a shell when it cannot run it.
    let lone = ResumeCommand::new("/opt/x $(y)/agent", &[], Some(dir)).unwrap();
    assert_eq!(
        argv("xterm", l, "/g", Some(&lone)),
        ["/g", "-e", "/usr/bin/env", "/opt/x $(y)/agent"]
    );

    // macOS.
    let m = Os::Macos;
    let bundle = "/Applications/Ghostty.app";
    assert_eq!(
        argv("ghostty", m, bundle, Some(&cmd)),
        with(&["/usr/bin/open", "-na", bundle, "--args", &wd, "-e"])
    );
    assert_eq!(
        argv("kitty", m, "/A/kitty.app", Some(&cmd)),
        with(&[
            "/usr/bin/open",
            "-na",
            "/A/kitty.app",
            "--args",
            "--directory",
            dir
        ])
    );
    assert_eq!(
        argv("wezterm", m, "/A/WezTerm.app", None),
        [
            "/usr/bin/open",
            "-na",
            "/A/WezTerm.app",
            "--args",
            "start",
            "--cwd",
            dir
        ]
    );
    let t = "/System/Applications/Utilities/Terminal.app";
    assert_eq!(
        argv("terminal", m, t, None),
        ["/usr/bin/open", "-a", t, dir]
    );
    let script = argv("terminal", m, t, Some(&cmd));
    assert_eq!(script.last().unwrap(), &cmd.posix());
    assert_eq!(
        cmd.posix(),
        format!(r"cd -- '/home/me/it'\''s $(x)' && /usr/local/bin/claude --resume {ID}")
    );
    assert!(script.contains(&"do script (item 1 of argv)".to_owned()));
    let iterm = argv("iterm2", m, "/Applications/iTerm.app", Some(&cmd));
    assert!(iterm.contains(&"tell current session of w to write text (item 1 of argv)".to_owned()));
    assert_eq!(
        argv("iterm2", m, "/Applications/iTerm.app", None),
        ["/usr/bin/open", "-a", "/Applications/iTerm.app", dir]
    );

    // Windows.
    let w = Os::Windows;
    let wt = argv("windows-terminal", w, "C:\\wt.exe", Some(&cmd));
    assert_eq!(
        wt[..9],
        [
            "C:\\wt.exe",
            "-w",
            "new",
            "-d",
            ".",
            "powershell.exe",
            "-NoExit",
            "-EncodedCommand",
            wt[8].as_str()
        ]
    );
    assert_eq!(wt.len(), 9);
    assert_eq!(
        decode_powershell(&wt[8]),
        format!("Set-Location -LiteralPath '/home/me/it''s $(x)'; if ($?) {{ & '/usr/local/bin/claude' --resume '{ID}' }}")
    );
    assert_eq!(
        argv("windows-terminal", w, "C:\\wt.exe", None),
        ["C:\\wt.exe", "-w", "new", "-d", "."]
    );
    let ps = argv("powershell", w, "C:\\powershell.exe", Some(&cmd));
    assert_eq!(
        ps[..3],
        ["C:\\powershell.exe", "-NoExit", "-EncodedCommand"]
    );
    assert_eq!(
        argv("powershell", w, "C:\\powershell.exe", None),
        ["C:\\powershell.exe"]
    );
}

/// The config's terminal ids are this table (one list, not two kept in step by hand).
#[test]
fn the_config_checks_ids_against_this_table() {
    assert!(std::ptr::eq(
        agent_sessions_core::config::TERMINALS,
        terminal::known()
    ));
    let ids: Vec<&str> = terminal::known().iter().map(|t| t.id).collect();
    for id in [
        "gnome-terminal",
        "ptyxis",
        "kgx",
        "konsole",
        "ghostty",
        "kitty",
        "alacritty",
        "wezterm",
        "foot",
        "tilix",
        "xfce4-terminal",
        "xterm",
        "x-terminal-emulator",
        "terminal",
        "iterm2",
        "windows-terminal",
        "powershell",
    ] {
        assert!(ids.contains(&id), "{id}");
    }
    for os in ALL_OS {
        assert!(terminal::known().iter().any(|t| t.runs_on(os)));
    }
}

// ---- detection and choice ---------------------------------------------------------------

/// A fake machine: executables (scripts that do nothing) in `bin`, app bundles in `apps`.
struct Fake {
    dir: tempfile::TempDir,
}

impl Fake {
    fn new() -> Fake {
        let dir = tempfile::Builder::new()
            .prefix("agent-sessions-terminal-")
            .tempdir()
            .unwrap();
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        std::fs::create_dir(dir.path().join("apps")).unwrap();
        Fake { dir }
    }

    fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    fn exe(&self, name: &str) -> PathBuf {
        let path = self.bin().join(name);
        write_script(&path, "#!/bin/sh\nexit 0\n");
        path
    }

    fn bundle(&self, name: &str) -> PathBuf {
        let path = self.dir.path().join("apps").join(name);
        std::fs::create_dir_all(path.join("Contents")).unwrap();
        path
    }

    fn host(&self, os: Os, vars: &[(&str, &str)]) -> Host {
        let sep = if os == Os::Windows { ";" } else { ":" };
        let path = format!("relative/bin{sep}{sep}{}", self.bin().display());
        let env = |name: &str| match name {
            "PATH" => Some(path.clone()),
            _ => vars
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string()),
        };
        let mut host = Host::from_env(os, &env);
        host.apps = vec![self.dir.path().join("apps")];
        host
    }
}

fn write_script(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn ids(list: &[Installed]) -> Vec<&str> {
    list.iter().map(|t| t.id).collect()
}

#[test]
fn detection_finds_executables_on_path_and_bundles_only() {
    let fake = Fake::new();
    fake.exe("kitty");
    fake.exe("xterm");
    // Not executable, or not a file: not a terminal.
    std::fs::write(fake.bin().join("alacritty"), "").unwrap();
    std::fs::create_dir(fake.bin().join("foot")).unwrap();
    // macOS bundles are ignored on Linux and the other way round.
    fake.bundle("iTerm.app");
    let host = fake.host(Os::Linux, &[]);
    let found = installed(&host);
    assert_eq!(ids(&found), ["kitty", "xterm"]);
    assert_eq!(found[0].program, fake.bin().join("kitty"));

    let mac = installed(&fake.host(Os::Macos, &[]));
    assert_eq!(ids(&mac), ["iterm2"]);
    assert_eq!(mac[0].program, fake.dir.path().join("apps/iTerm.app"));
    fake.bundle("kitty.app");
    fake.bundle("Terminal.app");
    assert_eq!(
        ids(&installed(&fake.host(Os::Macos, &[]))),
        ["kitty", "terminal", "iterm2"]
    );

    fake.exe("wt.exe");
    fake.exe("powershell.exe");
    let win = installed(&fake.host(Os::Windows, &[]));
    assert_eq!(ids(&win), ["windows-terminal", "powershell"]);
    assert_eq!(win[1].program, fake.bin().join("powershell.exe"));
    // PowerShell 7 is preferred to Windows PowerShell when both are there.
    fake.exe("pwsh.exe");
    let win = installed(&fake.host(Os::Windows, &[]));
    assert_eq!(win[1].program, fake.bin().join("pwsh.exe"));
}

/// Only absolute PATH entries are searched: an empty or relative entry (the current directory)
/// never supplies a terminal.
#[test]
fn relative_path_entries_are_not_searched() {
    let fake = Fake::new();
    fake.exe("xterm");
    let cwd = std::env::current_dir().unwrap();
    let up = "../".repeat(cwd.components().count() - 1);
    let relative = format!("{up}{}", fake.bin().display());
    assert!(Path::new(&relative).join("xterm").exists());
    let env = |name: &str| (name == "PATH").then(|| format!("{relative}::."));
    let host = Host::from_env(Os::Linux, &env);
    assert!(installed(&host).is_empty());
    assert_eq!(host.which("xterm"), None);
}

#[test]
fn x_terminal_emulator_resolves_to_the_terminal_it_points_to() {
    let fake = Fake::new();
    fake.exe("gnome-terminal");
    fake.exe("xterm");
    // Debian: x-terminal-emulator -> /etc/alternatives/… -> gnome-terminal.wrapper.
    let alternatives = fake.dir.path().join("alternatives");
    std::fs::create_dir(&alternatives).unwrap();
    let wrapper = fake.dir.path().join("gnome-terminal.wrapper");
    write_script(&wrapper, "#!/bin/sh\n");
    std::os::unix::fs::symlink(&wrapper, alternatives.join("x-terminal-emulator")).unwrap();
    std::os::unix::fs::symlink(
        alternatives.join("x-terminal-emulator"),
        fake.bin().join("x-terminal-emulator"),
    )
    .unwrap();
    let host = fake.host(Os::Linux, &[]);
    let found = installed(&host);
    let xte = found
        .iter()
        .find(|t| t.id == "x-terminal-emulator")
        .unwrap();
    assert_eq!(xte.target, Some("gnome-terminal"));
    // Chosen by id, it opens the terminal it points to, with that terminal's own argv.
    let dir = tempfile::tempdir().unwrap();
    let launch = plan(xte, &found, &host, dir.path(), None).unwrap();
    assert_eq!(launch.terminal, "gnome-terminal");
    assert_eq!(
        launch.argv[0],
        fake.bin().join("gnome-terminal").into_os_string()
    );
    // Pointing to something unknown, it is used as itself: `-e` and the process's directory.
    std::fs::remove_file(fake.bin().join("x-terminal-emulator")).unwrap();
    let other = fake.exe("x-terminal-emulator");
    let found = installed(&host);
    let xte = found
        .iter()
        .find(|t| t.id == "x-terminal-emulator")
        .unwrap();
    assert_eq!(xte.target, None);
    let cmd = ResumeCommand::new("/bin/true", &["a b"], None).unwrap();
    let launch = plan(xte, &found, &host, dir.path(), Some(&cmd)).unwrap();
    assert_eq!(launch.terminal, "x-terminal-emulator");
    assert_eq!(
        os_s(&launch.argv),
        [other.to_str().unwrap(), "-e", "/bin/true", "a b"]
    );
    assert_eq!(launch.cwd, dir.path());
}

#[test]
fn automatic_prefers_the_users_then_the_desktops_then_the_systems_terminal() {
    let fake = Fake::new();
    for t in ["gnome-terminal", "konsole", "kitty", "xterm", "tilix"] {
        fake.exe(t);
    }
    let pick = |vars: &[(&str, &str)]| {
        let host = fake.host(Os::Linux, vars);
        let found = installed(&host);
        automatic(&host, &found).map(|t| t.id.to_owned())
    };
    // $TERMINAL, as a name, a path or with options; one that is not installed is passed over.
    assert_eq!(pick(&[("TERMINAL", "kitty")]).as_deref(), Some("kitty"));
    assert_eq!(
        pick(&[("TERMINAL", "/usr/bin/xterm -fa Mono")]).as_deref(),
        Some("xterm")
    );
    let ghostty = [("TERMINAL", "ghostty"), ("XDG_CURRENT_DESKTOP", "KDE")];
    assert_eq!(pick(&ghostty).as_deref(), Some("konsole"));
    assert_eq!(
        pick(&[("TERMINAL", "my-own-term")]).as_deref(),
        Some("gnome-terminal")
    );
    // The desktop's own.
    assert_eq!(
        pick(&[("XDG_CURRENT_DESKTOP", "KDE")]).as_deref(),
        Some("konsole")
    );
    assert_eq!(
        pick(&[("XDG_CURRENT_DESKTOP", "ubuntu:GNOME")]).as_deref(),
        Some("gnome-terminal")
    );
    assert_eq!(
        pick(&[("XDG_CURRENT_DESKTOP", "Budgie:GNOME")]).as_deref(),
        Some("tilix")
    );
    // Then x-terminal-emulator, as the terminal it points to.
    let xte = fake.bin().join("x-terminal-emulator");
    std::os::unix::fs::symlink(fake.bin().join("kitty"), &xte).unwrap();
    assert_eq!(
        pick(&[("XDG_CURRENT_DESKTOP", "LXQt")]).as_deref(),
        Some("kitty")
    );
    // Then the table's order.
    std::fs::remove_file(&xte).unwrap();
    assert_eq!(pick(&[]).as_deref(), Some("gnome-terminal"));
    // Nothing installed.
    let empty = Fake::new();
    let host = empty.host(Os::Linux, &[]);
    assert!(automatic(&host, &installed(&host)).is_none());
    let e = choose(None, &host, &[]).unwrap_err();
    assert_eq!(e.code(), "no_terminal");
    assert!(e.to_string().contains("xterm"), "{e}");

    // macOS: the terminal we run in, then Terminal.
    fake.bundle("iTerm.app");
    fake.bundle("Terminal.app");
    let mac = |vars: &[(&str, &str)]| {
        let host = fake.host(Os::Macos, vars);
        automatic(&host, &installed(&host)).map(|t| t.id.to_owned())
    };
    assert_eq!(mac(&[]).as_deref(), Some("terminal"));
    assert_eq!(
        mac(&[("TERM_PROGRAM", "iTerm.app")]).as_deref(),
        Some("iterm2")
    );
    // Windows: Windows Terminal, else a PowerShell console.
    fake.exe("powershell.exe");
    let win = || {
        let host = fake.host(Os::Windows, &[]);
        automatic(&host, &installed(&host)).map(|t| t.id.to_owned())
    };
    assert_eq!(win().as_deref(), Some("powershell"));
    fake.exe("wt.exe");
    assert_eq!(win().as_deref(), Some("windows-terminal"));
}

#[test]
fn choosing_an_id_that_cannot_be_used_names_the_choices() {
    let fake = Fake::new();
    fake.exe("xterm");
    fake.exe("kitty");
    let host = fake.host(Os::Linux, &[]);
    let found = installed(&host);
    assert_eq!(choose(Some("kitty"), &host, &found).unwrap().id, "kitty");
    assert_eq!(choose(Some(""), &host, &found).unwrap().id, "kitty");

    let e = choose(Some("xterm -e sh"), &host, &found).unwrap_err();
    assert!(e.is_bad_id());
    assert_eq!(e.code(), "unknown_terminal");
    let m = e.to_string();
    assert!(
        m.contains("\"xterm -e sh\" is not a terminal") && m.contains("gnome-terminal"),
        "{m}"
    );
    assert!(
        !m.contains("iterm2"),
        "only this system's ids are offered: {m}"
    );

    let e = choose(Some("iterm2"), &host, &found).unwrap_err();
    assert!(e.is_bad_id());
    assert_eq!(
        e.to_string(),
        "iterm2 (iTerm2) is a terminal of macOS, not of Linux"
    );

    let e = choose(Some("konsole"), &host, &found).unwrap_err();
    assert!(!e.is_bad_id());
    assert_eq!(e.code(), "terminal_not_installed");
    assert_eq!(
        e.to_string(),
        "Konsole (konsole) is not installed here; the installed terminals are: kitty, xterm"
    );
}

// ---- plans and launches -----------------------------------------------------------------

#[test]
fn a_missing_directory_is_refused_not_replaced() {
    let fake = Fake::new();
    fake.exe("xterm");
    let host = fake.host(Os::Linux, &[]);
    let found = installed(&host);
    let gone = fake.dir.path().join("gone away");
    let e = plan(&found[0], &found, &host, &gone, None).unwrap_err();
    assert!(matches!(e, TerminalError::DirMissing(_)));
    assert_eq!(e.code(), "directory_missing");
    let m = e.to_string();
    assert!(
        m.contains("gone away")
            && m.contains("no longer exists")
            && m.contains("nothing was opened"),
        "{m}"
    );
    let file = fake.exe("not-a-dir");
    assert!(matches!(
        plan(&found[0], &found, &host, &file, None),
        Err(TerminalError::NotADirectory(_))
    ));
    assert!(matches!(
        plan(&found[0], &found, &host, Path::new("relative/dir"), None),
        Err(TerminalError::DirNotAbsolute(_))
    ));
    // A plan made while it existed is refused at launch once it is gone.
    let dir = fake.dir.path().join("soon gone");
    std::fs::create_dir(&dir).unwrap();
    let launch = plan(&found[0], &found, &host, &dir, None).unwrap();
    std::fs::remove_dir(&dir).unwrap();
    assert!(matches!(
        terminal::launch(&launch),
        Err(TerminalError::DirMissing(_))
    ));
}

#[test]
fn the_agent_is_found_on_path_before_the_launch() {
    let fake = Fake::new();
    fake.exe("kitty");
    let agent = fake.exe("claude");
    let host = fake.host(Os::Linux, &[]);
    let found = installed(&host);
    let dir = fake.dir.path().join("it's here");
    std::fs::create_dir(&dir).unwrap();
    let dir_s = dir.to_str().unwrap();
    let cmd = ResumeCommand::new("claude", &["--resume", ID], Some("/elsewhere")).unwrap();
    let launch = plan(&found[0], &found, &host, &dir, Some(&cmd)).unwrap();
    assert_eq!(launch.terminal, "kitty");
    assert_eq!(
        os_s(&launch.argv),
        [
            fake.bin().join("kitty").to_str().unwrap(),
            "--directory",
            dir_s,
            agent.to_str().unwrap(),
            "--resume",
            ID
        ]
    );
    assert_eq!(launch.cwd, dir);
    // Not on PATH: nothing opens, and the message carries the command to run by hand.
    let missing = ResumeCommand::new("codex", &["resume", ID], Some(dir_s)).unwrap();
    let e = plan(&found[0], &found, &host, &dir, Some(&missing)).unwrap_err();
    assert_eq!(e.code(), "agent_not_found");
    assert!(e.to_string().ends_with(&missing.posix()), "{e}");
    assert!(
        e.to_string().starts_with("codex was not found on PATH"),
        "{e}"
    );
    // A relative program path would depend on where the terminal starts: refused.
    let relative = ResumeCommand::new("bin/claude", &[ID], Some(dir_s)).unwrap();
    assert!(matches!(
        plan(&found[0], &found, &host, &dir, Some(&relative)),
        Err(TerminalError::AgentNotFound { .. })
    ));
    // Windows looks for the program's .exe/.cmd, and offers the PowerShell form to copy.
    fake.exe("wt.exe");
    fake.exe("codex.cmd");
    let win = fake.host(Os::Windows, &[]);
    let wfound = installed(&win);
    let launch = plan(&wfound[0], &wfound, &win, &dir, Some(&missing)).unwrap();
    let script = decode_powershell(&launch.argv.last().unwrap().to_string_lossy());
    assert!(
        script.contains(&format!(
            "& '{}' resume",
            fake.bin().join("codex.cmd").display()
        )),
        "{script}"
    );
    let e = plan(&wfound[0], &wfound, &win, &dir, Some(&cmd)).unwrap_err();
    assert!(e.to_string().ends_with(&cmd.powershell()), "{e}");
}

/// A directory with a control character can be opened, but a command cannot be typed or quoted
/// for it (resume.rs refuses it): the error says so and nothing starts.
#[test]
fn a_directory_with_a_newline_opens_but_is_not_resumed_in() {
    let fake = Fake::new();
    fake.exe("xterm");
    let host = fake.host(Os::Linux, &[]);
    let found = installed(&host);
    let dir = fake.dir.path().join("new\nline");
    std::fs::create_dir(&dir).unwrap();
    assert!(plan(&found[0], &found, &host, &dir, None).is_ok());
    let cmd = ResumeCommand::new("/bin/true", &["x"], None).unwrap();
    let e = plan(&found[0], &found, &host, &dir, Some(&cmd)).unwrap_err();
    assert_eq!(e.code(), "resume_unavailable");
    assert!(e.to_string().contains("control characters"), "{e}");
}

/// A fake terminal records its argv and directory: `launch` starts exactly the plan, detached
/// (its own process group, no stdin), and reports a terminal that fails at once or cannot start.
#[test]
fn launch_starts_exactly_the_plan_detached() {
    let fake = Fake::new();
    let record = fake.dir.path().join("record");
    write_script(
        &fake.bin().join("xterm"),
        &format!(
            "#!/bin/sh\n{{ pwd -P; ps -o pgid= -p $$; ps -o pgid= -p $PPID; [ -t 0 ] && echo tty || echo no-tty; for a; do printf '[%s]\\n' \"$a\"; done; }} > '{0}.tmp' && mv '{0}.tmp' '{0}'\n",
            record.display()
        ),
    );
    let host = fake.host(Os::Linux, &[]);
    let found = installed(&host);
    let dir = fake.dir.path().join("$(touch pwned) it's");
    std::fs::create_dir(&dir).unwrap();
    let cmd = ResumeCommand::new("/bin/echo", &["a b", "`touch pwned`"], None).unwrap();
    let launch = plan(&found[0], &found, &host, &dir, Some(&cmd)).unwrap();
    terminal::launch(&launch).unwrap();
    let text = wait_for(&record, Duration::from_secs(30));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        std::fs::canonicalize(&dir).unwrap().to_str().unwrap()
    );
    assert_ne!(
        lines[1].trim(),
        lines[2].trim(),
        "the terminal has a process group of its own"
    );
    assert_eq!(lines[3], "no-tty");
    assert_eq!(
        lines[4..],
        ["[-e]", "[/bin/echo]", "[a b]", "[`touch pwned`]"]
    );
    assert!(!dir.join("pwned").exists());

    // Watched for as long as it takes (a loaded machine is slow to start even `false`).
    std::fs::remove_file(fake.bin().join("xterm")).unwrap();
    std::os::unix::fs::symlink("/bin/false", fake.bin().join("xterm")).unwrap();
    let e =
        terminal::spawn_watched(launch.command(), "xterm", Duration::from_secs(60)).unwrap_err();
    assert_eq!(e.code(), "terminal_failed");
    assert!(e.to_string().starts_with("xterm exited at once"), "{e}");

    std::fs::remove_file(fake.bin().join("xterm")).unwrap();
    let e = terminal::launch(&launch).unwrap_err();
    assert!(matches!(e, TerminalError::Spawn { .. }), "{e}");
    assert!(e.to_string().starts_with("could not start xterm ("), "{e}");
}

/// Reads `path` once it exists (it is written whole, by a rename), waiting at most `limit`.
fn wait_for(path: &Path, limit: Duration) -> String {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path) {
            return text;
        }
        assert!(start.elapsed() < limit, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(50));
    }
}

// ---- real terminals ---------------------------------------------------------------------

/// Real terminals, under Xvfb with a D-Bus session bus of their own (Linux).
#[cfg(target_os = "linux")]
mod real {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::process::{Child, Stdio};

    fn wait_for_bytes(path: &Path, limit: Duration) -> Option<Vec<u8>> {
        let start = Instant::now();
        loop {
            if let Ok(bytes) = std::fs::read(path) {
                return Some(bytes);
            }
            if start.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The terminals scripts/setup.sh installs: missing, the test fails (it does not skip).
    const SETUP_INSTALLS: &[&str] = &["xterm", "gnome-terminal", "kitty", "tilix"];
    /// Also launched when installed: they start under Xvfb with no GPU too.
    const ALSO_TRIED: &[&str] = &["alacritty", "xfce4-terminal", "kgx"];

    /// Each payload, if it ran, creates a file with this name (in whatever directory it ran).
    const PWNED: &str = "PWNED";

    /// Command words a terminal must pass on untouched.
    const HOSTILE_ARGS: &[&str] = &[
        "--resume",
        "a b",
        "$(touch PWNED)",
        "`touch PWNED`",
        "it's \"q\" \\ $HOME *",
        "é;touch PWNED|&>x",
        "-e",
        "--",
        "-x",
    ];

    /// The environment a terminal started from a desktop session has, pointed at our display, bus
    /// and home (its shells' rc files are ours); and a marker to find every process started in it.
    fn desktop_env(cmd: &mut Command, tmp: &Path, display: &str, bus: Option<&str>) {
        let home = tmp.join("home");
        cmd.env("DISPLAY", display)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_RUNTIME_DIR", tmp.join("run"))
            .env("LANG", "C.UTF-8")
            .env("NO_AT_BRIDGE", "1")
            .env("SHELL", "/bin/dash")
            .env("ENV", tmp.join("shellrc"))
            .env("AGENT_SESSIONS_TERMINAL_TEST", tmp)
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("TERMINAL");
        if let Some(bus) = bus {
            cmd.env("DBUS_SESSION_BUS_ADDRESS", bus);
        }
    }

    /// A private X display, a D-Bus session bus (GNOME Terminal, Tilix and Console need one), and
    /// a home for the terminals' settings; all stopped, with every process started under them,
    /// when dropped.
    struct Desktop {
        tmp: PathBuf,
        display: String,
        bus: String,
        xvfb: Child,
        dbus: Child,
    }

    impl Desktop {
        fn start(tmp: &Path) -> Desktop {
            let host = Host::this();
            assert!(
                host.which("Xvfb").is_some(),
                "Xvfb is not installed; scripts/setup.sh installs it"
            );
            let home = tmp.join("home");
            let runtime = tmp.join("run");
            for d in [&home, &runtime] {
                std::fs::create_dir_all(d).unwrap();
            }
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
            let (display, xvfb) = start_xvfb();
            let mut dbus = Command::new("dbus-daemon");
            dbus.args(["--session", "--nofork", "--print-address=1"])
                .arg(format!("--address=unix:path={}", tmp.join("bus").display()))
                .stdout(Stdio::piped())
                .stderr(Stdio::null());
            desktop_env(&mut dbus, tmp, &display, None);
            let mut dbus = dbus
                .spawn()
                .expect("dbus-daemon (package dbus-x11) is not installed");
            let mut line = String::new();
            BufReader::new(dbus.stdout.take().unwrap())
                .read_line(&mut line)
                .unwrap();
            let bus = line.trim().to_owned();
            let desktop = Desktop {
                tmp: tmp.to_path_buf(),
                display,
                bus,
                xvfb,
                dbus,
            };
            assert!(desktop.bus.starts_with("unix:"), "{line}");
            desktop
        }

        fn env(&self, cmd: &mut Command) {
            desktop_env(cmd, &self.tmp, &self.display, Some(&self.bus));
        }

        /// Every process whose environment carries our marker.
        fn our_processes(&self) -> Vec<i32> {
            let marker = format!("AGENT_SESSIONS_TERMINAL_TEST={}", self.tmp.display());
            let me = std::process::id() as i32;
            std::fs::read_dir("/proc")
                .unwrap()
                .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
                .filter(|pid| *pid != me)
                .filter(|pid| {
                    std::fs::read(format!("/proc/{pid}/environ"))
                        .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == marker.as_bytes()))
                })
                .collect()
        }
    }

    impl Drop for Desktop {
        fn drop(&mut self) {
            let _ = self.xvfb.kill();
            let _ = self.dbus.kill();
            let _ = self.xvfb.wait();
            let _ = self.dbus.wait();
            // The terminals lose their display and bus and end; whatever has not is killed.
            let start = Instant::now();
            loop {
                let left = self.our_processes();
                if left.is_empty() || start.elapsed() > Duration::from_secs(20) {
                    break;
                }
                let signal = if start.elapsed() > Duration::from_secs(5) {
                    libc::SIGKILL
                } else {
                    libc::SIGTERM
                };
                for pid in left {
                    // SAFETY: kill(2) with a pid we read from /proc; no memory is involved.
                    unsafe { libc::kill(pid, signal) };
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }

    fn start_xvfb() -> (String, Child) {
        for n in 150..250 {
            if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
                || Path::new(&format!("/tmp/.X{n}-lock")).exists()
            {
                continue;
            }
            let mut xvfb = Command::new("Xvfb")
                .args([
                    &format!(":{n}"),
                    "-screen",
                    "0",
                    "1280x800x24",
                    "-nolisten",
                    "tcp",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(30) {
                if let Ok(Some(_)) = xvfb.try_wait() {
                    break; // Taken meanwhile: the next number.
                }
                if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
                    return (format!(":{n}"), xvfb);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = xvfb.kill();
            let _ = xvfb.wait();
        }
        panic!("no free X display");
    }

    /// A probe in place of the agent: writes its directory and argv (NUL-separated) to `out`,
    /// whole (a rename).
    fn probe(dir: &Path, out: &Path) -> PathBuf {
        let name = out.file_name().unwrap().to_str().unwrap();
        let path = dir.join(format!("pro'be $(x) {name}"));
        write_script(
            &path,
            &format!(
            "#!/bin/sh\nprintf '%s\\0' \"$(pwd -P)\" \"$@\" > '{0}.tmp' && mv '{0}.tmp' '{0}'\n",
            out.display()
        ),
        );
        path
    }

    /// Rc files for the shells a terminal may start (dash via $ENV, bash, zsh, fish): each writes
    /// where it started to `out` and exits.
    fn shell_rc(desktop: &Desktop, out: &Path) {
        let home = desktop.tmp.join("home");
        let sh = format!(
            "printf '%s\\0' \"$(pwd -P)\" > '{0}.tmp' && mv '{0}.tmp' '{0}'; exit\n",
            out.display()
        );
        let fish = format!(
            "printf '%s\\0' (pwd -P) > '{0}.tmp'; and mv '{0}.tmp' '{0}'; exit\n",
            out.display()
        );
        std::fs::create_dir_all(home.join(".config/fish")).unwrap();
        for (file, text) in [
            (desktop.tmp.join("shellrc"), &sh),
            (home.join(".bashrc"), &sh),
            (home.join(".zshrc"), &sh),
            (home.join(".config/fish/config.fish"), &fish),
        ] {
            std::fs::write(file, text).unwrap();
        }
    }

    fn nul_split(bytes: &[u8]) -> Vec<String> {
        let mut parts: Vec<String> = bytes
            .split(|b| *b == 0)
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        parts.pop();
        parts
    }

    /// Launches and waits for `out`; a second try after a failed one. GNOME Terminal's server
    /// quits a few seconds after its last window closes (here, a probe's): a request that
    /// reaches it while it quits either fails at once (exit status 1) or is acknowledged and
    /// opens nothing. Both were seen under load; a launch that fails twice is a failure.
    fn launched(
        desktop: &Desktop,
        launch: &terminal::Launch,
        out: &Path,
    ) -> Result<Vec<u8>, String> {
        let mut why = String::new();
        for attempt in 1..=2 {
            why = match launch_in(desktop, launch) {
                Err(e) => e.to_string(),
                Ok(()) => match wait_for_bytes(out, Duration::from_secs(30)) {
                    Some(bytes) => return Ok(bytes),
                    None => format!("it never ran ({:?})", launch.argv),
                },
            };
            eprintln!("{}: try {attempt}: {why}", launch.terminal);
            std::thread::sleep(Duration::from_secs(2));
        }
        Err(why)
    }

    fn launch_in(desktop: &Desktop, launch: &terminal::Launch) -> Result<(), TerminalError> {
        let mut cmd = launch.command();
        desktop.env(&mut cmd);
        terminal::spawn(cmd, launch.terminal)
    }

    fn pwned_files(root: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let path = e.path();
                if e.file_name() == PWNED {
                    found.push(path.clone());
                }
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push(path);
                }
            }
        }
        found
    }

    /// Real terminals under Xvfb: each one scripts/setup.sh installs (and the others here that
    /// start without a GPU) runs a probe as the "resume command" in a directory with a hostile
    /// name: the probe gets exactly the intended argv in exactly that directory, and no payload
    /// from the name or the words runs. Each also opens a plain shell there (the shell's rc file
    /// records where it started). `x-terminal-emulator` is launched as the terminal it points to
    /// and, pointing to a wrapper we do not know (`uxterm`), as itself.
    #[test]
    fn real_terminals_run_the_command_in_the_directory() {
        let tmp = tempfile::Builder::new()
            .prefix("agent-sessions-terminals-")
            .tempdir()
            .unwrap();
        let root = tmp.path();
        let dir = root.join("-e $(touch PWNED) `touch PWNED` \"q\" 's é;x&|* ~");
        std::fs::create_dir(&dir).unwrap();
        let real_dir = std::fs::canonicalize(&dir).unwrap();
        let bin = root.join("probe bin");
        std::fs::create_dir(&bin).unwrap();

        let mut host = Host::this();
        let found = installed(&host);
        let missing: Vec<&&str> = SETUP_INSTALLS
            .iter()
            .filter(|id| !found.iter().any(|t| t.id == **id))
            .collect();
        assert!(
            missing.is_empty(),
            "not installed: {missing:?}; scripts/setup.sh installs them"
        );

        let desktop = Desktop::start(root);
        // What the probe must see: its directory, then exactly the words.
        let mut expected = vec![real_dir.to_string_lossy().into_owned()];
        expected.extend(HOSTILE_ARGS.iter().map(|s| s.to_string()));
        let mut tried: Vec<(String, &Installed)> = SETUP_INSTALLS
            .iter()
            .chain(ALSO_TRIED)
            .filter_map(|id| found.iter().find(|t| t.id == *id))
            .map(|t| (t.id.to_owned(), t))
            .collect();
        if let Some(xte) = found.iter().find(|t| t.id == "x-terminal-emulator") {
            tried.push(("x-terminal-emulator".to_owned(), xte));
        }
        let mut failures = Vec::new();
        for (name, t) in &tried {
            let out = root.join(format!("out-{name}"));
            let probe = probe(&bin, &out);
            // As Resume in terminal runs it: under the script that keeps a failure on screen.
            let cmd = ResumeCommand::new(probe.to_str().unwrap(), HOSTILE_ARGS, None).unwrap();
            let cmd = held(cmd, &host).unwrap();
            let launch = plan(t, &found, &host, &dir, Some(&cmd)).unwrap();
            let bytes = match launched(&desktop, &launch, &out) {
                Ok(bytes) => bytes,
                Err(why) => {
                    failures.push(format!("{name}: {why}"));
                    continue;
                }
            };
            let got = nul_split(&bytes);
            if got != expected {
                failures.push(format!("{name}: got {got:?}\nexpected {expected:?}"));
            }
        }

        // x-terminal-emulator pointing to a wrapper script we do not know: used as itself.
        let uxterm = host.which("uxterm").expect("uxterm (package xterm)");
        let link_dir = root.join("xte");
        std::fs::create_dir(&link_dir).unwrap();
        std::os::unix::fs::symlink(&uxterm, link_dir.join("x-terminal-emulator")).unwrap();
        host.path.insert(0, link_dir);
        let with_link = installed(&host);
        let xte = with_link
            .iter()
            .find(|t| t.id == "x-terminal-emulator")
            .unwrap();
        assert_eq!(xte.target, None);
        let out = root.join("out-uxterm");
        let cmd =
            ResumeCommand::new(probe(&bin, &out).to_str().unwrap(), HOSTILE_ARGS, None).unwrap();
        let launch = plan(xte, &with_link, &host, &dir, Some(&cmd)).unwrap();
        assert_eq!(launch.terminal, "x-terminal-emulator");
        match launched(&desktop, &launch, &out) {
            Ok(bytes) if nul_split(&bytes) == expected => {}
            Ok(bytes) => failures.push(format!("uxterm: got {:?}", nul_split(&bytes))),
            Err(why) => failures.push(format!("x-terminal-emulator -> uxterm: {why}")),
        }

        // A plain shell in the directory.
        for id in SETUP_INSTALLS {
            let t = found.iter().find(|t| t.id == *id).unwrap();
            let out = root.join(format!("shell-{id}"));
            shell_rc(&desktop, &out);
            let launch = plan(t, &found, &host, &dir, None).unwrap();
            match launched(&desktop, &launch, &out) {
                Ok(bytes) if nul_split(&bytes) == [real_dir.to_string_lossy()] => {}
                Ok(bytes) => {
                    failures.push(format!("{id} (shell): started in {:?}", nul_split(&bytes)))
                }
                Err(why) => failures.push(format!("{id} (shell): {why}")),
            }
        }

        let pwned = pwned_files(root);
        drop(desktop);
        assert!(pwned.is_empty(), "a payload ran: {pwned:?}");
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        eprintln!(
            "launched for real: {}",
            tried
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}
