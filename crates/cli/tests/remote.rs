//! `--host` against a REAL OpenSSH server on 127.0.0.1: each test starts `sshd` on a free
//! port with a throwaway host key, an authorized client key and a temporary ssh config naming
//! it `testbox` (passed to the CLI as AGENT_SESSIONS_SSH_CONFIG, i.e. `ssh -F`). The remote
//! user's home is a temporary folder holding copies of the fixture stores (sshd's `SetEnv`
//! points HOME and XDG_CACHE_HOME at it). sshd must be installed: scripts/setup.sh installs
//! Debian's openssh-server.

// POSIX only: a real sshd (scripts/test-windows.sh lists it).
#![cfg(unix)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agent_sessions_core::actions::resume::ShellCommand;
use agent_sessions_remote::loopback::Sshd as Loopback;
use agent_sessions_remote::protocol::{ListParams, SessionRef, ShowParams};
use agent_sessions_remote::ssh::Ssh;
use agent_sessions_remote::Client;
use agent_sessions_test_support::{probe, SameIdStore};
use common::{copy_dir, testdata};
use serde_json::Value;

mod common;

const LIVE: &str = "ceefe47d-84be-4483-8ce5-5f829cfd22c9";
const CLI: &str = env!("CARGO_BIN_EXE_agent-sessions-cli");

/// The remote: a home holding copies of the fixture stores, served by a throwaway sshd.
struct Sshd {
    dir: tempfile::TempDir,
    server: Loopback,
}

impl Sshd {
    fn start() -> Sshd {
        Self::start_with(false)
    }

    /// [`Sshd::start`]; `no_cache`: the remote's sessions get an `AGENT_SESSIONS_CACHE_DIR` no
    /// server can make (below a file), so its server lists without a cache.
    fn start_with(no_cache: bool) -> Sshd {
        let dir = tempfile::Builder::new()
            .prefix("agent-sessions-remote-")
            .tempdir()
            .unwrap();
        let file = dir.path().join("not-a-folder");
        std::fs::write(&file, "").unwrap();
        let nowhere = file.join("cache").display().to_string();
        let env: &[(&str, &str)] = if no_cache {
            &[("AGENT_SESSIONS_CACHE_DIR", &nowhere)]
        } else {
            &[]
        };
        Self::serve(dir, env)
    }

    /// The remote served from `dir` (its home in `home`), its sessions given `env`.
    fn serve(dir: tempfile::TempDir, env: &[(&str, &str)]) -> Sshd {
        let home = dir.path().join("home");
        copy_dir(
            &testdata("claude/2.1.332/dot-claude"),
            &home.join(".claude"),
        );
        copy_dir(&testdata("codex/0.140.0/dot-codex"), &home.join(".codex"));
        copy_dir(
            &testdata("opencode/1.18.33/local-share-opencode"),
            &home.join(".local/share/opencode"),
        );
        // Missing sshd fails the test with what to run (CI runs scripts/setup.sh).
        let server = Loopback::start_with(&home, env).unwrap_or_else(|e| panic!("{e}"));
        Sshd { dir, server }
    }

