//! `trash` and `delete --permanent` on copies of the fixture stores: where the files go (the
//! freedesktop trash under a throwaway `$XDG_DATA_HOME`), what the real Codex and OpenCode
//! command lines (installed from npm, pinned, run offline with throwaway homes) do and see
//! afterwards, that every other session is untouched byte for byte, and every refusal.

#![cfg(target_os = "linux")]

mod agents;
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

use serde_json::Value;

use agent_sessions_test_support::age;
use common::copy_dir;

fn testdata(kind: &str, version: &str, store: &str) -> PathBuf {
    common::testdata(kind).join(version).join(store)
}

/// A machine of its own: a copy of one fixture store, a home, a trash, a cache, a config file
/// and a PATH.
struct Machine {
    tmp: tempfile::TempDir,
    /// `--claude-root`, `--codex-root` or `--opencode-root`.
    flag: &'static str,
    /// The store's folder (OpenCode's is `opencode` in a data folder, where OpenCode finds it).
    store: PathBuf,
    path: Option<PathBuf>,
}

impl Machine {
    fn new(kind: &str, version: &str) -> Machine {
        let tmp = tempfile::Builder::new()
            .prefix("agent-sessions-trash-")
            .tempdir()
            .unwrap();
        let (folder, flag) = match kind {
            "claude" => ("dot-claude", "--claude-root"),
            "codex" => ("dot-codex", "--codex-root"),
            "cline" => ("dot-cline", "--cline-root"),
            _ => ("local-share-opencode", "--opencode-root"),
        };
        let store = match kind {
            "opencode" => tmp.path().join("oc-data/opencode"),
            _ => tmp.path().join("store"),
        };
        let m = Machine {
            tmp,
            flag,
            store,
            path: None,
        };
        copy_dir(&testdata(kind, version, folder), &m.store());
        std::fs::create_dir_all(m.home()).unwrap();
        age(&m.store());
        m
    }

    fn store(&self) -> PathBuf {
        self.store.clone()
    }

    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    fn trash(&self) -> PathBuf {
        self.tmp.path().join("data/Trash")
    }

    fn allow(&self, delete: bool, permanent: bool) {
        std::fs::write(
            self.tmp.path().join("config.toml"),
            format!("[actions]\nallow_delete = {delete}\nallow_permanent_delete = {permanent}\n"),
        )
        .unwrap();
    }

    /// Agents the CLI finds on PATH (none by default).
    fn with_path(mut self, tools: &[(&str, &Path)]) -> Self {
        self.path = Some(agents::bin_dir(self.tmp.path(), tools));
        self
    }

    fn cli(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agent-sessions-cli"));
        let nowhere = self.tmp.path().join("nowhere");
        cmd.args(args)
            .arg(self.flag)
            .arg(self.store())
            .env_clear()
            .env("PATH", self.path.clone().unwrap_or_else(|| nowhere.clone()))
            .env("HOME", self.home())
            .env("XDG_DATA_HOME", self.tmp.path().join("data"))
            .env("XDG_CONFIG_HOME", self.home().join(".config"))
            .env("CLAUDE_CONFIG_DIR", nowhere.join("claude"))
            .env("CODEX_HOME", nowhere.join("codex"))
            .env("AGENT_SESSIONS_CACHE_DIR", self.tmp.path().join("cache"))
            .env("AGENT_SESSIONS_CONFIG", self.tmp.path().join("config.toml"))
            .env("HTTPS_PROXY", "http://127.0.0.1:9")
            .env("HTTP_PROXY", "http://127.0.0.1:9")
            .env("AGENT_SESSIONS_NO_BACKGROUND_INDEX", "1");
        cmd
    }

    fn run(&self, args: &[&str]) -> (Output, Value) {
        let out = self.cli(args).output().unwrap();
        let v = common::json_of(&out);
        (out, v)
    }

    /// The ids `scan` lists, with their archived flag.
    fn listed(&self) -> BTreeMap<String, bool> {
        let (out, v) = self.run(&["scan", "--json"]);
        assert!(out.status.success(), "{v}");
        v["data"]["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["id"].as_str().unwrap().to_owned(),
                    s["archived"].as_bool().unwrap(),
                )
            })
            .collect()
    }

    /// Every file under the store: relative path → bytes.
    fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        files(&self.store(), &self.store(), &mut out);
        out
    }

    /// What the trash holds: `files/` entries and each `.trashinfo`'s original path.
    fn trashed(&self) -> BTreeMap<String, PathBuf> {
        let mut out = BTreeMap::new();
        for e in std::fs::read_dir(self.trash().join("info"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = e.file_name().to_string_lossy().into_owned();
            let name = name.strip_suffix(".trashinfo").unwrap().to_owned();
            let info = std::fs::read_to_string(e.path()).unwrap();
            let path = info
                .lines()
                .find_map(|l| l.strip_prefix("Path="))
                .expect("a Path= line");
            assert!(
                self.trash().join("files").join(&name).exists(),
                "{name} has a .trashinfo but is not in files/"
            );
            out.insert(name, PathBuf::from(path));
        }
        out
    }
}

fn files(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            files(root, &e.path(), out);
        } else {
            let rel = e.path().strip_prefix(root).unwrap().to_path_buf();
            out.insert(rel, std::fs::read(e.path()).unwrap());
        }
    }
}

