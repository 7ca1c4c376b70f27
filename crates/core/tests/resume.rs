//! Resume commands do exactly what they show: run in bash, dash, zsh and fish (each with `-c` and
//! as pasted into an interactive shell), a probe in place of the agent receives exactly the
//! intended argv in exactly the intended directory, and no payload in a hostile name runs.
//! PowerShell does not install from Debian's packages: its form is checked against a model of
//! its tokenizer. Ids and directory names that cannot be given to a shell safely are refused.

// POSIX only: the shells run here (scripts/test-windows.sh lists it).
#![cfg(unix)]

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agent_sessions_core::actions::resume::{ResumeCommand, ShellCommand};
use agent_sessions_core::{Error, ProviderKind, ScanProgress, SessionMeta};

/// Every payload creates a file named this, wherever the shell happens to be.
const MARKER: &str = "pwned";

/// Directory names a shell must take literally (none holds `/`, NUL or a control character).
const HOSTILE_NAMES: &[&str] = &[
    "plain",
    "with space",
    "  lead and trail  ",
    "it's",
    "it’s; touch pwned; ’x",
    "‘’‚‛“”„",
    "\"dq\"; touch pwned; \"",
    "'; touch pwned; '",
    "$(touch pwned)",
    "`touch pwned`",
    "(touch pwned)",
    "a;touch pwned",
    "a&&touch pwned",
    "a||touch pwned",
    "a|touch pwned",
    "a&touch pwned&",
    ">pwned",
    "<x",
    "*",
    "?",
    "[a]",
    "{a,b}",
    "-",
    "--",
    "-P",
    "+1",
    "~",
    "~root",
    "$HOME",
    "${HOME}",
    "%self",
    "=ls",
    "a=b",
    "!!",
    "!$",
    "#x",
    "x #y",
    "\\",
    "a\\",
    "\\'",
    "a\\'b; touch pwned; '",
    "'\\''",
    "\\\\",
    "\\$(touch pwned)",
    "$",
    "@(touch pwned)",
    "é ü 漢字 🚀",
    "\u{a0}nbsp\u{200b}zw",
];

/// Arguments a shell must pass through untouched (real ids are checked and plain; the quoting
/// must hold for anything).
const HOSTILE_ARGS: &[&str] = &[
    "--resume",
    "-x",
    "",
    "a b",
    "'",
    "\"",
    "’‘‚‛“”„",
    "$(touch pwned)",
    "`touch pwned`",
    ";touch pwned",
    "&&",
    "|",
    "*",
    "~",
    "{a,b}",
    "(touch pwned)",
    "\\",
    "\\'",
    "a\\\\b",
    "$HOME",
    "!!",
    "%self",
    "=ls",
    "--%",
    "é漢🚀",
];

/// Relative directories: none may become `cd -`, a stack entry, an option or a `CDPATH` hit.
const RELATIVE_NAMES: &[&str] = &["-", "--", "-P", "+1", "-1", "~", "sub dir", "plain"];

struct Shell {
    name: &'static str,
    /// Runs a command given as one argument.
    dash_c: &'static [&'static str],
    /// Reads commands from standard input as an interactive shell (the pasted case).
    interactive: &'static [&'static str],
}

const SHELLS: &[Shell] = &[
    Shell {
        name: "bash",
        dash_c: &["--norc", "--noprofile", "-c"],
        interactive: &["--norc", "--noprofile", "-i"],
    },
    Shell {
        name: "dash",
        dash_c: &["-c"],
        interactive: &["-i"],
    },
    Shell {
        name: "zsh",
        dash_c: &["-f", "-c"],
        interactive: &["-f", "-i"],
    },
    Shell {
        name: "fish",
        dash_c: &["--no-config", "-c"],
        interactive: &["--no-config", "-i"],
    },
];