    /// One connection to the remote through the system ssh, as the app holds it.
    fn connect(&self) -> Client {
        let mut ssh = Ssh::new("testbox").unwrap();
        ssh.config = Some(self.server.config());
        ssh.server_binary = Some(PathBuf::from(CLI));
        Client::connect(Box::new(ssh)).unwrap()
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// Where the bootstrap installs this build's server in the remote home: the folder is
    /// named by the version and the binary's digest.
    fn installed(&self) -> PathBuf {
        let sum = agent_sessions_remote::command::digest(Path::new(CLI)).unwrap();
        self.home()
            .join(".cache/agent-sessions/server")
            .join(agent_sessions_remote::command::server_dir(&sum))
            .join("agent-sessions-cli")
    }

    /// Installs this build's CLI as the remote's server without an upload (most tests are
    /// about something else).
    fn preinstall(&self) {
        let target = self.installed();
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(CLI, target).unwrap();
    }

    /// The CLI, here, with nothing of the local user's: `--host testbox` reaches the sshd.
    fn cli(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agent-sessions-cli"));
        let empty = Path::new("/nonexistent/agent-sessions-remote-test");
        cmd.args(args)
            .env("AGENT_SESSIONS_SSH_CONFIG", self.server.config())
            .env(
                "AGENT_SESSIONS_CACHE_DIR",
                self.dir.path().join("local-cache"),
            )
            .env("HOME", empty)
            .env("CLAUDE_CONFIG_DIR", empty.join("claude"))
            .env("CODEX_HOME", empty.join("codex"))
            .env("XDG_DATA_HOME", empty.join("data"))
            .env("XDG_CONFIG_HOME", empty.join("config"))
            .env("AGENT_SESSIONS_NO_BACKGROUND_INDEX", "1")
            .env_remove("SSH_AUTH_SOCK");
        cmd
    }

    /// The CLI reading the remote home's stores directly, as a local user there would.
    fn local(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agent-sessions-cli"));
        cmd.args(args)
            .env("HOME", self.home())
            .env("XDG_CACHE_HOME", self.dir.path().join("other-cache"))
            .env_remove("AGENT_SESSIONS_CACHE_DIR")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env("AGENT_SESSIONS_NO_BACKGROUND_INDEX", "1");
        cmd
    }
}

fn output(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn scan_show_search_stats_through_host_equal_local_output() {
    let sshd = Sshd::start();
    sshd.preinstall();
    let scan = output(&mut sshd.local(&["scan", "--json"]));
    let sessions =
        serde_json::from_slice::<Value>(&scan.stdout).unwrap()["data"]["sessions"].clone();
    let ids: Vec<&str> = sessions
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    let providers: Vec<&str> = sessions
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["provider"].as_str().unwrap())
        .collect();
    for agent in ["claude", "codex", "opencode"] {
        assert!(
            providers.contains(&agent),
            "the remote home holds {agent} sessions: {providers:?}"
        );
    }
    let mut commands: Vec<Vec<&str>> = vec![
        vec!["scan", "--json"],
        vec!["scan"],
        vec!["scan", "--provider", "codex", "--sort", "messages"],
        vec!["search", "the", "--json"],
        vec!["search", "files", "--limit", "3"],
        vec!["stats", "--by", "agent", "--json"],
        vec!["stats"],
        vec!["diagnostics", "--json"],
        vec!["log", LIVE],
    ];
    for id in &ids {
        commands.push(vec!["show", id, "--json"]);
        commands.push(vec!["show", id]);
        commands.push(vec!["export", id, "--format", "md"]);
        commands.push(vec!["export", id, "--format", "html"]);
    }
    for args in commands {
        let local = output(&mut sshd.local(&args));
        let mut remote_args = vec!["--host", "testbox"];
        remote_args.extend(&args);
        let remote = output(&mut sshd.cli(&remote_args));
        assert_eq!(
            but_for_local_index(&but_for_export_time(&remote.stdout)),
            but_for_local_index(&but_for_export_time(&local.stdout)),
            "{args:?}"
        );
        assert!(!remote.stdout.is_empty(), "{args:?}");
    }
}

/// An export's text without its "Exported" line (the time it was written).
fn but_for_export_time(out: &[u8]) -> String {
    let text = String::from_utf8_lossy(out);
    text.lines()
        .filter(|l| {
            !l.contains("Exported:**")
                && !l.contains("<dt>Exported</dt>")
                && !l.starts_with("<footer>")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A local `search --json` says whether it started a background index of this machine's
/// sessions (`background_index`, off in the tests); a search through `--host` indexes nothing
/// here and says nothing of it. JSON is compared as values (both sides parsed the same way).
fn but_for_local_index(text: &str) -> String {
    let mut v: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(_) => return text.to_owned(),
    };
    if let Some(data) = v["data"].as_object_mut() {
        data.remove("background_index");
    }
    serde_json::to_string_pretty(&v).unwrap()
}

/// The JSON export differs only in its time stamp.
/// The title the remote's server lists for `id` on `client`'s connection.
fn listed_title(client: &mut Client, id: &str) -> Option<String> {
    let listed = client.list(&ListParams::default()).unwrap().sessions;
    listed.into_iter().find(|s| s.id == id).unwrap().title
}

/// One connection to a host without a usable cache: its `serve --stdio` process keeps what it
/// listed, so a second list, a show and a log refresh instead of scanning every store again. A
/// session file rewritten in place (same size, its mtime put back) keeps its listed title on
/// that connection, while a prompt appended to another session is seen; a new connection, whose
/// server scans, lists the new title.
#[test]
fn one_connection_refreshes_instead_of_scanning_again() {
    let sshd = Sshd::start_with(true);
    sshd.preinstall();
    let todo = "67e40764-2970-47cf-8c8e-1638ddecc58d";
    let mut client = sshd.connect();
    let first = client.list(&ListParams::default()).unwrap();
    assert!(
        first
            .warnings
            .iter()
            .any(|w| w.contains("without the cache")),
        "{:?}",
        first.warnings
    );
    let users = |sessions: &[agent_sessions_core::SessionMeta]| {
        sessions.iter().find(|s| s.id == LIVE).unwrap().counts.user
    };
    let live_users = users(&first.sessions);
    let path = &first
        .sessions
        .iter()
        .find(|s| s.id == todo)
        .unwrap()
        .source_path;
    assert_eq!(
        listed_title(&mut client, todo).as_deref(),
        Some("TODO plan the work")
    );

    let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, text.replace("TODO plan", "DONE plan")).unwrap();
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    append_prompt(&sshd.home().join(".claude"), "one more");

    let second = client.list(&ListParams::default()).unwrap().sessions;
    assert_eq!(users(&second), live_users + 1);
    let kept = Some("TODO plan the work".to_owned());
    assert_eq!(second.iter().find(|s| s.id == todo).unwrap().title, kept);
    let shown = client
        .show(&ShowParams {
            session: SessionRef::named(&todo[..8]),
            offset: 0,
            limit: 1,
        })
        .unwrap();
    assert_eq!(shown.session.title, kept);
    assert_eq!(
        client.log(&SessionRef::named(todo)).unwrap().session.title,
        kept
    );

    let mut fresh = sshd.connect();
    assert_eq!(
        listed_title(&mut fresh, todo).as_deref(),
        Some("DONE plan the work")
    );
}

#[test]
fn export_json_through_host_equals_local_but_for_the_time() {
    let sshd = Sshd::start();
    sshd.preinstall();
    let without_time = |out: Output| {
        let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["exported_at"].is_string());
        v["exported_at"] = Value::Null;
        v
    };
    let args = ["export", LIVE, "--format", "json"];
    let local = without_time(output(&mut sshd.local(&args)));
    let remote = without_time(output(
        &mut sshd.cli(&[&["--host", "testbox"][..], &args].concat()),
    ));
    assert_eq!(remote, local);
    assert!(!local["messages"].as_array().unwrap().is_empty());
}

#[test]
fn errors_of_the_remote_keep_their_codes() {
    let sshd = Sshd::start();
    sshd.preinstall();
    let out = sshd
        .cli(&["--host", "testbox", "show", "no-such-id", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "session_not_found");
    // `open` works through a host now (see `open_through_host_…`); `index` does not.
    let out = sshd
        .cli(&["--host", "testbox", "index", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "remote_unsupported");
    let said = v["error"]["message"].as_str().unwrap();
    assert!(said.contains("handoff --print and open;"), "{said}");
}

/// A host's coded refusal prints as the same command prints it there, code, message, output
/// and exit code alike: `show` of a Claude copy whose resume Claude Code would take to the
/// original gives the transcript with `resume_other_copy` (it was `resume_unavailable` over
/// `--host`, the host's code dropped), and `show` of the id both files hold is `ambiguous_id`.
#[test]
fn a_hosts_coded_errors_print_as_they_do_there() {
    let sshd = Sshd::start();
    sshd.preinstall();
    let store = SameIdStore::create();
    let root = store.root().display().to_string();
    let copy = store.copy.display().to_string();
    let commands: [&[&str]; 4] = [
        &["show", &copy, "--json"],
        &["show", &copy],
        &["show", store.id, "--json"],
        &["show", store.id],
    ];
    for args in commands {
        let args = [&["--claude-root", &root][..], args].concat();
        let local = sshd.local(&args).output().unwrap();
        let remote = sshd
            .cli(&[&["--host", "testbox"][..], &args].concat())
            .output()
            .unwrap();
        let said = |out: &Output| {
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            let errors: Vec<String> = stderr
                .lines()
                .filter(|l| l.starts_with("error:"))
                .map(str::to_owned)
                .collect();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                errors,
            )
        };
        assert_eq!(said(&remote), said(&local), "{args:?}");
    }

    let shown = |args: &[&str]| {
        let out = sshd
            .cli(&[&["--host", "testbox", "--claude-root", &root][..], args].concat())
            .output()
            .unwrap();
        (out.status.code(), json_out(&out))
    };
    let (status, copy_shown) = shown(&["show", &copy, "--json"]);
    assert_eq!(status, Some(0), "the copy is still shown: {copy_shown}");
    let refused = &copy_shown["data"]["resume_command"]["error"];
    assert_eq!(refused["code"], "resume_other_copy", "{copy_shown}");
    let message = refused["message"].as_str().unwrap();
    let original = store.original.display().to_string();
    assert!(
        message.contains(&format!("it would open {original}")),
        "{message}"
    );
    let (status, both) = shown(&["show", store.id, "--json"]);
    assert_eq!(status, Some(1), "{both}");
    assert_eq!(both["error"]["code"], "ambiguous_id", "{both}");
}

/// Claims the live session for this test process (the remote is this machine).
fn claim_live(claude: &Path) -> PathBuf {
    agent_sessions_remote::loopback::claim_live(claude, LIVE)
}

fn append_prompt(claude: &Path, text: &str) {
    let path = claude.join(format!("projects/-home-bob-projects-demo/{LIVE}.jsonl"));
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    let now = chrono::Utc::now().to_rfc3339();
    writeln!(
        f,
        r#"{{"type":"user","uuid":"{text}","sessionId":"{LIVE}","timestamp":"{now}","message":{{"role":"user","content":"{text}"}}}}"#
    )
    .unwrap();
}

/// The next printed event of type `kind` within a few seconds.
fn wait_for(lines: &mpsc::Receiver<Value>, kind: &str, seen: &mut Vec<Value>) -> Value {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let left = until.saturating_duration_since(Instant::now());
        let e = lines
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no {kind} event; saw {seen:?}"));
        seen.push(e.clone());
        if e["type"] == kind {
            return e;
        }
    }
}

#[test]
fn log_follow_over_ssh_sees_appends_and_resumes_after_a_killed_connection() {
    let sshd = Sshd::start();
    sshd.preinstall();
    let claude = sshd.home().join(".claude");
    let pid_file = claim_live(&claude);
    let mut child = sshd
        .cli(&["--host", "testbox", "log", LIVE, "--follow", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(serde_json::from_str::<Value>(&line).unwrap());
        }
    });
    let mut seen = Vec::new();
    // The history first (its last turn ended with a stop).
    wait_for(&rx, "stop", &mut seen);
    std::thread::sleep(Duration::from_millis(300));