fn error_code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// Everything in `before` not under one of `gone` is in `after` with the same bytes.
fn others_intact(
    before: &BTreeMap<PathBuf, Vec<u8>>,
    after: &BTreeMap<PathBuf, Vec<u8>>,
    gone: &[&str],
) {
    for (path, bytes) in before {
        let p = path.to_string_lossy();
        if gone.iter().any(|g| p.contains(g)) {
            assert!(!after.contains_key(path), "{p} should have gone");
            continue;
        }
        assert_eq!(after.get(path), Some(bytes), "{p} changed or went");
    }
}

const PARENT: &str = "3783a6bc-cd8d-4c58-9da5-ce5411d3487a";
const SUBAGENT: &str = "agent-ab351964a1d85ae3b";

#[test]
fn claude_files_go_to_the_freedesktop_trash_and_the_session_leaves_scan_and_search() {
    let m = Machine::new("claude", "2.1.332");
    m.allow(true, false);
    // Indexed before: search finds the session by a word only it has.
    let (_, hits) = m.run(&["search", "delegate", "--json"]);
    assert!(hits["data"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h["session_id"] == PARENT));
    let before = m.snapshot();
    let (out, v) = m.run(&["trash", &PARENT[..8], "--with-subagents", "--yes", "--json"]);
    assert!(out.status.success(), "{v}");
    let removed: Vec<&str> = v["data"]["done"]["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(removed, [PARENT, SUBAGENT]);

    let project = m.store().join("projects/-home-bob-projects-demo");
    let trashed = m.trashed();
    assert_eq!(
        trashed.get(&format!("{PARENT}.jsonl")),
        Some(&project.join(format!("{PARENT}.jsonl")))
    );
    assert_eq!(trashed.get(PARENT), Some(&project.join(PARENT)));
    let sub = m.trash().join("files").join(PARENT).join("subagents");
    assert!(sub.join(format!("{SUBAGENT}.jsonl")).is_file());
    assert!(sub.join(format!("{SUBAGENT}.meta.json")).is_file());
    // The bytes in the trash are the transcript's.
    assert_eq!(
        std::fs::read(m.trash().join("files").join(format!("{PARENT}.jsonl"))).unwrap(),
        before[Path::new(&format!("projects/-home-bob-projects-demo/{PARENT}.jsonl"))]
    );

    let listed = m.listed();
    assert!(!listed.contains_key(PARENT) && !listed.contains_key(SUBAGENT));
    assert_eq!(listed.len(), 6, "{listed:?}");
    let (_, hits) = m.run(&["search", "delegate", "--json"]);
    let text = hits["data"]["hits"].to_string();
    assert!(!text.contains(PARENT) && !text.contains(SUBAGENT), "{text}");
    others_intact(&before, &m.snapshot(), &[PARENT]);
}

#[test]
fn subagents_can_stay_and_must_be_decided() {
    let m = Machine::new("claude", "2.1.332");
    m.allow(true, false);
    let before = m.snapshot();
    let (out, v) = m.run(&["trash", PARENT, "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(error_code(&v), "subagents_undecided");
    assert_eq!(v["data"]["plan"]["subagents"][0]["id"], SUBAGENT);
    assert_eq!(m.snapshot(), before, "an undecided plan touches nothing");

    let (out, v) = m.run(&["trash", PARENT, "--without-subagents", "--yes", "--json"]);
    assert!(out.status.success(), "{v}");
    let folder = m
        .store()
        .join("projects/-home-bob-projects-demo")
        .join(PARENT);
    assert!(folder
        .join("subagents")
        .join(format!("{SUBAGENT}.jsonl"))
        .is_file());
    assert!(!folder.with_extension("jsonl").exists());
    let listed = m.listed();
    assert!(!listed.contains_key(PARENT) && listed.contains_key(SUBAGENT));
}

#[test]
fn flat_subagents_and_todos_of_claude_2_0_go_along() {
    let m = Machine::new("claude", "2.0.50");
    m.allow(true, false);
    let parent = "4b6e37a0-fe42-464a-9e6e-a393d58b17c6";
    let children = [
        "agent-0eeb54fa",
        "agent-7da01e62",
        "agent-8fbb88ac",
        "agent-afc8a05e",
    ];
    let before = m.snapshot();
    let (out, v) = m.run(&["trash", parent, "--with-subagents", "--yes", "--json"]);
    assert!(out.status.success(), "{v}");
    let trashed = m.trashed();
    for c in children {
        assert!(
            trashed.contains_key(&format!("{c}.jsonl")),
            "{c}: {trashed:?}"
        );
    }
    assert!(trashed.contains_key(&format!("{parent}-agent-{parent}.json")));
    let listed = m.listed();
    assert!(!listed.contains_key(parent));
    assert!(children.iter().all(|c| !listed.contains_key(*c)));
    let mut gone = vec![parent];
    gone.extend(children);
    others_intact(&before, &m.snapshot(), &gone);
}

#[test]
fn refusals_touch_nothing_and_exit_2() {
    let m = Machine::new("claude", "2.1.332");
    let id = "7938f0db-aeb3-409b-ab80-42085a5431da";
    let before = m.snapshot();
    let refused = |args: &[&str], code: &str| {
        let (out, v) = m.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {v}");
        assert_eq!(error_code(&v), code, "{args:?}: {v}");
        assert_eq!(m.snapshot(), before, "{args:?} touched the store");
        assert!(!m.trash().exists(), "{args:?} made a trash");
        v
    };
    // No config: off.
    let v = refused(&["trash", id, "--yes", "--json"], "delete_disabled");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("allow_delete"));
    m.allow(false, true);
    refused(&["trash", id, "--yes", "--json"], "delete_disabled");
    m.allow(true, false);
    refused(
        &["delete", id, "--permanent", "--yes", "--json"],
        "permanent_delete_disabled",
    );
    // Claude's files only ever go to the trash.
    m.allow(true, true);
    refused(
        &["delete", id, "--permanent", "--yes", "--json"],
        "unsupported",
    );
    // Asked for nothing: --json (or no terminal) without --yes shows the plan and stops.
    let v = refused(&["trash", id, "--json"], "confirmation_needed");
    assert_eq!(v["data"]["plan"]["steps"][0]["kind"], "os_trash");
    let out = m.cli(&["trash", id]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));

    // Written a minute ago: an agent may still be at it.
    let transcript = m
        .store()
        .join("projects/-home-bob-projects-demo")
        .join(format!("{id}.jsonl"));
    let f = std::fs::File::options()
        .write(true)
        .open(&transcript)
        .unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(60))
        .unwrap();
    let v = {
        let (out, v) = m.run(&["trash", id, "--yes", "--json"]);
        assert_eq!(out.status.code(), Some(2), "{v}");
        v
    };
    assert_eq!(error_code(&v), "session_recent");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("10 minutes"), "{message}");
    // The agent as people know it, not its key.
    assert!(
        message.starts_with(&format!("the Claude Code session {id} was updated")),
        "{message}"
    );
    assert!(transcript.exists());
}

