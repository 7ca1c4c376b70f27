//! `terminals` and `open`: fake terminals on PATH record the argv and directory they were started
//! with, so these tests see exactly what a real terminal would be given. (Real terminals are
//! launched by crates/core/tests/terminal.rs.) Linux: the other systems find terminals elsewhere.

#![cfg(target_os = "linux")]

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use agent_sessions_core::actions::terminal::HOLD;
use agent_sessions_test_support::probe::{executable, recorder, wait_for_record};
use serde_json::Value;

const ID: &str = "11111111-2222-4333-8444-555555555555";

/// A machine of its own: a Claude store with one session whose directory has a hostile name,
/// a PATH holding only fake terminals (and maybe a fake `claude`), a config file, a cache.
struct Machine {
    tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let tmp = tempfile::Builder::new()
            .prefix("agent-sessions-open-")
            .tempdir()
            .unwrap();
        let dir = tmp.path().join("-e $(touch PWNED) `id` it's \"q\" é;x");
        std::fs::create_dir(&dir).unwrap();
        let m = Machine { tmp, dir };
        std::fs::create_dir(m.bin()).unwrap();
        m.session(ID, m.dir.to_str().unwrap());
        m
    }

    fn bin(&self) -> PathBuf {
        self.tmp.path().join("bin")
    }

    fn session(&self, id: &str, cwd: &str) {
        let project = self.tmp.path().join("claude/projects/-x");
        std::fs::create_dir_all(&project).unwrap();
        let record = serde_json::json!({
            "type": "user", "uuid": "u1", "sessionId": id, "cwd": cwd,
            "timestamp": "2026-11-30T10:00:00Z",
            "message": {"role": "user", "content": "hello"}
        });
        std::fs::write(project.join(format!("{id}.jsonl")), format!("{record}\n")).unwrap();
    }

    /// A fake terminal `name` that writes its directory and argv, NUL-separated, to
    /// `record-<name>` (whole, by a rename) and exits.
    fn terminal(&self, name: &str) {
        recorder(&self.bin().join(name), &self.record(name));
    }

    fn executable(&self, name: &str, text: &str) -> PathBuf {
        executable(&self.bin().join(name), text)
    }

    fn record(&self, name: &str) -> PathBuf {
        self.tmp.path().join(format!("record-{name}"))
    }

    fn config(&self, text: &str) {
        std::fs::write(self.tmp.path().join("config.toml"), text).unwrap();
    }

    fn cli(&self, args: &[&str]) -> Command {
        common::machine_cli(self.tmp.path(), &self.bin(), args)
    }

    fn run(&self, args: &[&str]) -> (Output, Value) {
        let out = self.cli(args).output().unwrap();
        let v = common::json_of(&out);
        (out, v)
    }

    fn real_dir(&self) -> String {
        std::fs::canonicalize(&self.dir)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }
}

/// How long a fake terminal may take to start.
const STARTED_WITHIN: Duration = Duration::from_secs(60);

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn terminals_lists_what_is_installed_and_what_open_uses() {
    let m = Machine::new();
    m.terminal("xterm");
    m.terminal("kitty");
    let (out, v) = m.run(&["terminals", "--json"]);
    assert!(out.status.success());
    let d = &v["data"];
    let ids: Vec<&str> = d["installed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["kitty", "xterm"]);
    assert_eq!(
        d["installed"][0]["program"],
        m.bin().join("kitty").to_str().unwrap()
    );
    assert_eq!(d["installed"][0]["name"], "kitty");
    assert_eq!(d["automatic"], "kitty");
    assert_eq!(d["configured"], Value::Null);
    assert_eq!(d["chosen"], "kitty");

    // $TERMINAL names the user's terminal.
    let out = m
        .cli(&["terminals", "--json"])
        .env("TERMINAL", "xterm")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["data"]["automatic"], "xterm");

    // The configured one is what open uses.
    m.config("[terminal]\napp = \"xterm\"\n");
    let (_, v) = m.run(&["terminals", "--json"]);
    assert_eq!(v["data"]["automatic"], "kitty");
    assert_eq!(v["data"]["configured"]["id"], "xterm");
    assert_eq!(v["data"]["configured"]["installed"], true);
    assert_eq!(
        v["data"]["configured"]["config"],
        m.tmp.path().join("config.toml").to_str().unwrap()
    );
    assert_eq!(v["data"]["chosen"], "xterm");
    let text = m.cli(&["terminals"]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("automatic: kitty\n"), "{text}");
    assert!(text.contains("configured: xterm (from "), "{text}");
    assert!(text.contains("open uses: xterm\n"), "{text}");

    // Configured but not installed: said, and open will not pick another.
    m.config("[terminal]\napp = \"konsole\"\n");
    let (out, v) = m.run(&["terminals", "--json"]);
    assert!(out.status.success());
    assert_eq!(v["data"]["configured"]["installed"], false);
    assert_eq!(v["data"]["chosen"], Value::Null);
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("Konsole (konsole) is not installed here"),
        "{warnings}"
    );

    // An id the config does not accept is the config's warning, and Automatic is used.
    m.config("[terminal]\napp = \"xterm -e sh\"\n");
    let (out, v) = m.run(&["terminals", "--json"]);
    assert!(out.status.success());
    assert_eq!(v["data"]["configured"], Value::Null);
    assert_eq!(v["data"]["chosen"], "kitty");
    assert!(v["warnings"].to_string().contains("terminal.app"), "{v}");
}