    append_prompt(&claude, "first-append");
    let first = wait_for(&rx, "prompt", &mut seen);

    // Drop the connection on the remote side: sshd's session processes die.
    assert!(
        sshd.server.drop_connections() > 0,
        "one ssh connection is open"
    );
    std::thread::sleep(Duration::from_millis(300));
    append_prompt(&claude, "second-append");
    let second = wait_for(&rx, "prompt", &mut seen);
    assert!(second["seq"].as_u64() > first["seq"].as_u64());

    // The agent exits: the follow ends with session_end, and so does the command.
    std::fs::remove_file(pid_file).unwrap();
    wait_for(&rx, "session_end", &mut seen);
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "{stderr}");
    let prompts: Vec<&Value> = seen.iter().filter(|e| e["type"] == "prompt").collect();
    let seqs: Vec<u64> = seen.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(
        seqs.windows(2).all(|w| w[0] < w[1]),
        "each event once, in order: {seqs:?}"
    );
    assert!(prompts.len() >= 2);
    let log = sshd.server.log();
    let logins = log.matches("Accepted publickey").count();
    assert!(
        logins >= 2,
        "the client connected again after the kill: {log}"
    );
}

#[test]
fn bootstrap_uploads_the_server_once_then_reuses_it() {
    let sshd = Sshd::start();
    assert!(!sshd.installed().exists());
    let first = output(&mut sshd.cli(&["--host", "testbox", "scan", "--json"]));
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(
        said.contains("installed agent-sessions-cli 0.1.0 on testbox"),
        "{said}"
    );
    let ours = std::fs::read(env!("CARGO_BIN_EXE_agent-sessions-cli")).unwrap();
    assert_eq!(
        std::fs::read(sshd.installed()).unwrap(),
        ours,
        "the very binary, whole"
    );
    let dir = sshd.installed().parent().unwrap().to_path_buf();
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "no temporary file left"
    );
    let stamp = std::fs::metadata(sshd.installed())
        .unwrap()
        .modified()
        .unwrap();

    let second = output(&mut sshd.cli(&["--host", "testbox", "scan", "--json"]));
    assert!(!String::from_utf8_lossy(&second.stderr).contains("installed"));
    assert_eq!(
        std::fs::metadata(sshd.installed())
            .unwrap()
            .modified()
            .unwrap(),
        stamp
    );
    assert_eq!(first.stdout, second.stdout);
}