/// This test process, as Claude's pid file for a running session records it.
fn pid_file(session: &str) -> String {
    let me = std::process::id();
    let stat = std::fs::read_to_string(format!("/proc/{me}/stat")).unwrap();
    let rest = &stat[stat.rfind(')').unwrap() + 1..];
    let ticks = rest.split_whitespace().nth(19).unwrap();
    format!(r#"{{"pid":{me},"sessionId":"{session}","procStart":"{ticks}","status":"busy"}}"#)
}

#[test]
fn a_live_session_is_refused() {
    let m = Machine::new("claude", "2.1.332");
    m.allow(true, true);
    let id = "7938f0db-aeb3-409b-ab80-42085a5431da";
    std::fs::create_dir_all(m.store().join("sessions")).unwrap();
    std::fs::write(m.store().join("sessions/4242.json"), pid_file(id)).unwrap();
    let before = m.snapshot();
    let (out, v) = m.run(&["trash", id, "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(error_code(&v), "session_live");
    assert_eq!(
        v["error"]["message"],
        format!("the Claude Code session {id} is live (a running claude process has it open); close it first")
    );
    assert_eq!(m.snapshot(), before);
    // A subagent going along is checked too.
    std::fs::write(m.store().join("sessions/4242.json"), pid_file(SUBAGENT)).unwrap();
    let (out, v) = m.run(&["trash", PARENT, "--with-subagents", "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(error_code(&v), "session_live");
}

// ---- Codex --------------------------------------------------------------------------------

const CODEX_PARENT: &str = "01a22bc4-d63a-7983-80d0-f3d6ee14c936";
const CODEX_CHILD: &str = "01a22bc4-d79d-7950-b85d-e48f810553e0";
/// A session another (`…-ddca-…`) was forked from.
const CODEX_PLAIN: &str = "01a22bc4-cb24-7030-8af9-1f6d53970528";
const CODEX_LEAF: &str = "01a22bc4-dad9-7450-b811-4865920862ed";

/// A copy of the 0.171.0 store whose state DB points at the copy, as Codex's own DB points at
/// its home (the fixture's rows name the recording machine's paths).
fn codex_machine() -> Machine {
    let m = Machine::new("codex", "0.171.0");
    let db = rusqlite::Connection::open(m.store().join("state_5.sqlite")).unwrap();
    db.execute(
        "UPDATE threads SET rollout_path = replace(rollout_path, '/home/alice/.codex', ?1)",
        [m.store().to_string_lossy()],
    )
    .unwrap();
    drop(db);
    age(&m.store());
    m
}

fn thread(m: &Machine, id: &str) -> Option<(String, i64)> {
    let db = rusqlite::Connection::open(m.store().join("state_5.sqlite")).unwrap();
    db.query_row(
        "SELECT rollout_path, archived FROM threads WHERE id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .ok()
}

fn rollouts(m: &Machine) -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["sessions", "archived_sessions"] {
        let mut all = BTreeMap::new();
        files(&m.store(), &m.store().join(dir), &mut all);
        out.extend(all.keys().map(|p| p.to_string_lossy().into_owned()));
    }
    out
}

#[test]
#[cfg_attr(
    windows,
    ignore = "runs the real agents, installed from npm as Linux builds"
)]
fn codex_archives_with_its_own_command_taking_the_subagent_along() {
    let codex = agents::codex(agents::CODEX);
    let m = codex_machine().with_path(&[("codex", &codex)]);
    m.allow(true, false);
    let (out, v) = m.run(&[
        "trash",
        CODEX_PARENT,
        "--without-subagents",
        "--yes",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(error_code(&v), "subagents_go_along");

    let before: BTreeMap<_, _> = m
        .snapshot()
        .into_iter()
        .filter(|(p, _)| p.starts_with("sessions") || p.starts_with("archived_sessions"))
        .collect();
    let (out, v) = m.run(&["trash", CODEX_PARENT, "--with-subagents", "--yes", "--json"]);
    assert!(out.status.success(), "{v}");
    let step = &v["data"]["plan"]["steps"][0];
    assert_eq!(step["kind"], "agent");
    assert_eq!(step["argv"][1], "archive");
    for id in [CODEX_PARENT, CODEX_CHILD] {
        let (path, archived) = thread(&m, id).unwrap();
        assert_eq!(archived, 1, "{id}");
        assert!(path.contains("/archived_sessions/"), "{path}");
        assert!(Path::new(&path).is_file());
    }
    let listed = m.listed();
    assert_eq!(listed.get(CODEX_PARENT), Some(&true));
    assert_eq!(listed.get(CODEX_CHILD), Some(&true));
    assert_eq!(listed.get(CODEX_PLAIN), Some(&false));
    // Other rollouts are byte for byte as they were.
    let after = m.snapshot();
    for (p, bytes) in &before {
        let s = p.to_string_lossy();
        if s.contains(CODEX_PARENT) || s.contains(CODEX_CHILD) {
            continue;
        }
        assert_eq!(after.get(p), Some(bytes), "{s}");
    }
    // Archived already: trashing again is refused.
    let (out, v) = m.run(&["trash", CODEX_PLAIN, "--yes", "--json"]);
    assert!(out.status.success(), "{v}");
    let (out, v) = m.run(&["trash", CODEX_PLAIN, "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(error_code(&v), "unsupported");
}

#[test]
#[cfg_attr(
    windows,
    ignore = "runs the real agents, installed from npm as Linux builds"
)]
fn codex_deletes_permanently_with_its_own_command_only() {
    let codex = agents::codex(agents::CODEX);
    let m = codex_machine().with_path(&[("codex", &codex)]);
    m.allow(true, false);
    let (out, v) = m.run(&["delete", CODEX_LEAF, "--permanent", "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(error_code(&v), "permanent_delete_disabled");
    m.allow(true, true);
    let (out, v) = m.run(&["delete", CODEX_LEAF, "--permanent", "--yes", "--json"]);
    assert!(out.status.success(), "{v}");
    assert_eq!(v["data"]["plan"]["steps"][0]["argv"][1], "delete");
    assert!(thread(&m, CODEX_LEAF).is_none());
    assert!(!rollouts(&m).iter().any(|r| r.contains(CODEX_LEAF)));
    assert!(!m.listed().contains_key(CODEX_LEAF));
    assert!(
        !m.trash().exists(),
        "Codex deletes: nothing goes to the OS trash"
    );

    // Codex 0.171 will not delete a session another was forked from: its failure is reported
    // as it is, and the session is whole.
    let before = m.snapshot();
    let (out, v) = m.run(&["delete", CODEX_PLAIN, "--permanent", "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{v}");
    assert_eq!(error_code(&v), "trash_failed");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("failed to delete session"), "{message}");
    assert!(message.contains("nothing was changed"), "{message}");
    let after = m.snapshot();
    for (p, bytes) in before
        .iter()
        .filter(|(p, _)| p.to_string_lossy().contains(CODEX_PLAIN))
    {
        assert_eq!(after.get(p), Some(bytes), "{}", p.display());
    }
    assert_eq!(m.listed().get(CODEX_PLAIN), Some(&false));
}

#[test]
#[cfg_attr(
    windows,
    ignore = "runs the real agents, installed from npm as Linux builds"
)]
fn without_codex_the_archive_is_made_as_codex_makes_it_and_codex_can_undo_it() {
    let m = codex_machine();
    m.allow(true, true);
    // Permanent deletion needs Codex's own command.
    let before = m.snapshot();
    let (out, v) = m.run(&["delete", CODEX_PLAIN, "--permanent", "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(error_code(&v), "agent_missing");
    assert_eq!(m.snapshot(), before);

    let (out, v) = m.run(&["trash", CODEX_PLAIN, "--yes", "--json"]);
    assert!(out.status.success(), "{v}");
    assert_eq!(v["data"]["plan"]["steps"][0]["kind"], "archive");
    let (path, archived) = thread(&m, CODEX_PLAIN).unwrap();
    assert_eq!(archived, 1);
    assert_eq!(
        Path::new(&path),
        m.store()
            .join("archived_sessions")
            .join(Path::new(&path).file_name().unwrap())
    );
    assert!(Path::new(&path).is_file());
    assert_eq!(m.listed().get(CODEX_PLAIN), Some(&true));

    // Codex itself takes our archive for its own: it unarchives it.
    let codex = agents::codex(agents::CODEX);
    let (ok, stdout, stderr) = agents::run(
        &codex,
        &["unarchive", CODEX_PLAIN],
        &m.home(),
        &[("CODEX_HOME", &m.store())],
    );
    assert!(ok, "codex unarchive: {stdout}{stderr}");
    let (path, archived) = thread(&m, CODEX_PLAIN).unwrap();
    assert_eq!(archived, 0);
    assert!(path.contains("/sessions/2026/"), "{path}");
    assert_eq!(m.listed().get(CODEX_PLAIN), Some(&false));
}

#[test]
#[cfg_attr(
    windows,
    ignore = "runs the real agents, installed from npm as Linux builds"
)]
fn a_codex_without_the_commands_is_recognised_from_its_help() {
    let old = agents::codex(agents::CODEX_WITHOUT_ARCHIVE);
    let m = codex_machine().with_path(&[("codex", &old)]);
    m.allow(true, true);
    let (out, v) = m.run(&["delete", CODEX_PLAIN, "--permanent", "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(error_code(&v), "agent_missing");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("no delete command"));
    let (out, v) = m.run(&["trash", CODEX_PLAIN, "--json"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(v["data"]["plan"]["steps"][0]["kind"], "archive");
}

/// A `codex` that never answers `--help` (a hung install): planning gives up on it soon with
/// what happened and what to check, instead of holding the dialog for the minute an archive
/// may take; the trash goes ahead with the archive made as Codex makes it, saying why; what
/// the hung codex started is stopped with it.
#[test]
fn a_codex_that_does_not_answer_its_help_is_given_up_on_saying_why() {
    let tmp = tempfile::tempdir().unwrap();
    let started = tmp.path().join("sleeper.pid");
    let hung = tmp.path().join("codex");
    let script = format!(
        "#!/bin/sh\n/bin/sleep 600 &\necho $! > '{}'\nwait\n",
        started.display()
    );
    std::fs::write(&hung, script).unwrap();
    std::fs::set_permissions(&hung, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let m = codex_machine().with_path(&[("codex", &hung)]);
    m.allow(true, true);
    let before = m.snapshot();
    let (out, v) = m.run(&["delete", CODEX_PLAIN, "--permanent", "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(error_code(&v), "agent_missing");
    let message = v["error"]["message"].as_str().unwrap();
    let says = format!(
        "`codex --help` did not answer within 5 s and was stopped; check that {} runs in a terminal",
        m.path.as_ref().unwrap().join("codex").display()
    );
    assert!(message.contains(&says), "{message}");
    assert_eq!(m.snapshot(), before);
    let sleeper = std::fs::read_to_string(&started).unwrap();
    let state = format!("/proc/{}/stat", sleeper.trim());
    let start = std::time::Instant::now();
    // Gone, or a zombie waiting for init: either way no longer running.
    while std::fs::read_to_string(&state).is_ok_and(|s| !s.contains(") Z ")) {
        assert!(
            start.elapsed().as_secs() < 30,
            "what codex started still runs"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }

    let (out, v) = m.run(&["trash", CODEX_PLAIN, "--json"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(v["data"]["plan"]["steps"][0]["kind"], "archive");
    let notes = v["data"]["plan"]["notes"].to_string();
    assert!(notes.contains("did not answer within 5 s"), "{notes}");
    assert!(notes.contains("without Codex"), "{notes}");
}

// ---- OpenCode -----------------------------------------------------------------------------

const OC_PARENT: &str = "ses_dd4341096ffef285TaeIhrVhqh";
const OC_CHILD: &str = "ses_dd433f7e1ffe6XJJHdcUEG5OLP";

fn row_counts(db: &Path) -> BTreeMap<String, i64> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    tables
        .into_iter()
        .map(|t| {
            let n = conn
                .query_row(&format!("SELECT count(*) FROM \"{t}\""), [], |r| r.get(0))
                .unwrap();
            (t, n)
        })
        .collect()
}

/// Whether OpenCode itself finds session `id` in the store (`opencode export <id>`).
fn opencode_finds(opencode: &Path, m: &Machine, id: &str) -> bool {
    // OpenCode finds its store at $XDG_DATA_HOME/opencode.
    let data = m.store().parent().unwrap().to_path_buf();
    let (ok, stdout, stderr) = agents::run(
        opencode,
        &["export", id],
        &m.home(),
        &[("XDG_DATA_HOME", &data)],
    );
    let found = stdout.contains(&format!("\"id\": \"{id}\""));
    assert!(
        (ok && found) || format!("{stdout}{stderr}").contains("Session not found"),
        "opencode export {id}: {stdout}{stderr}"
    );
    found
}

#[test]
#[cfg_attr(
    windows,
    ignore = "runs the real agents, installed from npm as Linux builds"
)]
fn opencode_rows_go_in_one_transaction_exactly_as_opencode_deletes_them() {
    let opencode = agents::opencode(agents::OPENCODE);
    let m = Machine::new("opencode", "1.18.33");
    m.allow(true, false);
    let (out, v) = m.run(&["trash", OC_PARENT, "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(error_code(&v), "unsupported");
    let (out, v) = m.run(&["delete", OC_PARENT, "--permanent", "--yes", "--json"]);
    assert_eq!(error_code(&v), "permanent_delete_disabled", "{v}");
    assert_eq!(out.status.code(), Some(2));
    m.allow(true, true);
    let (out, v) = m.run(&[
        "delete",
        OC_PARENT,
        "--permanent",
        "--without-subagents",
        "--yes",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(error_code(&v), "subagents_go_along");

    assert!(opencode_finds(&opencode, &m, OC_PARENT));
    let (out, v) = m.run(&[
        "delete",
        OC_PARENT,
        "--permanent",
        "--with-subagents",
        "--yes",
        "--json",
    ]);
    assert!(out.status.success(), "{v}");
    let step = &v["data"]["plan"]["steps"][0];
    assert_eq!(step["kind"], "delete_rows");
    let listed = m.listed();
    assert!(!listed.contains_key(OC_PARENT) && !listed.contains_key(OC_CHILD));
    assert_eq!(listed.len(), 5);
    // OpenCode no longer finds these, and still finds the others.
    assert!(!opencode_finds(&opencode, &m, OC_PARENT));
    assert!(!opencode_finds(&opencode, &m, OC_CHILD));
    for id in listed.keys().take(2) {
        assert!(opencode_finds(&opencode, &m, id), "{id}");
    }

    // OpenCode's own `session delete` on another copy leaves the same rows in every table
    // (but `project`, where it records the directory it was started in).
    let theirs = Machine::new("opencode", "1.18.33");
    let data = theirs.store().parent().unwrap().to_path_buf();
    let (ok, stdout, stderr) = agents::run(
        &opencode,
        &["session", "delete", OC_PARENT],
        &theirs.home(),
        &[("XDG_DATA_HOME", &data)],
    );
    assert!(ok, "opencode session delete: {stdout}{stderr}");
    let mut ours = row_counts(&m.store().join("opencode.db"));
    let mut their = row_counts(&theirs.store().join("opencode.db"));
    ours.remove("project");
    their.remove("project");
    assert_eq!(ours, their);
}

#[test]
fn opencode_json_copies_go_to_the_trash() {
    let m = Machine::new("opencode", "0.5.29-then-1.0.0");
    m.allow(true, true);
    let listed = m.listed();
    let before = m.snapshot();
    // A session with both a 0.x and a 1.0 copy: both go.
    let id = before
        .keys()
        .filter_map(|p| {
            let s = p.to_string_lossy();
            s.starts_with("storage/session/")
                .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .find(|id| {
            before
                .keys()
                .any(|p| p.starts_with("project") && p.to_string_lossy().contains(id.as_str()))
        })
        .expect("a session copied by 1.0");
    let (out, v) = m.run(&[
        "delete",
        &id,
        "--permanent",
        "--with-subagents",
        "--yes",
        "--json",
    ]);
    assert!(out.status.success(), "{v}");
    let after = m.snapshot();
    assert!(
        !after
            .keys()
            .any(|p| p.to_string_lossy().contains(id.as_str())),
        "a file of {id} is left"
    );
    let trashed = m.trashed();
    assert!(trashed
        .values()
        .any(|p| p.starts_with(m.store().join("project"))));
    assert!(trashed
        .values()
        .any(|p| p.starts_with(m.store().join("storage"))));
    let now = m.listed();
    assert!(!now.contains_key(&id));
    assert_eq!(now.len(), listed.len() - 1);
    // Parts live under their message ids: every file left belongs to another session.
    for (path, bytes) in &after {
        assert_eq!(before.get(path), Some(bytes));
    }
}

#[test]
fn opencode_v2_and_v1_rows_of_one_session_go_together() {
    let m = Machine::new("opencode", "1.18.33");
    // The v2 store is built from its script.
    let db_path = m.store().join("opencode.db");
    std::fs::remove_file(&db_path).unwrap();
    let sql = std::fs::read_to_string(testdata("opencode", "v2-synthetic", "build.sql")).unwrap();
    rusqlite::Connection::open(&db_path)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();
    age(&m.store());
    m.allow(true, true);
    let conn = rusqlite::Connection::open(&db_path).unwrap();
    let both: String = conn
        .query_row(
            "SELECT s.id FROM session s JOIN session_v2 v ON v.id = s.id LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    drop(conn);
    let counts = row_counts(&db_path);
    let (out, v) = m.run(&[
        "delete",
        &both,
        "--permanent",
        "--with-subagents",
        "--yes",
        "--json",
    ]);
    assert!(out.status.success(), "{v}");
    let conn = rusqlite::Connection::open(&db_path).unwrap();
    for table in [
        "session",
        "session_v2",
        "message",
        "part",
        "session_message",
    ] {
        let col = if table.starts_with("session") && !table.ends_with("message") {
            "id"
        } else {
            "session_id"
        };
        let n: i64 = conn
            .query_row(
                &format!("SELECT count(*) FROM {table} WHERE {col} = ?1"),
                [&both],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 0, "{table}");
    }
    let after = row_counts(&db_path);
    assert!(after["session_v2"] < counts["session_v2"]);
    assert!(!m.listed().contains_key(&both));
}

impl Machine {
    /// Runs the CLI with `args` in a pseudo-terminal (util-linux `script`, so it asks), lets
    /// `meanwhile` change the store while the question waits, then answers `y`: its exit code
    /// and what it wrote.
    fn answer_yes_after(&self, args: &[&str], meanwhile: impl FnOnce()) -> (Option<i32>, String) {
        use std::io::{Read, Write};
        let cli = self.cli(args);
        // Test paths and ids need no quoting but for the single quotes around each word.
        let words: Vec<String> = std::iter::once(cli.get_program())
            .chain(cli.get_args())
            .map(|w| format!("'{}'", w.to_str().unwrap()))
            .collect();
        let mut cmd = Command::new("/usr/bin/script");
        cmd.args(["-q", "-e", "-c", &words.join(" "), "/dev/null"])
            .env_clear()
            .envs(cli.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let (asked, said) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let (mut text, mut chunk) = (Vec::new(), [0u8; 4096]);
            while let Ok(n @ 1..) = stdout.read(&mut chunk) {
                text.extend_from_slice(&chunk[..n]);
                if text.windows(5).any(|w| w == b"[y/N]") {
                    let _ = asked.send(());
                }
            }
            String::from_utf8_lossy(&text).into_owned()
        });
        said.recv_timeout(Duration::from_secs(120))
            .expect("the question was never asked");
        meanwhile();
        stdin.write_all(b"y\n").unwrap();
        let status = child.wait().unwrap();
        drop(stdin);
        (status.code(), reader.join().unwrap())
    }
}

/// What runs after the y/N question is planned again and must be what was shown: a file that
/// appeared in the session's folder, or lines added to its transcript (its time kept old, as a
/// copy or a clock change leaves it), meanwhile is refused (`stale_plan`, exit 2) and nothing
/// moves; unchanged, the answer runs the plan. (Before, the plan shown was run on whatever was
/// there by then: the new file went to the trash unseen.)
#[test]
fn a_plan_changed_while_the_question_waits_is_not_run() {
    const ID: &str = "5fec8eab-4b33-416d-b6fa-02f90e2a8cfc";
    const DEMO: &str = "projects/-home-bob-projects-demo";
    let id = ID;
    type Change = fn(&Path);
    let changes: [(&str, Change); 2] = [
        ("a new file in the session's folder", |store| {
            let dir = store.join(format!("{DEMO}/{ID}/tool-results"));
            std::fs::write(dir.join("written-meanwhile.txt"), "new").unwrap();
            age(store);
        }),
        ("lines added to the transcript", |store| {
            let transcript = store.join(format!("{DEMO}/{ID}.jsonl"));
            let mut f = std::fs::File::options()
                .append(true)
                .open(transcript)
                .unwrap();
            std::io::Write::write_all(&mut f, b"{\"type\":\"summary\",\"summary\":\"x\"}\n")
                .unwrap();
            age(store);
        }),
    ];
    for (what, change) in changes {
        let m = Machine::new("claude", "2.1.332");
        m.allow(true, false);
        let store = m.store();
        let mut before = None;
        let (code, said) = m.answer_yes_after(&["trash", id], || {
            change(&store);
            before = Some(m.snapshot());
        });
        assert_eq!(code, Some(2), "{what}: {said}");
        assert!(
            said.contains("stale_plan") || said.contains("not what was shown"),
            "{what}: {said}"
        );
        assert_eq!(Some(m.snapshot()), before, "{what}: the store changed");
        assert!(m.trashed().is_empty(), "{what}: {:?}", m.trashed());
    }
    // Nothing changed: the answer runs it.
    let m = Machine::new("claude", "2.1.332");
    m.allow(true, false);
    let (code, said) = m.answer_yes_after(&["trash", id], || {});
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains(&format!("trashed claude session {id}")),
        "{said}"
    );
    assert!(!m.listed().contains_key(id));
}

// ---- Names that are not UTF-8 -------------------------------------------------------------

fn os(bytes: &[u8]) -> &std::ffi::OsStr {
    std::os::unix::ffi::OsStrExt::from_bytes(bytes)
}

/// A Claude project folder whose name is not UTF-8 (its sessions' ids are Claude's): the plan
/// is shown (`--json`, the path lossily), and the session trashed when the user says yes, its
/// files recorded in the trash by their bytes. Before, printing the plan panicked (exit 101),
/// after the files had gone. A transcript whose own name is not UTF-8 has no Claude id: it is
/// refused, the file named.
#[test]
fn a_claude_session_in_a_folder_named_not_in_utf8_is_shown_and_trashed() {
    let m = Machine::new("claude", "2.1.332");
    m.allow(true, false);
    let id = "5fec8eab-4b33-416d-b6fa-02f90e2a8cfc";
    let project = m.store().join("projects").join(os(b"-home-\xfe"));
    std::fs::rename(m.store().join("projects/-home-bob-projects-demo"), &project).unwrap();
    let transcript = project.join(format!("{id}.jsonl"));
    let shown = transcript.to_string_lossy().into_owned();
    let before = m.snapshot();

    // Named as the list shows it.
    let (out, v) = m.run(&["trash", &shown, "--json"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(error_code(&v), "confirmation_needed");
    assert_eq!(v["data"]["plan"]["session"]["source_path"], shown.as_str());
    assert_eq!(
        v["data"]["plan"]["steps"][0]["items"][0]["path"],
        shown.as_str()
    );
    assert_eq!(m.snapshot(), before);

    let (out, v) = m.run(&["trash", id, "--yes", "--json"]);
    assert!(out.status.success(), "{v}");
    assert_eq!(v["data"]["done"]["removed"][0]["id"], id);
    let trashed = m.trashed();
    let recorded = trashed[&format!("{id}.jsonl")]
        .to_string_lossy()
        .into_owned();
    assert!(
        recorded.ends_with(&format!("/projects/-home-%FE/{id}.jsonl")),
        "{recorded}"
    );
    assert!(trashed.contains_key(id), "{trashed:?}");
    assert!(!m.listed().contains_key(id));
    others_intact(&before, &m.snapshot(), &[id]);

    let bad = project.join(os(b"bad\xff.jsonl"));
    std::fs::copy(
        project.join("7938f0db-aeb3-409b-ab80-42085a5431da.jsonl"),
        &bad,
    )
    .unwrap();
    age(&m.store());
    let (out, v) = m.run(&["trash", "bad\u{fffd}", "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{v}");
    assert_eq!(error_code(&v), "invalid_session_id");
    assert!(bad.exists());
}

/// A Codex rollout whose name is not UTF-8, archived without Codex: the plan is printed, the
/// rollout is in `archived_sessions/` under its own name and listed as archived. Before, the
/// rollout was moved and the CLI panicked printing what it did.
#[test]
fn a_codex_rollout_named_not_in_utf8_is_archived() {
    let m = codex_machine();
    m.allow(true, false);
    let day = m.store().join("sessions/2026/11/30");
    let prefix = "rollout-2026-11-30T09-24-07-";
    let mut name = prefix.as_bytes().to_vec();
    name.push(0xff);
    name.extend_from_slice(format!("{CODEX_PLAIN}.jsonl").as_bytes());
    let rollout = day.join(os(&name));
    std::fs::rename(day.join(format!("{prefix}{CODEX_PLAIN}.jsonl")), &rollout).unwrap();
    age(&m.store());
    let bytes = std::fs::read(&rollout).unwrap();

    let (out, v) = m.run(&["trash", CODEX_PLAIN, "--yes", "--json"]);
    assert!(out.status.success(), "{v}");
    let moved = &v["data"]["plan"]["steps"][0]["moves"][0];
    assert_eq!(moved["from"], rollout.to_string_lossy().as_ref());
    let archived = m.store().join("archived_sessions").join(os(&name));
    assert_eq!(std::fs::read(&archived).unwrap(), bytes);
    assert!(!rollout.exists());
    assert_eq!(m.listed().get(CODEX_PLAIN), Some(&true));
}

/// An Aider run found where the CLI runs (no `--aider-root`: the current directory is the
/// repository): the plan says what is cut, `--yes` cuts it, and the other runs stay byte for
/// byte while the run is in the trash as a file of its own.
#[test]
fn an_aider_run_found_in_the_current_directory_is_cut_out_after_consent() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("demo");
    copy_dir(&testdata("aider", "0.86.2", "demo"), &repo);
    age(&repo);
    let history = repo.join(".aider.chat.history.md");
    let before = std::fs::read(&history).unwrap();
    std::fs::write(
        tmp.path().join("config.toml"),
        "[actions]\nallow_delete = true\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_agent-sessions-cli"))
            .args(args)
            .current_dir(&repo)
            .env_clear()
            .env("PATH", tmp.path().join("nowhere"))
            .env("HOME", tmp.path().join("home"))
            .env("XDG_DATA_HOME", tmp.path().join("data"))
            .env("AGENT_SESSIONS_CACHE_DIR", tmp.path().join("cache"))
            .env("AGENT_SESSIONS_CONFIG", tmp.path().join("config.toml"))
            .env("AGENT_SESSIONS_NO_BACKGROUND_INDEX", "1")
            .output()
            .unwrap()
    };
    // The second run of the file (EXPECTED.json: line 39).
    let id = "aider-ae2c2a5ddc1b7176";
    let out = run(&["trash", id]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let plan = String::from_utf8_lossy(&out.stderr);
    assert!(
        plan.contains("cut out of") && plan.contains(".aider.chat.history.md"),
        "{plan}"
    );
    assert!(plan.contains("to the trash, as:"), "{plan}");
    assert_eq!(
        std::fs::read(&history).unwrap(),
        before,
        "nothing before consent"
    );

    let out = run(&["trash", id, "--yes", "--json"]);
    let v = common::json_of(&out);
    assert!(out.status.success(), "{v}");
    let cut = &v["data"]["plan"]["steps"][0];
    let (start, end) = (
        cut["start"].as_u64().unwrap() as usize,
        cut["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(&before[start..start + 24], b"# aider chat started at ");
    assert_eq!(
        std::fs::read(&history).unwrap(),
        [&before[..start], &before[end..]].concat()
    );
    let kept = tmp
        .path()
        .join("data/Trash/files")
        .join(format!(".aider.chat.history.md.{id}.md"));
    assert_eq!(std::fs::read(kept).unwrap(), &before[start..end]);
    let listed = common::json_of(&run(&["scan", "--json"]));
    let ids: Vec<&str> = listed["data"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 4, "the other four runs of the file: {ids:?}");
    assert!(!ids.contains(&id));
}

/// The sessions Cline itself lists of `m`'s store (`cline history --json`, offline).
fn cline_lists(cline: &Path, m: &Machine) -> Vec<String> {
    let store = m.store();
    let (ok, stdout, stderr) = agents::run(
        cline,
        &["history", "--json"],
        &m.home(),
        &[
            ("CLINE_DIR", &store),
            ("CLINE_NO_AUTO_UPDATE", Path::new("1")),
        ],
    );
    assert!(ok, "cline history: {stdout}{stderr}");
    let listed: Vec<Value> = serde_json::from_str(&stdout).expect(&stdout);
    listed
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap().to_owned())
        .collect()
}

/// The `sessions` rows of a Cline 3.x store.
fn cline_rows(m: &Machine) -> Vec<String> {
    let conn = rusqlite::Connection::open(m.store().join("data/db/sessions.db")).unwrap();
    let mut stmt = conn
        .prepare("SELECT session_id FROM sessions ORDER BY session_id")
        .unwrap();
    let rows = stmt.query_map([], |r| r.get(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

const CLINE_PARENT: &str = "1796568635963_quxl9";

/// Cline 3.0.65 lists a session from its `sessions.db` row even when its folder is gone: the
/// trash takes the row (and its subagent's) with the folder, so Cline lists it no more, and
/// leaves the rows Cline's own `cline history delete` leaves.
#[test]
#[cfg_attr(
    windows,
    ignore = "runs the real agents, installed from npm as Linux builds"
)]
fn a_trashed_cline_session_leaves_clines_own_list() {
    let cline = agents::cline(agents::CLINE);
    let m = Machine::new("cline", "3.0.65");
    m.allow(true, false);
    let before = cline_lists(&cline, &m);
    assert!(before.contains(&CLINE_PARENT.to_owned()), "{before:?}");
    let (out, v) = m.run(&["trash", CLINE_PARENT, "--with-subagents", "--yes", "--json"]);
    assert!(out.status.success(), "{v}");
    assert_eq!(v["data"]["plan"]["steps"][1]["kind"], "delete_rows", "{v}");
    let after = cline_lists(&cline, &m);
    let want: Vec<String> = before.into_iter().filter(|s| s != CLINE_PARENT).collect();
    assert_eq!(after, want);
    assert!(!m.listed().contains_key(CLINE_PARENT));

    let theirs = Machine::new("cline", "3.0.65");
    let store = theirs.store();
    let (ok, stdout, stderr) = agents::run(
        &cline,
        &["history", "delete", "--session-id", CLINE_PARENT],
        &theirs.home(),
        &[
            ("CLINE_DIR", &store),
            ("CLINE_NO_AUTO_UPDATE", Path::new("1")),
        ],
    );
    assert!(ok, "cline history delete: {stdout}{stderr}");
    assert_eq!(cline_rows(&m), cline_rows(&theirs));
}