/// A scratch world: a start directory, a previous directory, `CDPATH` decoys, a home, and a
/// probe standing in for the agent, itself at a hostile path.
struct World {
    _dir: tempfile::TempDir,
    base: PathBuf,
    start: PathBuf,
    probe: String,
    out: PathBuf,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let start = base.join("start");
        for d in ["start", "old", "decoys", "home", "targets"] {
            std::fs::create_dir(base.join(d)).unwrap();
        }
        for name in RELATIVE_NAMES {
            std::fs::create_dir(start.join(name)).unwrap();
            std::fs::create_dir(base.join("decoys").join(name)).unwrap();
        }
        let bin = base.join("bin 'q' \\ $(touch pwned) ’‘“");
        std::fs::create_dir(&bin).unwrap();
        let probe = bin.join("probe");
        std::fs::write(
            &probe,
            "#!/bin/sh\nprintf '%s\\0' \"$(pwd -P)\" \"$@\" > \"$PROBE_OUT\"\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let out = base.join("probe.out");
        World {
            _dir: dir,
            probe: probe.to_str().unwrap().to_owned(),
            base,
            start,
            out,
        }
    }

    /// Runs `line` in `shell` started in the start directory; returns what the probe saw: its
    /// directory and its arguments.
    fn run(&self, shell: &Shell, interactive: bool, line: &str) -> (String, Vec<String>) {
        let _ = std::fs::remove_file(&self.out);
        let mut cmd = Command::new(shell.name);
        if interactive {
            cmd.args(shell.interactive).stdin(Stdio::piped());
        } else {
            cmd.args(shell.dash_c).arg(line).stdin(Stdio::null());
        }
        cmd.current_dir(&self.start)
            .env("HOME", self.base.join("home"))
            .env("PWD", &self.start)
            .env("OLDPWD", self.base.join("old"))
            .env("CDPATH", self.base.join("decoys"))
            .env("PROBE_OUT", &self.out)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap_or_else(|e| {
            panic!(
                "{} does not run ({e}); scripts/setup.sh installs it",
                shell.name
            )
        });
        if interactive {
            let mut stdin = child.stdin.take().unwrap();
            stdin
                .write_all(format!("{line}\nexit\n").as_bytes())
                .unwrap();
        }
        let output = child.wait_with_output().unwrap();
        let seen = std::fs::read(&self.out).unwrap_or_else(|_| {
            panic!(
                "{} (interactive: {interactive}) did not run the probe for\n{line}\nstderr: {}",
                shell.name,
                String::from_utf8_lossy(&output.stderr)
            )
        });
        let mut fields: Vec<String> = seen
            .split(|b| *b == 0)
            .map(|f| String::from_utf8(f.to_vec()).unwrap())
            .collect();
        assert_eq!(fields.pop().as_deref(), Some(""), "NUL-terminated");
        let cwd = fields.remove(0);
        (cwd, fields)
    }

    /// Fails if any payload ran: a file named [`MARKER`] anywhere in the world.
    fn assert_no_marker(&self, context: &str) {
        fn walk(dir: &Path, context: &str) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                assert_ne!(e.file_name(), MARKER, "a payload ran: {context}");
                if e.file_type().unwrap().is_dir() {
                    walk(&e.path(), context);
                }
            }
        }
        walk(&self.base, context);
    }
}

/// Runs `command` in every shell, both ways, and checks what the probe saw.
fn check_everywhere(world: &World, command: &ResumeCommand, want_cwd: &Path, want_args: &[&str]) {
    let line = command.posix();
    for shell in SHELLS {
        for interactive in [false, true] {
            let (cwd, args) = world.run(shell, interactive, &line);
            let context = format!("{} (interactive: {interactive}): {line}", shell.name);
            assert_eq!(Path::new(&cwd), want_cwd, "{context}");
            assert_eq!(args, want_args, "{context}");
            world.assert_no_marker(&context);
        }
    }
}

#[test]
fn every_required_shell_is_installed() {
    for shell in SHELLS {
        let status = Command::new(shell.name)
            .args(shell.dash_c)
            .arg("exit 0")
            .status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "{} is missing: scripts/setup.sh installs it",
            shell.name
        );
    }
}

#[test]
fn hostile_directory_names_reach_the_agent_literally_in_every_shell() {
    let world = World::new();
    for name in HOSTILE_NAMES {
        let dir = world.base.join("targets").join(name);
        std::fs::create_dir(&dir).unwrap_or_else(|e| panic!("{name:?}: {e}"));
        let command =
            ResumeCommand::new(&world.probe, HOSTILE_ARGS, Some(dir.to_str().unwrap())).unwrap();
        check_everywhere(&world, &command, &dir, HOSTILE_ARGS);
    }
}