/// A server left by another build of the same version (a dev binary rebuilt, or a hand
/// install in the plain version folder) is not run: this build's own is uploaded beside it.
#[test]
fn another_build_of_the_same_version_is_not_reused() {
    let sshd = Sshd::start();
    let old = sshd
        .home()
        .join(".cache/agent-sessions/server/0.1.0/agent-sessions-cli");
    std::fs::create_dir_all(old.parent().unwrap()).unwrap();
    std::fs::write(&old, "#!/bin/sh\necho an older build\n").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o700)).unwrap();
    let out = output(&mut sshd.cli(&["--host", "testbox", "scan", "--json"]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("installed agent-sessions-cli"));
    assert_eq!(
        std::fs::read(sshd.installed()).unwrap(),
        std::fs::read(CLI).unwrap()
    );
    let local = output(&mut sshd.local(&["scan", "--json"]));
    assert_eq!(out.stdout, local.stdout);
}

/// The command transport without ssh: `wsl.exe`'s argv run by a stand-in that drops
/// `-d DISTRO --exec` and runs the rest (`sh -c SCRIPT`) in the remote home. The server is
/// missing, so it is uploaded through the child's stdin, then serves.
#[test]
fn the_wsl_transport_bootstraps_and_serves_through_a_stand_in_program() {
    use agent_sessions_remote::protocol::{method, ListParams, ListResult};
    let sshd = Sshd::start();
    let stand_in = sshd.dir.path().join("wsl-stand-in");
    std::fs::write(
        &stand_in,
        format!(
            "#!/bin/sh\n[ \"$1\" = -d ] && [ \"$2\" = Test ] && [ \"$3\" = --exec ] || exit 64\nshift 3\nHOME='{}' XDG_CACHE_HOME='{}/.cache' exec \"$@\"\n",
            sshd.home().display(),
            sshd.home().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o700)).unwrap();
    let mut wsl = agent_sessions_remote::wsl::Wsl::new("Test");
    wsl.program = stand_in;
    wsl.server_binary = Some(PathBuf::from(CLI));
    let notes = wsl.notes.clone();
    let mut client = agent_sessions_remote::Client::connect(Box::new(wsl)).unwrap();
    assert_eq!(client.host(), "wsl:Test");
    assert!(notes.lock().unwrap()[0].contains("installed agent-sessions-cli"));
    assert_eq!(
        std::fs::read(sshd.installed()).unwrap(),
        std::fs::read(CLI).unwrap()
    );
    let listed: ListResult = client.call(method::LIST, ListParams::default()).unwrap();
    let local = output(&mut sshd.local(&["scan", "--json"]));
    let local: Value = serde_json::from_slice(&local.stdout).unwrap();
    let ids: Vec<&str> = listed.sessions.iter().map(|s| s.id.as_str()).collect();
    let local_ids: Vec<&str> = local["data"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, local_ids);
    assert!(ids.len() > 3);
}