#[test]
fn open_dry_run_prints_the_argv_and_starts_nothing() {
    let m = Machine::new();
    m.terminal("kitty");
    let claude = m.executable("claude", "#!/bin/sh\n");
    let (out, v) = m.run(&["open", "1111", "--resume", "--dry-run", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d = &v["data"];
    assert_eq!(d["terminal"], "kitty");
    assert_eq!(d["cwd"], m.dir.to_str().unwrap());
    assert_eq!(d["launched"], false);
    assert_eq!(
        strings(&d["argv"]),
        [
            m.bin().join("kitty").to_str().unwrap(),
            "--directory",
            m.dir.to_str().unwrap(),
            "/bin/sh",
            "-c",
            HOLD,
            "agent-sessions",
            claude.to_str().unwrap(),
            "--resume",
            ID
        ]
    );
    // Without --resume: a shell there.
    let (_, v) = m.run(&["open", ID, "--dry-run", "--json", "--terminal", "kitty"]);
    assert_eq!(
        strings(&v["data"]["argv"]),
        [
            m.bin().join("kitty").to_str().unwrap(),
            "--directory",
            m.dir.to_str().unwrap()
        ]
    );
    // Text: one argv element per line.
    let out = m.cli(&["open", "1111", "--dry-run"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        format!(
            "terminal: kitty\ncwd: {0}\nargv:\n  {1}\n  --directory\n  {0}\n",
            m.dir.display(),
            m.bin().join("kitty").display()
        )
    );
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        !m.record("kitty").exists(),
        "a dry run started the terminal"
    );
}

/// The issue's end-to-end check, from the CLI: the terminal is started in the session's
/// directory with exactly the resume command's words, and returns at once.
#[test]
fn open_starts_the_terminal_in_the_session_directory() {
    let m = Machine::new();
    m.terminal("xterm");
    m.terminal("kitty");
    let claude = m.executable("claude", "#!/bin/sh\n");
    m.config("[terminal]\napp = \"xterm\"\n");
    let (out, v) = m.run(&["open", "11111111", "--resume", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(v["data"]["terminal"], "xterm");
    assert_eq!(v["data"]["launched"], true);
    assert_eq!(
        wait_for_record(&m.record("xterm"), STARTED_WITHIN),
        [
            &m.real_dir(),
            "-e",
            "/bin/sh",
            "-c",
            HOLD,
            "agent-sessions",
            claude.to_str().unwrap(),
            "--resume",
            ID
        ]
    );
    // --terminal beats the config; no --resume: a shell in the directory.
    let out = m
        .cli(&["open", ID, "--terminal", "kitty"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("opened kitty in {}\n", m.dir.display())
    );
    assert_eq!(
        wait_for_record(&m.record("kitty"), STARTED_WITHIN),
        [
            m.real_dir(),
            "--directory".into(),
            m.dir.to_string_lossy().into_owned()
        ]
    );
    assert!(!m.dir.join("PWNED").exists());
}

#[test]
fn bad_terminal_ids_exit_2_and_missing_ones_1() {
    let m = Machine::new();
    m.terminal("xterm");
    let (out, v) = m.run(&["open", ID, "--terminal", "nope", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], "unknown_terminal");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message
            .starts_with("\"nope\" is not a terminal this app knows; use one of gnome-terminal, "),
        "{message}"
    );

    let out = m
        .cli(&["open", ID, "--terminal", "iterm2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: iterm2 (iTerm2) is a terminal of macOS, not of Linux\n"
    );

    let (out, v) = m.run(&["open", ID, "--terminal", "konsole", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(v["error"]["code"], "terminal_not_installed");
    assert_eq!(
        v["error"]["message"],
        "Konsole (konsole) is not installed here; the installed terminals are: xterm"
    );
    // Nothing installed at all.
    std::fs::remove_file(m.bin().join("xterm")).unwrap();
    let (out, v) = m.run(&["open", ID, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(v["error"]["code"], "no_terminal");
}

#[test]
fn a_missing_directory_is_refused_and_nothing_starts() {
    let m = Machine::new();
    m.terminal("xterm");
    let gone = m.tmp.path().join("gone away");
    let id = "22222222-2222-4333-8444-555555555555";
    m.session(id, gone.to_str().unwrap());
    let (out, v) = m.run(&["open", id, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(v["error"]["code"], "directory_missing");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(gone.to_str().unwrap()) && message.contains("no longer exists"),
        "{message}"
    );
    // Not even a dry run pretends it would open.
    let (out, _) = m.run(&["open", id, "--dry-run", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    std::thread::sleep(Duration::from_millis(200));
    assert!(!m.record("xterm").exists());
}

/// What the terminal runs, run for real (the planned argv after the terminal's own words):
/// an agent that fails at once leaves its message on screen, then the exit status and a wait
/// for Enter (a terminal closes when its command ends, so it used to flash shut with no
/// reason); one that ends well closes at once. The session's hostile directory and id reach
/// the agent as words, never inside the script.
#[test]
fn an_agent_that_fails_at_once_leaves_its_reason_on_screen() {
    use std::io::Write;
    let m = Machine::new();
    m.terminal("kitty");
    let run = |agent: &str| {
        m.executable("claude", agent);
        let (out, v) = m.run(&["open", ID, "--resume", "--dry-run", "--json"]);
        assert!(out.status.success(), "{v}");
        let argv = strings(&v["data"]["argv"]);
        let (program, args) = argv[3..].split_first().unwrap();
        let mut child = Command::new(program)
            .args(args)
            .current_dir(&m.dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"\n").unwrap();
        child.wait_with_output().unwrap()
    };
    let failed = run("#!/bin/sh\necho \"No conversation found with session ID: $2\" >&2\nexit 3\n");
    assert_eq!(failed.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&failed.stderr),
        format!("No conversation found with session ID: {ID}\n")
    );
    assert_eq!(
        String::from_utf8_lossy(&failed.stdout),
        "\nagent-sessions: the agent ended with exit status 3 (the reason is above). Press Enter to close this window.\n"
    );
    let ended = run("#!/bin/sh\necho \"$1 $2 in $(pwd)\"\n");
    assert_eq!(ended.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&ended.stdout),
        format!("--resume {ID} in {}\n", m.real_dir())
    );
    assert!(!m.dir.join("PWNED").exists() && !m.tmp.path().join("PWNED").exists());
}

#[test]
fn an_agent_not_on_path_gets_the_command_to_copy() {
    let m = Machine::new();
    m.terminal("xterm");
    let (out, v) = m.run(&["open", ID, "--resume", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(v["error"]["code"], "agent_not_found");
    let message = v["error"]["message"].as_str().unwrap();
    let copy = format!(
        "cd -- '{}' && claude --resume {ID}",
        m.dir.to_str().unwrap().replace('\'', r"'\''")
    );
    assert_eq!(
        message,
        format!("claude was not found on PATH nor where its installers, desktop apps and editor extensions put it, so no terminal was opened; run the command yourself: {copy}")
    );
    // Without --resume the agent is not needed.
    let (out, _) = m.run(&["open", ID, "--json"]);
    assert!(out.status.success());
    assert_eq!(
        wait_for_record(&m.record("xterm"), STARTED_WITHIN),
        [m.real_dir()]
    );
}

/// An app started from a desktop launcher has a short PATH: the agent's own installer's place
/// (`~/.local/bin` for Claude Code) is looked at too, and the terminal runs it by that path.
#[test]
fn an_agent_off_path_is_found_where_its_installer_puts_it() {
    use std::os::unix::fs::PermissionsExt;
    let m = Machine::new();
    m.terminal("xterm");
    let home = m.tmp.path().join("home");
    let claude = home.join(".local/bin/claude");
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    std::fs::write(&claude, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = m
        .cli(&["open", ID, "--resume", "--dry-run", "--json"])
        .env("HOME", &home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let argv: Vec<&str> = v["data"]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(argv.contains(&claude.to_str().unwrap()), "{argv:?}");
    assert!(argv.ends_with(&["--resume", ID]), "{argv:?}");
}