#[test]
fn relative_directories_are_entered_as_written_never_as_options_or_history() {
    let world = World::new();
    for name in RELATIVE_NAMES {
        let command = ResumeCommand::new(&world.probe, &["--resume", "x"], Some(name)).unwrap();
        check_everywhere(
            &world,
            &command,
            &world.start.join(name),
            &["--resume", "x"],
        );
    }
}

#[test]
fn a_missing_directory_runs_nothing() {
    let world = World::new();
    let gone = world.base.join("gone");
    let command = ResumeCommand::new(&world.probe, &[], Some(gone.to_str().unwrap())).unwrap();
    for shell in SHELLS {
        let _ = std::fs::remove_file(&world.out);
        let status = Command::new(shell.name)
            .args(shell.dash_c)
            .arg(command.posix())
            .current_dir(&world.start)
            .env("PROBE_OUT", &world.out)
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(!status.success(), "{}", shell.name);
        assert!(
            !world.out.exists(),
            "{} ran the agent elsewhere",
            shell.name
        );
    }
}

/// C0 and C1 controls, DEL, line/paragraph separators and the bidi controls.
const CONTROLS: &[char] = &[
    '\n', '\r', '\t', '\u{0}', '\u{7}', '\u{1b}', '\u{7f}', '\u{85}', '\u{9b}', '\u{2028}',
    '\u{2029}', '\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
    '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
];

#[test]
fn control_and_bidi_characters_are_refused_with_a_clear_message() {
    for &c in CONTROLS {
        let dir = format!("/home/me/evil{c}; touch pwned{c}x");
        let err =
            Error::from(ResumeCommand::new("claude", &["--resume", "x"], Some(&dir)).unwrap_err());
        let message = err.to_string();
        assert_eq!(err.code(), "resume_unavailable", "{c:?}");
        assert_eq!(err.code(), "resume_unavailable");
        assert!(
            message.starts_with("resume command unavailable: the directory name")
                && message.ends_with("contains control characters; resume it manually"),
            "{message}"
        );
        // The message shows the character escaped, never raw.
        assert!(!message.contains(c), "{c:?} in {message:?}");
        assert!(
            message.contains(&c.escape_unicode().to_string()),
            "{message}"
        );

        for args in [["--resume", &format!("x{c}")], [&format!("{c}--x"), "y"]] {
            let err = ResumeCommand::new("claude", &args, None).unwrap_err();
            assert!(!err.to_string().contains(c), "{c:?}");
        }
        assert!(ResumeCommand::new(&format!("claude{c}"), &[], None).is_err());
    }
    // Printable neighbours are not refused: only what a terminal or the bidi algorithm acts on.
    for dir in ["/a\u{a0}b", "/a\u{200b}b", "/a\u{2030}b", "/漢字"] {
        assert!(
            ResumeCommand::new("claude", &[], Some(dir)).is_ok(),
            "{dir:?}"
        );
    }
}

#[test]
fn an_empty_directory_is_no_directory() {
    let c = ResumeCommand::new("codex", &["resume", "x"], Some("")).unwrap();
    assert_eq!(c.cwd(), None);
    assert_eq!(c.posix(), "codex resume x");
}

// ---- PowerShell, against a model of its tokenizer -------------------------------------------

const PS_SINGLE: &[char] = &['\'', '\u{2018}', '\u{2019}', '\u{201A}', '\u{201B}'];