#[test]
fn a_key_the_remote_does_not_know_fails_at_once_with_what_to_set_up() {
    let sshd = Sshd::start();
    sshd.preinstall();
    let message = failed_with(
        sshd.cli(&["--host", "stranger", "scan", "--json"]),
        "ssh_auth",
    );
    assert!(
        message.contains("ssh-add") && message.contains("Host stranger"),
        "{message}"
    );
    // The config in use is `ssh -F FILE` (AGENT_SESSIONS_SSH_CONFIG): named, not ~/.ssh/config,
    // and the command to try is one that reads it.
    let config = sshd.server.config().display().to_string();
    assert!(
        message.contains(&format!("`Host stranger` in {config},"))
            && message.contains(&format!("`ssh -F {config} stranger true`")),
        "{message}"
    );
    assert!(!message.contains("~/.ssh/config"), "{message}");

    let out = sshd
        .cli(&["--host=-oProxyCommand=touch x", "scan"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("is not a host alias"), "{said}");
    assert!(
        said.contains(&format!("use a Host name from {config}")),
        "{said}"
    );

    // A host nothing answers for, in a config given with --ssh-config: that file is named.
    let other = sshd.dir.path().join("my configs/ssh config");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::write(
        &other,
        "Host downbox\n  HostName 127.0.0.1\n  Port 1\n  StrictHostKeyChecking no\n",
    )
    .unwrap();
    let flag = format!("--ssh-config={}", other.display());
    let message = failed_with(
        sshd.cli(&["--host", "downbox", &flag, "scan", "--json"]),
        "ssh_unreachable",
    );
    assert!(
        message.contains(&format!(
            "Check the Host entry for downbox in {} and",
            other.display()
        )),
        "{message}"
    );
}

/// The message of `cmd`'s JSON error, which must have `code` (and exit code 1).
fn failed_with(mut cmd: Command, code: &str) -> String {
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = json_out(&out);
    assert_eq!(v["error"]["code"], code, "{v}");
    v["error"]["message"].as_str().unwrap().to_owned()
}

/// Every file under `dir` with its bytes, to see that nothing changed.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
            } else {
                out.push((e.path(), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn json_out(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// The native records of a bundle's manifest: (path, sha256).
fn native_files(manifest: &Value) -> Vec<(String, String)> {
    manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "native")
        .map(|f| (f["path"].to_string(), f["sha256"].to_string()))
        .collect()
}

/// Imports `bundle` here into the Claude store `store` (to continue in `dir`); the sessions it
/// lists then.
fn import_here(sshd: &Sshd, store: &Path, bundle: &Path, dir: &Path) -> Value {
    let root = ["--claude-root", store.to_str().unwrap()];
    let (bundle, dir) = (bundle.to_str().unwrap(), dir.to_str().unwrap());
    let import = ["bundle", "import", bundle, "--dir", dir, "--yes", "--json"];
    output(&mut sshd.cli(&[&root[..], &import].concat()));
    let scan = output(&mut sshd.cli(&[&root[..], &["scan", "--json"]].concat()));
    json_out(&scan)["data"]["sessions"].clone()
}

/// A bundle goes from the host to here (export over ssh, import here into an empty store),
/// and back (exported here, restored on the host): as itself it is refused there (the host
/// has it) and the host is left as it was; as a copy it is restored, listed by `--host scan`,
/// shown, and has its resume command in the directory chosen on the host.
#[test]
fn bundles_go_from_the_host_to_here_and_back() {
    const S: &str = "9d22e384-6685-4b75-ac35-088162e4c4a9";
    let sshd = Sshd::start();
    sshd.preinstall();
    let here = sshd.dir.path().join("here");
    let (store, work) = (here.join("claude"), here.join("work"));
    let cwd = here.join("cwd");
    for d in [&store, &work, &cwd] {
        std::fs::create_dir_all(d).unwrap();
    }
    let host_work = sshd.home().join("work");
    std::fs::create_dir_all(&host_work).unwrap();

    // From the host: the same records the host's own export holds.
    let a = here.join("from-host.agent-session.zip");
    let a_arg = a.to_str().unwrap();
    let out = output(&mut sshd.cli(&[
        "--host", "testbox", "bundle", "export", S, "-o", a_arg, "--json",
    ]));
    let exported = json_out(&out);
    assert_eq!(exported["data"]["manifest"]["session"]["id"], S);
    assert_eq!(
        exported["data"]["bytes"],
        std::fs::metadata(&a).unwrap().len()
    );
    assert_eq!(
        std::fs::metadata(&a).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let theirs = here.join("theirs.zip");
    let local = json_out(&output(&mut sshd.local(&[
        "bundle",
        "export",
        S,
        "-o",
        theirs.to_str().unwrap(),
        "--json",
    ])));
    let native = native_files(&exported["data"]["manifest"]);
    assert!(!native.is_empty());
    assert_eq!(native, native_files(&local["data"]["manifest"]));
    // Without -o the file gets the host's name, in the current directory, and nothing else.
    let named = output(
        sshd.cli(&["--host", "testbox", "bundle", "export", S, "--json"])
            .current_dir(&cwd),
    );
    let path = PathBuf::from(json_out(&named)["data"]["path"].as_str().unwrap());
    assert!(path.to_str().unwrap().ends_with(".agent-session.zip"));
    assert_eq!(std::fs::read_dir(&cwd).unwrap().count(), 1);
    // Again without --force: refused, the file kept.
    let again = sshd
        .cli(&[
            "--host", "testbox", "bundle", "export", S, "-o", a_arg, "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(json_out(&again)["error"]["code"], "file_exists");

    // Here: restored into an empty store, listed.
    let store_arg = store.to_str().unwrap();
    assert_eq!(import_here(&sshd, &store, &a, &work)[0]["id"], S);

    // Back to the host: refused as itself, nothing changed there.
    let b = here.join("back.zip");
    let b_arg = b.to_str().unwrap();
    output(&mut sshd.cli(&[
        "--claude-root",
        store_arg,
        "bundle",
        "export",
        S,
        "-o",
        b_arg,
    ]));
    let before = tree(&sshd.home().join(".claude"));
    let host_dir = host_work.to_str().unwrap();
    let import = [
        "--host", "testbox", "bundle", "import", b_arg, "--dir", host_dir,
    ];
    let refused = sshd
        .cli(&[&import[..], &["--yes", "--json"]].concat())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(json_out(&refused)["error"]["code"], "session_exists");
    // As a copy without --yes: the host's preview, and nothing done.
    let asked = sshd
        .cli(&[&import[..], &["--as-copy", "--json"]].concat())
        .output()
        .unwrap();
    assert_eq!(asked.status.code(), Some(2));
    let asked = json_out(&asked);
    assert_eq!(asked["error"]["code"], "confirmation_needed");
    let new_id = asked["data"]["preview"]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(new_id, S);
    assert_eq!(tree(&sshd.home().join(".claude")), before);

    // As a copy with --yes: restored on the host, listed, shown, resumable there.
    let done = json_out(&output(
        &mut sshd.cli(&[&import[..], &["--as-copy", "--yes", "--json"]].concat()),
    ));
    let restored = done["data"]["restored"]["session_id"].as_str().unwrap();
    assert_ne!(restored, S);
    assert_eq!(done["data"]["resume_command"]["cwd"], host_dir);
    assert!(done["data"]["resume_command"]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == restored));
    let scan = json_out(&output(
        &mut sshd.cli(&["--host", "testbox", "scan", "--json"]),
    ));
    let host_ids: Vec<&str> = scan["data"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(host_ids.contains(&restored) && host_ids.contains(&S));
    let shown = json_out(&output(
        &mut sshd.cli(&["--host", "testbox", "show", restored, "--json"]),
    ));
    let original = json_out(&output(&mut sshd.local(&["show", S, "--json"])));
    assert_eq!(
        shown["data"]["messages"].as_array().unwrap().len(),
        original["data"]["messages"].as_array().unwrap().len()
    );

    // And the copy back here again, into another empty store: listed under its new id.
    let c = here.join("copy.agent-session.zip");
    let c_arg = c.to_str().unwrap();
    output(&mut sshd.cli(&[
        "--host", "testbox", "bundle", "export", restored, "-o", c_arg,
    ]));
    let store2 = here.join("claude2");
    std::fs::create_dir_all(&store2).unwrap();
    assert_eq!(import_here(&sshd, &store2, &c, &work)[0]["id"], restored);
}

/// `handoff --print` through the host prints the host's own document, byte for byte; starting
/// an agent there from here is refused with what to do instead.
#[test]
fn handoff_through_host_prints_the_hosts_document() {
    let sshd = Sshd::start();
    sshd.preinstall();
    for args in [
        vec!["handoff", LIVE, "--to", "codex", "--print"],
        vec![
            "handoff", LIVE, "--to", "opencode", "--print", "--budget", "6000", "--json",
        ],
    ] {
        let local = output(&mut sshd.local(&args));
        let remote = output(&mut sshd.cli(&[&["--host", "testbox"][..], &args].concat()));
        assert_eq!(
            String::from_utf8_lossy(&remote.stdout),
            String::from_utf8_lossy(&local.stdout),
            "{args:?}"
        );
    }
    let out = sshd
        .cli(&[
            "--host", "testbox", "handoff", LIVE, "--to", "codex", "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_out(&out)["error"]["code"], "remote_unsupported");
}

/// `trash --host`: the host's opt-in applies (off: `delete_disabled`, nothing moved); on, the
/// plan is the host's, shown here and not run without --yes; with --yes the host's files go to
/// the host's trash and `--host scan` no longer lists the session. A client holding the host's
/// list on a connection of its own (the app's, or its change watcher's) is told the session
/// was removed, though the trash and that scan ran in other server processes (before, that
/// scan's refresh took the removal from the host's cache and the client never heard of it).
#[test]
fn trash_through_host_uses_the_hosts_opt_in_and_trash() {
    const S: &str = "9d22e384-6685-4b75-ac35-088162e4c4a9";
    let sshd = Sshd::start();
    sshd.preinstall();
    let file = sshd.home().join(format!(
        ".claude/projects/-home-bob-projects-demo/{S}.jsonl"
    ));
    assert!(file.exists());
    // Written an hour ago, so not refused as recent.
    let touched = Command::new("touch")
        .args(["-d", "1 hour ago"])
        .arg(&file)
        .status()
        .unwrap();
    assert!(touched.success());
    let trash = ["--host", "testbox", "trash", S, "--json"];
    let off = sshd.cli(&trash).output().unwrap();
    assert_eq!(off.status.code(), Some(2));
    assert_eq!(json_out(&off)["error"]["code"], "delete_disabled");
    assert!(file.exists());

    let config = sshd.home().join(".config/agent-sessions/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[actions]\nallow_delete = true\n").unwrap();
    let asked = sshd.cli(&trash).output().unwrap();
    assert_eq!(asked.status.code(), Some(2));
    let asked = json_out(&asked);
    assert_eq!(asked["error"]["code"], "confirmation_needed", "{asked}");
    let items = asked["data"]["plan"]["steps"][0]["items"]
        .as_array()
        .unwrap();
    assert!(
        items.iter().any(|i| i["path"] == file.to_str().unwrap()),
        "{asked}"
    );
    assert!(file.exists());

    let mut client = sshd.connect();
    let seq = client.list(&ListParams::default()).unwrap().seq;
    let done = json_out(&output(&mut sshd.cli(&[&trash[..], &["--yes"]].concat())));
    assert_eq!(done["data"]["done"]["removed"][0]["id"], S);
    assert!(!file.exists());
    let trashed = sshd
        .home()
        .join(format!(".local/share/Trash/files/{S}.jsonl"));
    assert!(trashed.exists(), "in the host's own trash");
    let scan = json_out(&output(
        &mut sshd.cli(&["--host", "testbox", "scan", "--json"]),
    ));
    assert!(scan["data"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["id"] != S));
    let listed = client.list(&ListParams::default()).unwrap();
    assert!(listed.sessions.iter().all(|s| s.id != S));
    let told = client.changes(seq).unwrap();
    let removed: Vec<(&str, &Path)> = told
        .removed
        .iter()
        .map(|k| (k.id.as_str(), k.source_path.as_path()))
        .collect();
    assert_eq!(removed, [(S, file.as_path())], "{told:?}");
    assert!(told.changed.iter().all(|s| s.id != S), "{told:?}");
}

/// Claude's fixture session whose directory (`/home/bob/projects/demo`) is not on the host.
const GONE: &str = "9d22e384-6685-4b75-ac35-088162e4c4a9";
/// The fixture session moved into a directory that is there (a name full of shell syntax).
const THERE: &str = "7938f0db-aeb3-409b-ab80-42085a5431da";

/// A remote whose sessions' `PATH` starts with its `bin` folder (empty: no agent there), where
/// the [`THERE`] session was moved into a directory named with shell syntax (`work`).
fn session_there() -> (Sshd, PathBuf, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("agent-sessions-remote-")
        .tempdir()
        .unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let sshd = Sshd::serve(dir, &[("PATH", &path)]);
    sshd.preinstall();
    let work = sshd.dir.path().join("it's $(touch pwned) `x` -rf");
    std::fs::create_dir(&work).unwrap();
    let file = sshd.home().join(format!(
        ".claude/projects/-home-bob-projects-demo/{THERE}.jsonl"
    ));
    let text = std::fs::read_to_string(&file).unwrap();
    let cwd = serde_json::to_string(work.to_str().unwrap()).unwrap();
    let moved = text.replace(
        r#""cwd":"/home/bob/projects/demo""#,
        &format!(r#""cwd":{cwd}"#),
    );
    assert_ne!(moved, text);
    std::fs::write(&file, moved).unwrap();
    (sshd, bin, work)
}

/// Runs `ssh` (an ssh command into testbox, as a terminal here runs it, but with no terminal)
/// and sees the host's stand-in claude, recording to `record`, resume [`THERE`] in `work`.
fn resumes_there(ssh: &mut Command, record: &Path, work: &Path) {
    output(ssh.stdin(Stdio::null()));
    let recorded = probe::wait_for_record(record, Duration::from_secs(10));
    assert_eq!(recorded, [work.to_str().unwrap(), "--resume", THERE]);
    assert!(!work.join("pwned").exists());
}

/// Resume in terminal / Open terminal on a host are checked there before a terminal opens here,
/// as a local launch is: a session whose directory is gone there is `directory_missing`, an
/// agent not installed there `agent_not_found` (nothing ran); once the agent is on the host's
/// `PATH` the command is exactly the one Copy resume command gives (as before the check), and
/// run over ssh it runs the agent in that directory with the session's words as its arguments.
/// An agent found only where its installer puts it is named by that path. Before, the host was
/// not asked: the terminal ran `cd -- DIR && claude …` and only failed there.
#[test]
fn a_terminal_there_is_refused_when_its_directory_or_agent_is_missing() {
    let (sshd, bin, work) = session_there();
    let mut client = sshd.connect();
    let gone = SessionRef::named(GONE);
    let there = SessionRef::named(THERE);
    let refused = client.resume_in_terminal(&gone).unwrap_err();
    assert_eq!(refused.code(), "directory_missing", "{refused}");
    let refused = client.terminal_dir(&gone).unwrap_err();
    assert_eq!(refused.code(), "directory_missing");
    let said = refused.to_string();
    assert!(
        said.contains("/home/bob/projects/demo no longer exists"),
        "{said}"
    );
    // The directory is there: Open terminal may go; no claude on the host yet.
    assert_eq!(client.terminal_dir(&there).unwrap(), work.to_str().unwrap());
    let missing = client.resume_in_terminal(&there).unwrap_err();
    assert_eq!(missing.code(), "agent_not_found", "{missing}");
    assert!(
        missing.to_string().contains("claude was not found"),
        "{missing}"
    );

    // A stand-in claude on the host's PATH, recording where it ran and its arguments.
    let record = sshd.dir.path().join("record");
    let agent = probe::recorder(&bin.join("claude"), &record);
    let checked = client.resume_in_terminal(&there).unwrap();
    assert_eq!(checked, client.resume(&there).unwrap());
    assert_eq!(checked.program(), "claude");
    assert_eq!(checked.args(), ["--resume", THERE]);
    assert_eq!(checked.cwd(), work.to_str());
    // Run as the terminal's ssh runs it (the remote's login shell reads the POSIX form).
    resumes_there(
        Command::new("ssh")
            .arg("-F")
            .arg(sshd.server.config())
            .args(["-T", "--", "testbox", &checked.posix()]),
        &record,
        &work,
    );

    // Only where its installer puts it (~/.local/bin there): named by its path.
    let local_bin = sshd.home().join(".local/bin");
    std::fs::create_dir_all(&local_bin).unwrap();
    std::fs::rename(&agent, local_bin.join("claude")).unwrap();
    let checked = client.resume_in_terminal(&there).unwrap();
    assert_eq!(
        checked.program(),
        local_bin.join("claude").to_str().unwrap()
    );
    assert_eq!(checked.args(), ["--resume", THERE]);
}

/// `open --host`: the CLI does what the app's Resume in terminal does on a host. The host checks
/// the session first: one whose directory is gone there is refused (`directory_missing`, "On
/// testbox: …", exit 1) and no terminal starts here. A dry run plans the local terminal running
/// `ssh -F CONFIG -t -- testbox '<held command>'`, the remote command quoted as the app quotes it
/// (`agent_sessions_remote::terminal`, the code both call); that ssh part of the argv, run for
/// real, starts the host's stand-in claude in the session's hostile directory with `--resume
/// ID`. `--ssh-config FILE` (a path with a space) is the `-F` of the plan; without `--dry-run`
/// the terminal here is started with exactly the planned argv.
#[test]
fn open_through_host_checks_there_and_runs_the_agent_over_ssh() {
    use agent_sessions_remote::terminal::held;
    let (sshd, bin, work) = session_there();
    let record = sshd.dir.path().join("record");
    // A stand-in terminal here (it records what it was started with), first on this PATH.
    let here = sshd.dir.path().join("here-bin");
    let opened = sshd.dir.path().join("opened");
    probe::recorder(&here.join("xterm"), &opened);
    let path = format!(
        "{}:{}",
        here.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let open = |args: &[&str]| -> Command {
        let mut all = vec!["--host", "testbox", "open", "--terminal", "xterm"];
        all.extend(args);
        let mut cmd = sshd.cli(&all);
        cmd.env("PATH", &path);
        cmd
    };

    for args in [
        vec!["--resume", GONE, "--json"],
        vec![GONE, "--json"],
        vec!["--resume", GONE, "--dry-run", "--json"],
    ] {
        let out = open(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let v = json_out(&out);
        assert_eq!(v["error"]["code"], "directory_missing", "{v}");
        let said = v["error"]["message"].as_str().unwrap();
        assert!(
            said.starts_with("On testbox: ") && said.contains("/home/bob/projects/demo"),
            "{said}"
        );
    }
    // No claude on the host yet: refused too, with the ssh command that resumes it by hand.
    let out = open(&["--resume", THERE, "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = json_out(&out);
    assert_eq!(v["error"]["code"], "agent_not_found", "{v}");
    let said = v["error"]["message"].as_str().unwrap();
    let by_hand = format!(
        " -t -- testbox 'cd -- '\\''{}",
        &work.to_str().unwrap()[..4]
    );
    assert!(
        said.starts_with("On testbox: ") && said.contains("claude was not found"),
        "{said}"
    );
    assert!(
        said.contains("ssh -F ") && said.contains(&by_hand),
        "{said}"
    );
    assert!(!opened.exists(), "a refused open started a terminal");
    probe::recorder(&bin.join("claude"), &record);

    // The plan: the stand-in terminal running the system ssh with the app's remote command.
    let out = output(&mut open(&["--resume", THERE, "--dry-run", "--json"]));
    let data = json_out(&out)["data"].clone();
    assert_eq!(data["launched"], false);
    assert_eq!(data["terminal"], "xterm");
    assert_eq!(data["host"], "testbox");
    assert_eq!(data["host_cwd"], work.to_str().unwrap());
    let argv: Vec<String> = serde_json::from_value(data["argv"].clone()).unwrap();
    let checked = sshd
        .connect()
        .resume_in_terminal(&SessionRef::named(THERE))
        .unwrap();
    let remote = held(&checked, "testbox").unwrap().posix();
    let config = sshd.server.config();
    assert_eq!(argv[..2], [here.join("xterm").to_str().unwrap(), "-e"]);
    assert!(
        Path::new(&argv[2]).is_absolute() && argv[2].ends_with("/ssh"),
        "{argv:?}"
    );
    assert_eq!(
        argv[3..],
        [
            "-F",
            config.to_str().unwrap(),
            "-t",
            "--",
            "testbox",
            &remote
        ]
    );
    assert_eq!(data["ssh"][0], "ssh");
    assert_eq!(data["ssh"].as_array().unwrap()[1..], argv[3..]);
    assert!(
        remote.starts_with("sh -c 'cd -- ") && remote.ends_with("' agent-sessions testbox"),
        "{remote}"
    );
    assert!(!opened.exists(), "a dry run started a terminal");

    // The ssh part of the plan, run for real (no terminal: ssh's stdin is not one).
    resumes_there(Command::new(&argv[2]).args(&argv[3..]), &record, &work);

    // --ssh-config FILE is the plan's -F (the variable unset); the text lists the argv.
    let spaced = sshd.dir.path().join("my ssh config");
    std::fs::copy(&config, &spaced).unwrap();
    let spaced_config = spaced.to_str().unwrap();
    let mut with_config = sshd.cli(&[
        "--host",
        "testbox",
        "--ssh-config",
        spaced_config,
        "open",
        "--terminal",
        "xterm",
        THERE,
        "--dry-run",
    ]);
    with_config
        .env_remove("AGENT_SESSIONS_SSH_CONFIG")
        .env("PATH", &path);
    let out = output(&mut with_config);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let ssh_at = lines.iter().position(|l| l.ends_with("/ssh")).unwrap();
    assert_eq!(
        lines[ssh_at + 1..ssh_at + 6],
        [
            "  -F",
            &format!("  {}", spaced.display()),
            "  -t",
            "  --",
            "  testbox"
        ],
        "{text}"
    );
    assert!(lines[ssh_at + 6].starts_with("  sh -c 'cd -- "), "{text}");
    assert!(text.contains("exec \"${SHELL:-/bin/sh}\" -l"), "{text}");

    // Launched: the terminal here gets exactly the planned argv, in the local home (none
    // here: the temporary folder).
    let out = output(&mut open(&["--resume", THERE, "--json"]));
    let data = json_out(&out)["data"].clone();
    assert_eq!(data["launched"], true);
    let started = probe::wait_for_record(&opened, Duration::from_secs(10));
    assert_eq!(started[1..], argv[1..]);
}