/// A word of a PowerShell command in argument mode, as its tokenizer reads it: a single-quoted
/// string opens and closes on any of [`PS_SINGLE`], two of them in a row stand for the second;
/// anything else up to a space is a bare word. Returns the word and the rest of the line.
fn ps_word(line: &str) -> (String, &str) {
    let mut chars = line.char_indices().peekable();
    let mut word = String::new();
    match chars.next() {
        Some((_, q)) if PS_SINGLE.contains(&q) => {
            while let Some((i, c)) = chars.next() {
                if PS_SINGLE.contains(&c) {
                    match chars.peek() {
                        Some(&(_, d)) if PS_SINGLE.contains(&d) => {
                            word.push(d);
                            chars.next();
                        }
                        _ => return (word, &line[i + c.len_utf8()..]),
                    }
                } else {
                    word.push(c);
                }
            }
            panic!("unterminated string in {line:?}");
        }
        // A bare word: only characters PowerShell gives no meaning to; the caller checks what
        // follows is a separator of the expected shape.
        _ => {
            let end = line
                .find(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c)))
                .unwrap_or(line.len());
            assert!(end > 0, "not a word PowerShell reads literally: {line:?}");
            (line[..end].to_owned(), &line[end..])
        }
    }
}

/// Splits `Set-Location -LiteralPath <dir>; if ($?) { & <program> <args…> }` into its words,
/// failing if the line has any other shape (an injected statement).
fn ps_parse(line: &str) -> (String, Vec<String>) {
    let rest = line
        .strip_prefix("Set-Location -LiteralPath ")
        .unwrap_or_else(|| panic!("{line}"));
    let (dir, rest) = ps_word(rest);
    let mut rest = rest
        .strip_prefix("; if ($?) { & ")
        .unwrap_or_else(|| panic!("after the directory: {rest:?}"));
    let mut argv = Vec::new();
    loop {
        let (word, after) = ps_word(rest);
        argv.push(word);
        match after.strip_prefix(' ') {
            Some("}") => return (dir, argv),
            Some(more) => rest = more,
            None => panic!("after {:?}: {after:?}", argv.last()),
        }
    }
}

#[test]
fn powershell_reads_back_exactly_the_intended_words() {
    for name in HOSTILE_NAMES {
        for dir in [format!("C:\\Users\\me\\{name}"), name.to_string()] {
            let c = ResumeCommand::new("C:\\tools\\claude.exe", HOSTILE_ARGS, Some(&dir)).unwrap();
            let line = c.powershell();
            let (got_dir, argv) = ps_parse(&line);
            assert_eq!(got_dir, dir, "{line}");
            assert_eq!(argv[0], "C:\\tools\\claude.exe");
            assert_eq!(argv[1..], *HOSTILE_ARGS, "{line}");
        }
    }
}

#[test]
fn powershell_doubles_every_single_quote_and_only_those() {
    let c = ResumeCommand::new("claude", &[], Some("it’s; calc.exe; ’x")).unwrap();
    assert_eq!(
        c.powershell(),
        "Set-Location -LiteralPath 'it’’s; calc.exe; ’’x'; if ($?) { & claude }"
    );
    // `$`, the backtick and double quotes of every kind are plain text inside single quotes.
    let c = ResumeCommand::new("claude", &["$(calc) `n “x” „y\" ${env:PATH}"], None).unwrap();
    assert_eq!(c.powershell(), "& claude '$(calc) `n “x” „y\" ${env:PATH}'");
    let c = ResumeCommand::new("claude", &["‘’‚‛'"], None).unwrap();
    assert_eq!(c.powershell(), "& claude '‘‘’’‚‚‛‛'''");
}

// ---- Providers: only the agent's own id shapes ------------------------------------------------

fn fixture_sessions(
    kind: ProviderKind,
    version: &str,
) -> (agent_sessions_core::Catalog, Vec<SessionMeta>) {
    let root = common::fixture(kind, version);
    let catalog = common::catalog(kind, &root);
    let sessions = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    assert!(!sessions.is_empty(), "{kind:?} {version}");
    (catalog, sessions)
}

fn versions(kind: ProviderKind) -> Vec<String> {
    let dir = common::repo().join("testdata").join(kind.as_str());
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().join(common::store_dir(kind)).is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn every_real_session_gets_a_command_for_its_own_id() {
    for kind in [
        ProviderKind::Claude,
        ProviderKind::Codex,
        ProviderKind::Opencode,
    ] {
        for version in versions(kind) {
            let (catalog, sessions) = fixture_sessions(kind, &version);
            for s in &sessions {
                let c = catalog
                    .resume_command(s)
                    .unwrap_or_else(|e| panic!("{kind:?} {version} {}: {e}", s.id));
                let id = s
                    .parent_id
                    .as_deref()
                    .filter(|_| kind == ProviderKind::Claude);
                let id = id.unwrap_or(&s.id);
                assert_eq!(c.args().last().map(String::as_str), Some(id));
                assert_eq!(c.cwd(), s.cwd.as_deref().filter(|d| !d.is_empty()));
            }
        }
    }
}

#[test]
fn ids_not_of_the_agents_shape_are_refused_never_quoted() {
    let hostile = [
        "-rf",
        "--help",
        "--resume=x",
        "-",
        "",
        "x; touch pwned",
        "0c6a524c-d98f-459f-ab17-05cfea6d7f09; touch pwned",
        "0c6a524c-d98f-459f-ab17-05cfea6d7f09\n",
        "../0c6a524c-d98f-459f-ab17-05cfea6d7f09",
        "ses_dd4233f85ffe\u{202e}x",
        "ses_a b",
    ];
    for (kind, version) in [
        (ProviderKind::Claude, "2.1.9"),
        (ProviderKind::Codex, "0.171.0"),
        (ProviderKind::Opencode, "1.2.27"),
    ] {
        // The agent is named by its registry label ("Claude Code").
        let agent = agent_sessions_core::provider::registry::agent(kind).label;
        let (catalog, sessions) = fixture_sessions(kind, version);
        let real = sessions.iter().find(|s| s.parent_id.is_none()).unwrap();
        for id in hostile {
            let mut s = real.clone();
            s.id = id.to_owned();
            let err = catalog.resume_command(&s).unwrap_err();
            let message = err.to_string();
            assert!(
                message.starts_with("resume command unavailable: \"")
                    && message.ends_with(&format!("\" is not a valid {agent} session id")),
                "{message}"
            );
            assert!(!message.contains(['\n', '\u{202e}']), "{message:?}");
        }
    }
}

#[test]
fn a_claude_subagent_resumes_its_parent_or_nothing() {
    let (catalog, sessions) = fixture_sessions(ProviderKind::Claude, "2.1.9");
    let sub = sessions
        .iter()
        .find(|s| s.id.starts_with("agent-"))
        .unwrap();
    let parent = sub.parent_id.clone().unwrap();
    let c = catalog.resume_command(sub).unwrap();
    assert_eq!(c.args(), ["--resume".to_owned(), parent]);

    let mut orphan = sub.clone();
    orphan.parent_id = None;
    let err = catalog.resume_command(&orphan).unwrap_err().to_string();
    assert!(
        err.contains("a Claude Code subagent resumes through its parent session"),
        "{err}"
    );

    let mut forged = sub.clone();
    forged.parent_id = Some("--dangerously-skip-permissions".into());
    let err = catalog.resume_command(&forged).unwrap_err().to_string();
    assert!(
        err.contains("is not a valid Claude Code session id"),
        "{err}"
    );
}

#[test]
fn a_real_session_in_a_hostile_directory_resumes_there_in_every_shell() {
    let world = World::new();
    let (catalog, sessions) = fixture_sessions(ProviderKind::Codex, "0.171.0");
    let mut s = sessions[0].clone();
    let dir = world
        .base
        .join("targets")
        .join("it’s; touch pwned; ’x $(touch pwned)");
    std::fs::create_dir(&dir).unwrap();
    s.cwd = Some(dir.to_str().unwrap().to_owned());
    let c = catalog.resume_command(&s).unwrap();
    assert_eq!(c.program(), "codex");
    // The agent's argv, with the probe standing in for the agent.
    let args: Vec<&str> = c.args().iter().map(String::as_str).collect();
    let probe = ResumeCommand::new(&world.probe, &args, c.cwd()).unwrap();
    assert_eq!(
        probe.posix().replace(&*posix_word(&world.probe), "codex"),
        c.posix()
    );
    check_everywhere(&world, &probe, &dir, &args);
}

/// How [`ResumeCommand::posix`] writes one word, read off a command of that word alone.
fn posix_word(word: &str) -> String {
    ResumeCommand::new(word, &[], None).unwrap().posix()
}
