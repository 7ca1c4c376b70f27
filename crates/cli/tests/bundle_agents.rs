//! The proof that a restore works: a fixture session is exported as a bundle, imported with
//! `bundle import` into an empty store under another directory, and the agent's own CLI
//! (pinned, installed from npm into `target/agents/`) resumes it there against a scripted
//! model on 127.0.0.1 ([`agents/mock_model.py`]). The request the agent sends carries the
//! restored history, and its next records continue the same session in the same place, in
//! the new directory. An agent that cannot be installed fails the test.

#![cfg(target_os = "linux")]

mod agents;
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use agents::{claude_env, offline, run_agent, Mock, Work};
use common::testdata;

/// Our CLI with a private cache and no real home; `path` is its PATH.
fn cli(work: &Path, path: &str, args: &[&str]) -> Value {
    cli_at_home(work, path, &work.join("no-home"), args)
}

/// [`cli`] with `home` as its home (the agents' default stores are there).
fn cli_at_home(work: &Path, path: &str, home: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-sessions-cli"))
        .args(args)
        .arg("--json")
        .current_dir(work)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("AGENT_SESSIONS_CACHE_DIR", work.join("cache"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert!(out.status.success(), "{args:?}: {v}");
    v["data"].clone()
}

/// Exports `id` from the fixture store `fixture` (under testdata/) into `work`; the bundle.
fn export(work: &Path, path: &str, flag: &str, fixture: &str, id: &str) -> PathBuf {
    let bundle = work.join("moved.agent-session.zip");
    let fixture = testdata(fixture);
    let (root, out) = (fixture.to_str().unwrap(), bundle.to_str().unwrap());
    cli(work, path, &[flag, root, "bundle", "export", id, "-o", out]);
    bundle
}

/// Exports `id` from a fixture store and imports it into `root` with `--dir dir`.
fn move_session(
    work: &Path,
    path: &str,
    flag: &str,
    fixture: &str,
    id: &str,
    root: &Path,
    dir: &Path,
) -> Value {
    let bundle = export(work, path, flag, fixture, id);
    cli(
        work,
        path,
        &[
            flag,
            root.to_str().unwrap(),
            "bundle",
            "import",
            bundle.to_str().unwrap(),
            "--dir",
            dir.to_str().unwrap(),
            "--yes",
        ],
    )
}

/// Exports `id` from a fixture store and imports it into the agent's default store under
/// `home`, which the agent never made (no root flag: the store the CLI finds there).
fn move_into_home(
    work: &Path,
    path: &str,
    flag: &str,
    fixture: &str,
    id: &str,
    home: &Path,
    dir: &Path,
) -> Value {
    let bundle = export(work, path, flag, fixture, id);
    let (bundle, dir) = (bundle.to_str().unwrap(), dir.to_str().unwrap());
    let args = ["bundle", "import", bundle, "--dir", dir, "--yes"];
    cli_at_home(work, path, home, &args)
}

/// The session as our scan of `root` lists it now.
fn listed(work: &Path, path: &str, flag: &str, root: &Path, id: &str) -> Value {
    let v = cli(
        work,
        path,
        &[flag, root.to_str().unwrap(), "scan", "--no-cache"],
    );
    v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("{id} is not listed"))
}

/// A fresh work folder, a new home for the agent, and the directory the session moves to
/// (with a dot and a space in its path, which agents encode in their own ways).
fn places() -> (Work, PathBuf, PathBuf) {
    let work = Work::new();
    let home = work.path().join("home");
    let dir = work.path().join("moved.to here").join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    (work, home, dir)
}

fn system_path() -> String {
    std::env::var("PATH").unwrap_or_default()
}

/// Whether any text of the model call holds `needle`.
fn mentions(call: &Value, needle: &str) -> bool {
    call.to_string().contains(needle)
}

/// What Claude Code's resume of the 2.1.332 fixture session sends: it was compacted, so the
/// summary and the turn after it.
const CLAUDE_HISTORY: [&str; 2] = [
    "This session is being continued from a previous conversation",
    "CHAT and after compaction?",
];

/// What Codex's resume of the 0.171.0 fixture session sends.
const CODEX_HISTORY: [&str; 2] = [
    "List the files in this directory",
    "CHAT what did you find?",
];

/// The preview of `done` says it makes the store `root`.
fn creates(done: &Value, root: &Path) {
    let will = format!("will create {}", root.display());
    let notes = done["preview"]["notes"].as_array().unwrap();
    let said = notes.iter().any(|n| n.as_str().unwrap().starts_with(&will));
    assert!(said, "{done}");
}

/// The prompt every resume sends.
const PROMPT: &str = "CHAT we moved, go on";

/// Runs the agent's resume (`args`, ending with [`PROMPT`]) and checks that it answered and
/// that the model call carrying the prompt carried every one of `history` too.
fn resumes(
    program: &Path,
    args: &[&str],
    dir: &Path,
    path: &str,
    env: &[(&str, String)],
    mock: &Mock,
    history: &[&str],
) {
    let said = run_agent(program, args, dir, path, env);
    assert!(said.contains("restored-session-reply"), "{said}");
    sent_history(mock, history);
}

/// The model call carrying [`PROMPT`] carried every one of `history` too.
fn sent_history(mock: &Mock, history: &[&str]) {
    let calls = mock.calls();
    let call = calls
        .iter()
        .rev()
        .find(|c| mentions(c, PROMPT))
        .expect("the resumed prompt reached the model");
    for h in history {
        assert!(mentions(call, h), "the history sent lacks {h:?}");
    }
}

/// The records a file gained since `before`, which it still starts with.
fn continued(file: &Path, before: &[Value]) -> Vec<Value> {
    let after = records(file);
    assert!(
        after.len() > before.len(),
        "{} did not grow",
        file.display()
    );
    assert_eq!(&after[..before.len()], before);
    after[before.len()..].to_vec()
}

/// The `.jsonl` files below `dir`.
fn transcripts(dir: &Path) -> Vec<PathBuf> {
    walk(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect()
}

/// The lines of a JSONL file, parsed.
fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn claude_code_resumes_a_restored_session_in_its_new_directory() {
    let (work, home, dir) = places();
    claude_resumes_in(&work, &home, &dir);
}

/// A restore into a home where the agent never ran, and the agent resuming it.
struct NewHome {
    flag: &'static str,
    fixture: &'static str,
    id: &'static str,
    /// The agent's default store in the home (`.claude`) and the folder below it its records
    /// go in (`projects`).
    store: &'static str,
    records: &'static str,
    program: PathBuf,
    /// The agent's environment for its store (once restored): (home, store, mock).
    env: fn(&Path, &Path, &Mock) -> Vec<(&'static str, String)>,
    resume: &'static [&'static str],
    history: [&'static str; 2],
}

/// Restores the case's session into the agent's default store in an empty home (the CLI
/// given no root: the store it finds there, missing), which the restore makes and its
/// preview says it will; then the agent resumes it from there and continues that file.
fn resumes_from_a_new_home(case: NewHome) {
    let (work, home, dir) = places();
    let root = home.join(case.store);
    let path = system_path();
    let (flag, fixture, id) = (case.flag, case.fixture, case.id);
    let done = move_into_home(work.path(), &path, flag, fixture, id, &home, &dir);
    assert_eq!(done["preview"]["root"], *root.to_string_lossy(), "{done}");
    creates(&done, &root);
    let file = PathBuf::from(done["preview"]["method"]["files"][0].as_str().unwrap());
    assert!(file.starts_with(root.join(case.records)), "{done}");
    let before = records(&file);

    let mock = Mock::start(work.path());
    let env = (case.env)(&home, &root, &mock);
    let mut args = case.resume.to_vec();
    args.extend([id, PROMPT]);
    resumes(
        &case.program,
        &args,
        &dir,
        &path,
        &env,
        &mock,
        &case.history,
    );
    continued(&file, &before);
    assert_eq!(transcripts(&root.join(case.records)), vec![file]);
}

/// A home where Claude Code never ran: the restore makes `~/.claude/projects/<folder>/`, and
/// Claude Code resumes the session from it.
#[test]
fn claude_code_resumes_a_session_restored_into_a_home_it_never_ran_in() {
    resumes_from_a_new_home(NewHome {
        flag: "--claude-root",
        fixture: "claude/2.1.332/dot-claude",
        id: "9d22e384-6685-4b75-ac35-088162e4c4a9",
        store: ".claude",
        records: "projects",
        program: agents::claude(agents::CLAUDE),
        env: claude_env,
        resume: &["-p", "--resume"],
        history: CLAUDE_HISTORY,
    });
}

/// A home where Codex never ran: the restore makes `~/.codex/sessions/YYYY/MM/DD/` (no state
/// database yet: Codex lists the rollouts when it makes one); only the model is set up after
/// it (a config.toml pointing Codex at the mock), and Codex resumes the session.
#[test]
fn codex_resumes_a_session_restored_into_a_home_it_never_ran_in() {
    resumes_from_a_new_home(NewHome {
        flag: "--codex-root",
        fixture: "codex/0.171.0/dot-codex",
        id: "01a22bc4-cb24-7030-8af9-1f6d53970528",
        store: ".codex",
        records: "sessions",
        program: agents::codex(agents::CODEX),
        env: codex_store,
        resume: &["exec", "--skip-git-repo-check", "resume"],
        history: CODEX_HISTORY,
    });
}

/// A home where OpenCode never ran: its database only OpenCode's migrations set up, so the
/// restore is refused, saying why and what to do, and nothing is made.
#[test]
fn an_opencode_restore_into_a_home_it_never_ran_in_is_refused_saying_what_to_do() {
    let (work, home, dir) = places();
    let path = system_path();
    let id = "ses_dd434d2d3ffeSwAnDCKAB0MBV0";
    let bundle = export(work.path(), &path, "--opencode-root", OPENCODE_1_18, id);
    let out = Command::new(env!("CARGO_BIN_EXE_agent-sessions-cli"))
        .args(["bundle", "import", bundle.to_str().unwrap(), "--dir"])
        .arg(&dir)
        .args(["--yes", "--json"])
        .env_clear()
        .env("PATH", &path)
        .env("HOME", &home)
        .env("AGENT_SESSIONS_CACHE_DIR", work.path().join("cache"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "bad_target", "{v}");
    let said = v["error"]["message"].as_str().unwrap();
    assert!(
        said.contains("only OpenCode can set up") && said.contains("run `opencode` once"),
        "{said}"
    );
    let made: Vec<_> = std::fs::read_dir(&home)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(made.is_empty(), "nothing is made in the home: {made:?}");
}

/// A directory whose project folder name is over 200 characters: Claude Code cuts it and adds a
/// hash of the whole path. The restore files the session where Claude Code looks, and a new
/// session Claude Code starts there lands in that same folder.
#[test]
fn claude_code_resumes_a_session_restored_into_a_very_long_directory() {
    let (work, home, dir) = places();
    let mut long = dir.clone();
    for part in ["a", "b", "c", "d"] {
        long.push(format!(
            "{part}-très long.folder name 😀-{}",
            "0123456789".repeat(4)
        ));
    }
    std::fs::create_dir_all(&long).unwrap();
    let long = long.canonicalize().unwrap();
    let folder =
        agent_sessions_core::provider::claude::bundle::claude_project(&long.to_string_lossy());
    assert!(folder.len() > 200 && folder.len() < 255, "{folder}");
    let transcript = claude_resumes_in(&work, &home, &long);
    let project = transcript.parent().unwrap();
    assert_eq!(project.file_name().unwrap().to_string_lossy(), folder);

    // A new session of Claude Code's own in that directory goes into the same folder.
    let claude = agents::claude(agents::CLAUDE);
    let root = home.join(".claude");
    let fresh = work.path().join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    let mock = Mock::start(&fresh);
    let env = claude_env(&home, &root, &mock);
    run_agent(
        &claude,
        &["-p", "CHAT a new one"],
        &long,
        &system_path(),
        &env,
    );
    let mut files = transcripts(&root.join("projects"));
    files.retain(|f| f != &transcript);
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].parent().unwrap(), project);
}

/// Restores the 2.1.332 fixture session into `dir` and resumes it there with `claude -p
/// --resume`; the transcript it continued.
fn claude_resumes_in(work: &Work, home: &Path, dir: &Path) -> PathBuf {
    let claude = agents::claude(agents::CLAUDE);
    let dir = dir.to_path_buf();
    let path = system_path();
    let root = home.join(".claude");
    std::fs::create_dir_all(&root).unwrap();
    let id = "9d22e384-6685-4b75-ac35-088162e4c4a9";
    let done = move_session(
        work.path(),
        &path,
        "--claude-root",
        "claude/2.1.332/dot-claude",
        id,
        &root,
        &dir,
    );
    let files = done["preview"]["method"]["files"].as_array().unwrap();
    assert_eq!(files.len(), 1);
    let transcript = PathBuf::from(files[0].as_str().unwrap());
    let before = records(&transcript);
    let counted = listed(work.path(), &path, "--claude-root", &root, id)["counts"]["user"]
        .as_u64()
        .unwrap();

    let mock = Mock::start(work.path());
    let env = claude_env(home, &root, &mock);
    // The session was compacted: the history sent is the summary and the turn after it.
    let history = CLAUDE_HISTORY;
    resumes(
        &claude,
        &["-p", "--resume", id, PROMPT],
        &dir,
        &path,
        &env,
        &mock,
        &history,
    );
    // It continued the same file, in the same session, in the new directory, and made no
    // other session file anywhere in the store.
    let new = continued(&transcript, &before);
    let dir_text = dir.to_string_lossy();
    assert!(new
        .iter()
        .any(|r| r["type"] == "user" && r["cwd"] == *dir_text));
    let ids = new.iter().filter(|r| r["sessionId"].is_string());
    assert!(ids.clone().count() > 0 && ids.clone().all(|r| r["sessionId"] == id));
    assert_eq!(
        transcripts(&root.join("projects")),
        vec![transcript.clone()]
    );
    let now = listed(work.path(), &path, "--claude-root", &root, id);
    assert_eq!(now["counts"]["user"].as_u64().unwrap(), counted + 1);
    assert_eq!(now["cwd"], *dir_text);
    transcript
}

/// Points the Codex store `root` at the scripted model; the environment to run Codex with.
fn codex_store(home: &Path, root: &Path, mock: &Mock) -> Vec<(&'static str, String)> {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(
        root.join("config.toml"),
        format!(
            "model = \"gpt-5-codex\"\nmodel_provider = \"mock\"\napproval_policy = \"never\"\n\
             sandbox_mode = \"danger-full-access\"\n[model_providers.mock]\nname = \"Mock\"\n\
             base_url = \"http://127.0.0.1:{}/v1\"\nwire_api = \"responses\"\n\
             env_key = \"MOCK_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n",
            mock.port
        ),
    )
    .unwrap();
    vec![
        ("HOME", home.to_string_lossy().into_owned()),
        ("CODEX_HOME", root.to_string_lossy().into_owned()),
        ("MOCK_API_KEY", "mock".to_owned()),
    ]
}

/// Runs the TUI `program args` in a pseudo-terminal in `cwd` until its screen shows `needle`
/// (at most two minutes); whether it did, and the screen's text without spaces.
fn screen_shows(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    env: &[(&str, String)],
    needle: &str,
) -> (bool, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/pty_screen.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script)
        .arg("120")
        .arg(needle)
        .arg(program)
        .args(args);
    let out = offline(&mut cmd, cwd, &system_path(), env)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The `threads` row of `id` in the Codex store `root`, column by column.
fn thread_row(root: &Path, id: &str) -> Vec<(String, rusqlite::types::Value)> {
    let db = rusqlite::Connection::open(root.join("state_5.sqlite")).unwrap();
    let mut stmt = db.prepare("SELECT * FROM threads WHERE id = ?1").unwrap();
    let names: Vec<String> = stmt.column_names().map(str::to_owned).collect();
    stmt.query_row([id], |r| {
        Ok(names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), r.get(i).unwrap()))
            .collect())
    })
    .unwrap_or_else(|e| panic!("{id} has no threads row: {e}"))
}

/// Codex 0.171.0 lists sessions (the `codex resume` picker) from its state database once it
/// has one. A session restored into a store where Codex has run gets the row Codex's own
/// backfill gives a rollout it finds in a new store (the same values but for its path, its
/// directory and the times of the file), so the picker shows it; then it resumes.
#[test]
fn codex_lists_a_session_restored_into_a_store_it_has_run_in() {
    let codex = agents::codex(agents::CODEX);
    let (work, home, dir) = places();
    let path = system_path();
    let root = home.join(".codex");
    let mock = Mock::start(work.path());
    let env = codex_store(&home, &root, &mock);
    let elsewhere = work.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let args = ["exec", "--skip-git-repo-check", "CHAT an earlier session"];
    run_agent(&codex, &args, &elsewhere, &path, &env);
    assert!(root.join("state_5.sqlite").is_file());

    let id = "01a22bc4-cb24-7030-8af9-1f6d53970528";
    let fixture = "codex/0.171.0/dot-codex";
    let done = move_session(work.path(), &path, "--codex-root", fixture, id, &root, &dir);
    let db = root.join("state_5.sqlite").canonicalize().unwrap();
    assert_eq!(done["preview"]["state_db"], *db.to_string_lossy());
    let title = "List the files in this directory";
    let picker = ["resume", "--all", "--include-non-interactive"];
    let (shown, screen) = screen_shows(&codex, &picker, &dir, &env, title);
    assert!(
        shown,
        "the picker does not list the restored session: {screen}"
    );

    // The same bundle into a store Codex has not run in: Codex's backfill makes the row.
    let (work2, home2, dir2) = places();
    let root2 = home2.join(".codex");
    let env2 = codex_store(&home2, &root2, &mock);
    let done2 = move_session(
        work2.path(),
        &path,
        "--codex-root",
        fixture,
        id,
        &root2,
        &dir2,
    );
    assert!(done2["preview"]["state_db"].is_null(), "{done2}");
    let (shown, screen) = screen_shows(&codex, &picker, &dir2, &env2, title);
    assert!(shown, "Codex's backfill does not list it: {screen}");
    let ours = thread_row(&root, id);
    let backfilled = thread_row(&root2, id);
    let own = [
        "rollout_path",
        "cwd",
        "updated_at",
        "updated_at_ms",
        "recency_at",
        "recency_at_ms",
    ];
    for ((name, a), (_, b)) in ours.iter().zip(&backfilled) {
        if !own.contains(&name.as_str()) {
            assert_eq!(a, b, "threads.{name}");
        }
    }
    let text = |row: &[(String, rusqlite::types::Value)], col: &str| {
        row.iter().find(|(n, _)| n == col).map(|(_, v)| v.clone())
    };
    assert_eq!(
        text(&ours, "cwd"),
        Some(rusqlite::types::Value::Text(
            dir.to_string_lossy().into_owned()
        ))
    );
    let rollout = done["preview"]["method"]["files"][0].as_str().unwrap();
    assert_eq!(
        text(&ours, "rollout_path"),
        Some(rusqlite::types::Value::Text(rollout.to_owned()))
    );

    let history = CODEX_HISTORY;
    let resume = ["exec", "--skip-git-repo-check", "resume", id, PROMPT];
    resumes(&codex, &resume, &dir, &path, &env, &mock, &history);
}

#[test]
fn codex_resumes_a_restored_session_in_its_new_directory() {
    let codex = agents::codex(agents::CODEX);
    let (work, home, dir) = places();
    let path = system_path();
    let root = home.join(".codex");
    std::fs::create_dir_all(&root).unwrap();
    let id = "01a22bc4-cb24-7030-8af9-1f6d53970528";
    let done = move_session(
        work.path(),
        &path,
        "--codex-root",
        "codex/0.171.0/dot-codex",
        id,
        &root,
        &dir,
    );
    let rollout = PathBuf::from(done["preview"]["method"]["files"][0].as_str().unwrap());
    let before = records(&rollout);
    let counted = listed(work.path(), &path, "--codex-root", &root, id)["counts"]["user"]
        .as_u64()
        .unwrap();

    let mock = Mock::start(work.path());
    let env = codex_store(&home, &root, &mock);
    let args = ["exec", "--skip-git-repo-check", "resume", id, PROMPT];
    let history = CODEX_HISTORY;
    resumes(&codex, &args, &dir, &path, &env, &mock, &history);
    let new = continued(&rollout, &before);
    let dir_text = dir.to_string_lossy();
    assert!(new
        .iter()
        .any(|r| r["type"] == "turn_context" && r["payload"]["cwd"] == *dir_text));
    assert_eq!(transcripts(&root.join("sessions")), vec![rollout.clone()]);
    let now = listed(work.path(), &path, "--codex-root", &root, id);
    assert_eq!(now["counts"]["user"].as_u64().unwrap(), counted + 1);
    assert_eq!(now["cwd"], *dir_text);
}

/// The session files (`…/chats/*.jsonl`) below `dir` that hold `id` (an agent may move its
/// project folder; its other logs, such as Qwen Code's `usage_record.jsonl`, are not sessions).
fn files_of(dir: &Path, id: &str) -> Vec<PathBuf> {
    walk(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .filter(|p| p.parent().is_some_and(|d| d.ends_with("chats")))
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains(id)))
        .collect()
}

/// What the resume says: the prompt, with the scripted model told to answer with its reply.
const SCRIPTED_PROMPT: &str = "[[say restored-session-reply]] CHAT we moved, go on";

/// A Gemini CLI or Qwen Code session restored from a fixture into a new store, resumed there
/// by the agent itself; what differs between the two.
struct Resumed {
    /// The agent's program, its root folder's name under the home and our flag for it.
    program: PathBuf,
    store: &'static str,
    flag: &'static str,
    /// The fixture store and the session moved.
    fixture: &'static str,
    id: &'static str,
    /// Its `settings.json` (an API key's auth, no updates or telemetry).
    settings: Value,
    /// The options before `--resume` and the environment that points it at the model.
    options: &'static [&'static str],
    env: fn(&Mock) -> Vec<(&'static str, String)>,
}

/// Restores the case's session under a new directory, resumes it with [`SCRIPTED_PROMPT`]
/// (the request must carry the tool loop's and the first resume's prompts), and checks that
/// our listing counts the new prompt. Returns the directory, the records as restored and the
/// session's files now.
fn resumed(case: Resumed) -> (Work, PathBuf, Vec<Value>, Vec<PathBuf>) {
    let (work, home, dir) = places();
    let path = system_path();
    let root = home.join(case.store);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("settings.json"), case.settings.to_string()).unwrap();
    // The folder above the directory is trusted (and so the directory): no file of the store
    // names the directory itself before the restore.
    let above = dir.parent().unwrap().to_str().unwrap();
    let trusted = serde_json::json!({ above: "TRUST_FOLDER" });
    std::fs::write(root.join("trustedFolders.json"), trusted.to_string()).unwrap();
    let (flag, id) = (case.flag, case.id);
    move_session(work.path(), &path, flag, case.fixture, id, &root, &dir);
    let restored = files_of(&root, id);
    assert_eq!(restored.len(), 1, "{restored:?}");
    let before = records(&restored[0]);
    let first = listed(work.path(), &path, flag, &root, id);
    // Listed with its directory before the agent ever ran there (so resumable from here).
    assert_eq!(first["cwd"], *dir.to_string_lossy());
    let counted = first["counts"]["user"].as_u64().unwrap();

    let mock = Mock::start(work.path());
    let mut env = (case.env)(&mock);
    env.extend([
        ("HOME", home.to_string_lossy().into_owned()),
        ("LANG", "C.UTF-8".to_owned()),
        ("TERM", "dumb".to_owned()),
        ("NO_COLOR", "1".to_owned()),
    ]);
    let mut args = case.options.to_vec();
    args.extend(["--resume", id, "-p", SCRIPTED_PROMPT]);
    let history = [
        "Read notes.txt, list the folder, then change alpha to beta.",
        "Grüße! Was hast du gefunden?",
    ];
    resumes(&case.program, &args, &dir, &path, &env, &mock, &history);
    let now = listed(work.path(), &path, flag, &root, id);
    assert_eq!(now["counts"]["user"].as_u64().unwrap(), counted + 1);
    assert_eq!(now["cwd"], *dir.to_string_lossy());
    let files = files_of(&root, id);
    (work, dir, before, files)
}

/// Gemini CLI 0.61 resumes a 0.61 session restored under `tmp/<slug of the directory>/`
/// with the marker Gemini writes there (`.project_root`): the session lists with its
/// directory before Gemini ran there, the request after `--resume` carries the restored
/// prompts, and the restored file goes on after the restored records (Gemini took the folder
/// as the directory's own: no copy into another folder).
#[test]
fn gemini_cli_resumes_a_restored_session_in_its_new_directory() {
    let (work, dir, before, files) = resumed(Resumed {
        program: agents::gemini(agents::GEMINI),
        store: ".gemini",
        flag: "--gemini-root",
        fixture: "gemini/0.61.0/dot-gemini",
        id: "7d53c23b-fe46-4406-b083-d93680275406",
        settings: serde_json::json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
            "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
        }),
        options: &["-y"],
        env: |mock| {
            vec![
                ("GEMINI_API_KEY", "mock-key".to_owned()),
                (
                    "GOOGLE_GEMINI_BASE_URL",
                    format!("http://127.0.0.1:{}", mock.port),
                ),
            ]
        },
    });
    // All in the folder the restore chose (no copy elsewhere). Gemini 0.61 writes a stub
    // file for the id at start (its context alone; a new name when the minute differs), then
    // appends the turn to the restored file.
    let project = files[0].parent().unwrap().parent().unwrap();
    assert_eq!(project.file_name().unwrap(), "project");
    assert!(files.iter().all(|f| f.starts_with(project)), "{files:?}");
    let grown = files
        .iter()
        .find(|f| records(f).len() > before.len())
        .unwrap_or_else(|| panic!("no file of the session grew: {files:?}"));
    let new = continued(grown, &before);
    assert!(new.iter().any(|r| mentions(r, PROMPT)), "{new:?}");
    let marker = std::fs::read_to_string(project.join(".project_root")).unwrap();
    assert_eq!(marker, dir.to_string_lossy());
    // Gemini registered the directory under the folder the restore chose.
    let root = work.path().join("home/.gemini");
    let registry: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("projects.json")).unwrap())
            .unwrap();
    assert_eq!(registry["projects"][dir.to_str().unwrap()], "project");
    // Two files of the id now (the stub and the restored one), one session: the file Gemini
    // resumes, the one the turn went to (gemini/resumes.rs).
    assert_eq!(files.len(), 2, "{files:?}");
    let args = [
        "--gemini-root",
        root.to_str().unwrap(),
        "scan",
        "--no-cache",
    ];
    let scan = cli(work.path(), &system_path(), &args);
    let id = "7d53c23b-fe46-4406-b083-d93680275406";
    let sessions = scan["sessions"].as_array().unwrap();
    let once: Vec<&Value> = sessions.iter().filter(|s| s["id"] == id).collect();
    assert_eq!(once.len(), 1, "{once:?}");
    assert_eq!(once[0]["source_path"], *grown.to_string_lossy());
}

/// Qwen Code 0.24 resumes a 0.24 session restored under `projects/<its folder for the
/// directory>/chats/`: the request after `--resume` carries the restored prompts, and the
/// session's file gains the new turn after the restored records, in the new directory.
#[test]
fn qwen_code_resumes_a_restored_session_in_its_new_directory() {
    let (_work, dir, before, files) = resumed(Resumed {
        program: agents::qwen(agents::QWEN),
        store: ".qwen",
        flag: "--qwen-root",
        fixture: "qwen/0.24.4/dot-qwen",
        id: "ee778635-901c-44fa-9718-ed5c7747a635",
        settings: serde_json::json!({
            "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": false}},
            "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
            "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
        }),
        options: &["--yolo"],
        env: |mock| {
            vec![
                ("OPENAI_API_KEY", "mock-key".to_owned()),
                ("OPENAI_MODEL", "qwen3-coder-plus".to_owned()),
                (
                    "OPENAI_BASE_URL",
                    format!("http://127.0.0.1:{}/v1", mock.port),
                ),
            ]
        },
    });
    assert_eq!(files.len(), 1, "{files:?}");
    let new = continued(&files[0], &before);
    let dir_text = dir.to_string_lossy();
    assert!(new.iter().any(|r| r["cwd"] == *dir_text), "{new:?}");
}

/// How an OpenCode case restores.
#[derive(PartialEq)]
enum Way {
    /// OpenCode on PATH: its own `import` (a session of 1.2 or later).
    Import,
    /// OpenCode not on PATH: our rows, in a store OpenCode made.
    Rows,
    /// OpenCode on PATH, but a session of 1.0, which its `import` refuses: our rows.
    OldSession,
    /// Our rows, into a subfolder of a new git repository (with this `origin` remote, if any)
    /// that OpenCode has no project for yet.
    RowsInRepo(Option<&'static str>),
}

/// OpenCode resumes a session of `fixture` restored the `way` given, with `opencode run
/// --session`; the model call carries `history`.
fn opencode_resumes(way: Way, fixture: &str, id: &str, history: &str) {
    let opencode = agents::opencode(agents::OPENCODE);
    let (work, home, dir) = places();
    let data = home.join(".local/share");
    let root = data.join("opencode");
    std::fs::create_dir_all(&root).unwrap();
    let bin = agents::bin_dir(work.path(), &[("opencode", &opencode)]);
    let with_agent = format!("{}:{}", bin.display(), system_path());
    let mock = Mock::start(work.path());
    let env = opencode_store(&home, &mock);
    let rows = matches!(way, Way::Rows | Way::RowsInRepo(_));
    let path = if !rows {
        with_agent.clone()
    } else {
        // OpenCode makes its store (database and migrations) once; our import then runs
        // without it on PATH and writes the rows itself.
        let first = work.path().join("first");
        std::fs::create_dir_all(&first).unwrap();
        run_agent(&opencode, &["session", "list"], &first, &with_agent, &env);
        assert!(root.join("opencode.db").is_file());
        system_path()
    };
    let project = match way {
        Way::RowsInRepo(remote) => Some(git_repo(dir.parent().unwrap(), remote)),
        _ => None,
    };
    if way == Way::OldSession {
        run_agent(&opencode, &["session", "list"], &dir, &with_agent, &env);
    }
    let done = move_session(
        work.path(),
        &path,
        "--opencode-root",
        fixture,
        id,
        &root,
        &dir,
    );
    let kind = if way == Way::Import { "import" } else { "rows" };
    assert_eq!(done["preview"]["method"]["kind"], kind, "{done}");
    let counted = listed(work.path(), &path, "--opencode-root", &root, id)["counts"]["user"]
        .as_u64()
        .unwrap();

    if let Some(expected) = project {
        // Filed under the project OpenCode gives the repository, and listed there by
        // OpenCode before it ever ran there.
        let db = rusqlite::Connection::open(root.join("opencode.db")).unwrap();
        let (project_id, worktree): (String, String) = db
            .query_row(
                "SELECT p.id, p.worktree FROM session s JOIN project p ON p.id = s.project_id \
                 WHERE s.id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(project_id, expected);
        assert_eq!(worktree, *dir.parent().unwrap().to_string_lossy());
        let list = ["session", "list", "--format", "json"];
        let said = run_agent(&opencode, &list, &dir, &with_agent, &env);
        assert!(said.contains(id), "opencode session list: {said}");
    }
    let args = ["run", "--session", id, PROMPT];
    resumes(&opencode, &args, &dir, &with_agent, &env, &mock, &[history]);
    let dir_text = dir.to_string_lossy();
    let db = rusqlite::Connection::open(root.join("opencode.db")).unwrap();
    let sessions: i64 = db
        .query_row("SELECT count(*) FROM session", [], |r| r.get(0))
        .unwrap();
    let restored = done["restored"]["sessions"].as_array().unwrap().len();
    assert_eq!(
        sessions as usize, restored,
        "the run continued the restored session, no new one"
    );
    let directory: String = db
        .query_row("SELECT directory FROM session WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(directory, *dir_text);
    let now = listed(work.path(), &path, "--opencode-root", &root, id);
    assert_eq!(now["counts"]["user"].as_u64().unwrap(), counted + 1);
    assert_eq!(now["cwd"], *dir_text);
}

/// Makes `dir` a git repository with two commits (and `remote` as `origin`); the project id
/// OpenCode gives it: the SHA-1 of `git-remote:<host>/<path>` with a remote, else the root
/// commit.
fn git_repo(dir: &Path, remote: Option<&str>) -> String {
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    git(&["init", "-q"]);
    git(&["commit", "-q", "--allow-empty", "-m", "root"]);
    let root = git(&["rev-parse", "HEAD"]);
    git(&["commit", "-q", "--allow-empty", "-m", "second"]);
    let Some(remote) = remote else {
        return root;
    };
    assert_eq!(remote, "git@github.com:Acme/Widget.git");
    git(&["remote", "add", "origin", remote]);
    let out = Command::new("python3")
        .args([
            "-c",
            "import hashlib, sys; print(hashlib.sha1(sys.argv[1].encode()).hexdigest())",
        ])
        .arg("git-remote:github.com/Acme/Widget")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A directory inside a git repository OpenCode has not seen: the restore files the session
/// under the project OpenCode gives that repository (its root commit; with an `origin`
/// remote, the remote's hash), so `opencode session list` there lists it.
#[test]
fn opencode_lists_a_session_restored_as_rows_into_a_new_repository() {
    let id = "ses_dd434d2d3ffeSwAnDCKAB0MBV0";
    let history = "List the files here and show main.py";
    opencode_resumes(Way::RowsInRepo(None), OPENCODE_1_18, id, history);
    let remote = Some("git@github.com:Acme/Widget.git");
    opencode_resumes(Way::RowsInRepo(remote), OPENCODE_1_18, id, history);
}

const OPENCODE_1_18: &str = "opencode/1.18.33/local-share-opencode";

#[test]
fn opencode_resumes_a_session_restored_by_its_own_import() {
    let id = "ses_dd434d2d3ffeSwAnDCKAB0MBV0";
    opencode_resumes(
        Way::Import,
        OPENCODE_1_18,
        id,
        "List the files here and show main.py",
    );
}

#[test]
fn opencode_resumes_a_session_restored_as_rows() {
    let id = "ses_dd434d2d3ffeSwAnDCKAB0MBV0";
    opencode_resumes(
        Way::Rows,
        OPENCODE_1_18,
        id,
        "List the files here and show main.py",
    );
}

#[test]
fn opencode_resumes_a_session_of_1_0_restored_as_rows_with_its_subagent() {
    let fixture = "opencode/1.0.98/local-share-opencode";
    let id = "ses_dd4235a87ffex0kI60WyegRFP9";
    opencode_resumes(
        Way::OldSession,
        fixture,
        id,
        "SUBAGENT please delegate counting lines",
    );
}

/// Every file below `dir`, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// OpenCode's own import writes a session before it checks the messages; when it refuses them,
/// what it wrote is deleted again and the store is left as it was.
#[test]
fn a_refused_opencode_import_leaves_the_store_as_it_was() {
    let opencode = agents::opencode(agents::OPENCODE);
    let (work, home, dir) = places();
    let root = home.join(".local/share/opencode");
    std::fs::create_dir_all(&root).unwrap();
    let bin = agents::bin_dir(work.path(), &[("opencode", &opencode)]);
    let path = format!("{}:{}", bin.display(), system_path());
    // A 1.0 session whose manifest claims 1.18: the import is tried, and OpenCode refuses the
    // old message shapes part way.
    let id = "ses_dd4233f85ffeF6TN3TEhX5oKKw";
    let fixture = "opencode/1.0.98/local-share-opencode";
    let bundle = export(work.path(), &path, "--opencode-root", fixture, id);
    let status = Command::new("python3")
        .arg("-c")
        .arg(
            "import json, sys, zipfile\n\
             src, dst = sys.argv[1], sys.argv[2]\n\
             with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, 'w') as b:\n\
             \x20   for n in a.namelist():\n\
             \x20       data = a.read(n)\n\
             \x20       if n == 'manifest.json':\n\
             \x20           m = json.loads(data); m['source']['tool_version'] = '1.18.33'; data = json.dumps(m).encode()\n\
             \x20       b.writestr(n, data)\n",
        )
        .arg(&bundle)
        .arg(work.path().join("claims-new.zip"))
        .status()
        .unwrap();
    assert!(status.success());
    let out = Command::new(env!("CARGO_BIN_EXE_agent-sessions-cli"))
        .args([
            "--opencode-root",
            root.to_str().unwrap(),
            "bundle",
            "import",
            "claims-new.zip",
            "--dir",
            dir.to_str().unwrap(),
            "--yes",
            "--json",
        ])
        .current_dir(work.path())
        .env_clear()
        .env("PATH", &path)
        .env("HOME", &home)
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("AGENT_SESSIONS_CACHE_DIR", work.path().join("cache"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "restore_failed", "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("nothing was changed"), "{message}");
    let db = rusqlite::Connection::open(root.join("opencode.db")).unwrap();
    for table in ["session", "message", "part"] {
        let n: i64 = db
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 0, "{table} rows left behind");
    }
}

/// "Continue in…" with the real agents: a restored Claude session is handed off to each agent
/// (Claude Code, Codex, OpenCode) through the launch the app uses: a terminal running the fixed
/// script that reads the prompt file and starts the agent with it as one argument (`claude
/// PROMPT`, `codex PROMPT`, `opencode --prompt PROMPT`). The terminal is a stand-in that runs
/// its command in a pseudo-terminal ([`agents/pty_screen.py`]), so each agent's own TUI runs,
/// told only that the user already went through its first-start questions (Claude's
/// onboarding and the API key, each agent's trust in the directory). The scripted model must
/// receive the handoff document, byte for byte, as the first thing the user said; the prompt
/// file is gone afterwards.
#[test]
fn each_agent_receives_the_handoff_as_its_first_prompt() {
    let (work, home, dir) = places();
    let path = system_path();
    let claude_root = home.join(".claude");
    std::fs::create_dir_all(&claude_root).unwrap();
    let id = "9d22e384-6685-4b75-ac35-088162e4c4a9";
    let fixture = "claude/2.1.332/dot-claude";
    move_session(
        work.path(),
        &path,
        "--claude-root",
        fixture,
        id,
        &claude_root,
        &dir,
    );
    let root_arg = claude_root.to_str().unwrap().to_owned();

    let mock = Mock::start(work.path());
    // In a pseudo-terminal until the model's answer shows.
    let pty = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/pty_screen.py");
    let bin = stand_in_xterm(work.path(), &pty, "150 restored-session-reply");
    let real = [
        ("claude", agents::claude(agents::CLAUDE)),
        ("codex", agents::codex(agents::CODEX)),
        ("opencode", agents::opencode(agents::OPENCODE)),
    ];
    for (name, program) in &real {
        std::os::unix::fs::symlink(program, bin.join(name)).unwrap();
    }

    // What the user answered at each agent's first start.
    let dir_text = dir.to_string_lossy().into_owned();
    let answered = serde_json::json!({
        "hasCompletedOnboarding": true, "theme": "dark",
        "customApiKeyResponses": {"approved": ["sk-ant-mock"], "rejected": []},
        "projects": {dir_text.clone(): {"hasTrustDialogAccepted": true}},
    });
    std::fs::write(claude_root.join(".claude.json"), answered.to_string()).unwrap();
    let codex_root = home.join(".codex");
    let mut env = claude_env(&home, &claude_root, &mock);
    env.extend(codex_store(&home, &codex_root, &mock));
    let trusted = format!("\n[projects.{dir_text:?}]\ntrust_level = \"trusted\"\n");
    let mut codex_config = std::fs::read_to_string(codex_root.join("config.toml")).unwrap();
    codex_config.push_str(&trusted);
    std::fs::write(codex_root.join("config.toml"), codex_config).unwrap();
    env.extend(opencode_store(&home, &mock));

    for (name, _) in &real {
        let handoff = ["--claude-root", &root_arg, "handoff", id, "--to", name];
        let printed = cli(work.path(), &path, &[&handoff[..], &["--print"]].concat());
        let document = printed["markdown"].as_str().unwrap().trim_end_matches('\n');
        assert!(document.starts_with("This is a handoff"), "{document}");

        let before = mock.calls().len();
        let done = work.path().join(format!("done-{name}"));
        let (_, status, screen) =
            handoff_in_terminal(work.path(), &path, &bin, &env, &handoff, &done);
        assert_eq!(
            status.trim(),
            "0",
            "{name} never showed the answer: {screen}"
        );
        let calls = mock.calls();
        assert!(
            calls[before..]
                .iter()
                .any(|c| first_prompt(c).as_deref() == Some(document)),
            "{name} did not send the handoff as the user's first prompt"
        );
        // The prompt file was read and removed.
        let left = walk(&work.path().join("cache"));
        assert!(
            left.iter().all(|f| !f.to_string_lossy().ends_with(".md")),
            "{left:?}"
        );
    }
}

/// A folder holding `xterm`'s stand-in: it runs the command after `-e`, as xterm does, under
/// `python3 PTY ARGS` (a pseudo-terminal driver of `tests/`), its screen to `$HANDOFF_DONE.out`
/// and its exit status to `$HANDOFF_DONE`.
fn stand_in_xterm(work: &Path, pty: &Path, args: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = work.join("handoff-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let term = bin.join("xterm");
    std::fs::write(
        &term,
        format!(
            "#!/bin/sh\nwhile [ \"$1\" != -e ]; do shift; done\nshift\n\
             python3 '{}' {args} \"$@\" > \"$HANDOFF_DONE.out\" 2>&1\n\
             echo $? > \"$HANDOFF_DONE\"\n",
            pty.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&term, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// Runs our `handoff` (its arguments) in the stand-in xterm of `bin` with the agents' `env`,
/// and waits for the terminal: (our output, the terminal's exit status, its screen).
fn handoff_in_terminal(
    work: &Path,
    path: &str,
    bin: &Path,
    env: &[(&str, String)],
    handoff: &[&str],
    done: &Path,
) -> (String, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agent-sessions-cli"));
    cmd.args(handoff).args(["--terminal", "xterm", "--json"]);
    let with_terminal = format!("{}:{path}", bin.display());
    let out = offline(&mut cmd, work, &with_terminal, env)
        .env("AGENT_SESSIONS_CACHE_DIR", work.join("cache"))
        .env("AGENT_SESSIONS_CONFIG", work.join("config.toml"))
        .env("HANDOFF_DONE", done)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{handoff:?}: {said}");
    let started = Instant::now();
    while !done.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(200),
            "{handoff:?}: the terminal did not finish"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let screen = std::fs::read_to_string(done.with_extension("out")).unwrap_or_default();
    (said, std::fs::read_to_string(done).unwrap(), screen)
}

/// The first text the user typed in a model call (Anthropic Messages or OpenAI Responses):
/// the first text of a user message that is not context the agent adds itself (`<system-
/// reminder>`, `<environment_context>`, …).
fn first_prompt(call: &Value) -> Option<String> {
    let messages = call["messages"].as_array().or(call["input"].as_array())?;
    messages
        .iter()
        .filter(|m| m["role"] == "user")
        .flat_map(|m| match &m["content"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        })
        .find(|t| !t.starts_with('<'))
}

/// Points OpenCode (its config under `home`) at the scripted model; the environment that runs
/// it on its store under `home`.
fn opencode_store(home: &Path, mock: &Mock) -> Vec<(&'static str, String)> {
    let config = home.join(".config/opencode");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("opencode.json"),
        format!(
            r#"{{"model": "anthropic/claude-sonnet-4-5", "small_model": "anthropic/claude-sonnet-4-5",
  "autoupdate": false, "share": "disabled",
  "provider": {{"anthropic": {{"options": {{"baseURL": "http://127.0.0.1:{}/v1", "apiKey": "sk-ant-mock"}},
    "models": {{"claude-sonnet-4-5": {{"limit": {{"context": 200000, "output": 32000}}}}}}}}}}}}"#,
            mock.port
        ),
    )
    .unwrap();
    let at = |p: &str| home.join(p).to_string_lossy().into_owned();
    vec![
        ("HOME", home.to_string_lossy().into_owned()),
        ("XDG_DATA_HOME", at(".local/share")),
        ("XDG_CONFIG_HOME", at(".config")),
        ("XDG_CACHE_HOME", at(".cache")),
        ("XDG_STATE_HOME", at(".local/state")),
        ("OPENCODE_DISABLE_AUTOUPDATE", "1".to_owned()),
        ("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1".to_owned()),
    ]
}

/// GitHub Copilot CLI 1.0.102 resumes a session restored into an empty `~/.copilot` under
/// another directory: the model call after `copilot --resume <id>` carries the restored
/// prompt and reply, and the CLI appends to the restored `events.jsonl` (its `session.resume`
/// in the new directory), making no other session.
#[test]
fn copilot_resumes_a_restored_session_in_its_new_directory() {
    let (work, home, dir) = places();
    let copilot = agents::copilot("1.0.102");
    let path = system_path();
    let root = home.join(".copilot");
    std::fs::create_dir_all(&root).unwrap();
    let id = "8c6f5941-1ddf-46c3-927e-c21669d3b25a";
    let fixture = "copilot/1.0.102/dot-copilot";
    let done = move_session(
        work.path(),
        &path,
        "--copilot-root",
        fixture,
        id,
        &root,
        &dir,
    );
    let files = done["preview"]["method"]["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{done}");
    let log = PathBuf::from(files[0].as_str().unwrap());
    assert_eq!(
        log,
        root.join("session-state").join(id).join("events.jsonl")
    );
    let before = records(&log);
    let counted = listed(work.path(), &path, "--copilot-root", &root, id)["counts"]["user"]
        .as_u64()
        .unwrap();

    let mock = Mock::start(work.path());
    let env = vec![
        ("HOME", home.to_string_lossy().into_owned()),
        ("COPILOT_HOME", root.to_string_lossy().into_owned()),
        ("COPILOT_OFFLINE", "true".to_owned()),
        ("COPILOT_PROVIDER_TYPE", "openai".to_owned()),
        (
            "COPILOT_PROVIDER_BASE_URL",
            format!("http://127.0.0.1:{}/v1", mock.port),
        ),
        ("COPILOT_PROVIDER_API_KEY", "mock-key".to_owned()),
        ("COPILOT_MODEL", "gpt-5".to_owned()),
    ];
    let prompt = format!("{PROMPT} [[say restored-session-reply]]");
    resumes(
        &copilot,
        &["--resume", id, "-p", &prompt, "--allow-all-tools"],
        &dir,
        &path,
        &env,
        &mock,
        &[
            "Привет, 世界! Что здесь?",
            "Здравствуйте 👋 — всё в порядке",
        ],
    );
    // The same log grew, in the same session, now in the new directory; no other session.
    let new = continued(&log, &before);
    let dir_text = dir.to_string_lossy();
    assert!(
        new.iter()
            .any(|r| r["type"] == "session.resume" && r["data"]["context"]["cwd"] == *dir_text),
        "{new:?}"
    );
    let sessions: Vec<PathBuf> = walk(&root.join("session-state"))
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "events.jsonl"))
        .collect();
    assert_eq!(sessions, vec![log.clone()]);
    let now = listed(work.path(), &path, "--copilot-root", &root, id);
    assert_eq!(now["counts"]["user"].as_u64().unwrap(), counted + 1);
    assert_eq!(now["cwd"], *dir_text);
}

/// What a restore of an Aider run is to write (issue 33, point 2): the run as a bundle carries
/// it (`native/aider/<id>.md`, its bytes from its header on) appended to the history of a
/// directory Aider never ran in is replayed by the real Aider's `--restore-chat-history`: the
/// next model call carries the run's prompt and reply.
#[test]
fn aider_replays_a_run_restored_into_a_directory_by_bundle_import() {
    let Some(aider) = agents::aider(agents::AIDER) else {
        return;
    };
    let (work, home, dir) = places();
    let path = system_path();
    // The fixture's run with non-ASCII text (EXPECTED.json: naïve-проект, line 2).
    let id = "aider-4af21869db5e7876";
    let bundle = export(work.path(), &path, "--aider-root", "aider/0.86.2", id);
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&bundle).unwrap()).unwrap();
    let mut run = Vec::new();
    std::io::Read::read_to_end(
        &mut zip.by_name(&format!("native/aider/{id}.md")).unwrap(),
        &mut run,
    )
    .unwrap();
    // No --aider-root: the run goes into the directory's own history.
    let (b, d) = (bundle.to_str().unwrap(), dir.to_str().unwrap());
    let done = cli(
        work.path(),
        &path,
        &["bundle", "import", b, "--dir", d, "--yes"],
    );
    // As Aider starts a run: a blank line, then the header.
    let history = dir.join(".aider.chat.history.md");
    assert_eq!(
        std::fs::read(&history).unwrap(),
        [&b"\n"[..], &run].concat()
    );
    // The id the restore names is the one the list gives the run in its new directory.
    let new_id = done["restored"]["session_id"].as_str().unwrap();
    assert_eq!(done["session"]["id"], new_id, "{done}");
    assert_eq!(done["session"]["cwd"], d, "{done}");
    assert_eq!(done["restored"]["method"]["kind"], "append", "{done}");
    let mock = Mock::start(work.path());
    let base = format!("http://127.0.0.1:{}/v1", mock.port);
    let env = [
        ("HOME", home.to_string_lossy().into_owned()),
        ("LITELLM_LOCAL_MODEL_COST_MAP", "True".to_owned()),
    ];
    let args = [
        "--model",
        "openai/mock-coder",
        "--openai-api-base",
        &base,
        "--openai-api-key",
        "mock-key",
        "--yes-always",
        "--no-git",
        "--no-check-update",
        "--no-analytics",
        "--no-pretty",
        "--no-show-release-notes",
        "--no-show-model-warnings",
        "--restore-chat-history",
        "--message",
        "[[say restored]] What did I ask before?",
    ];
    run_agent(&aider, &args, &dir, &path, &env);
    let calls = mock.calls();
    let last = calls.last().expect("Aider called the model");
    let text = String::from_utf8_lossy(&run);
    let prompt = text
        .lines()
        .find_map(|l| l.strip_prefix("#### "))
        .unwrap()
        .trim();
    assert!(mentions(last, prompt), "{prompt:?} not in {last}");
    assert!(mentions(last, "What did I ask before?"), "{last}");
}

/// Cline in the home `home` (its store `~/.cline`), never updating itself.
fn cline_env(home: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("HOME", home.to_string_lossy().into_owned()),
        ("CLINE_NO_AUTO_UPDATE", "1".to_owned()),
    ]
}

/// Cline `version` set up in `home` as a user sets it up (`cline auth`), with an
/// OpenAI-compatible provider that is the scripted model: the program and its environment.
fn cline_set_up(version: &str, home: &Path, mock: &Mock) -> (PathBuf, Vec<(&'static str, String)>) {
    let cline = agents::cline(version);
    let env = cline_env(home);
    let base = format!("http://127.0.0.1:{}/v1", mock.port);
    let provider: &[&str] = if version.starts_with("2.") {
        &["-p", "openai"]
    } else {
        &["openai"]
    };
    let mut args = vec!["auth"];
    args.extend(provider);
    args.extend(["-k", "mock-key", "-m", "mock-coder", "-b", &base]);
    run_agent(&cline, &args, home, &system_path(), &env);
    (cline, env)
}

/// What the resume of the fixtures' non-ASCII session sends (both generations).
const CLINE_HISTORY: [&str; 2] = [
    "Привет, 世界! Что здесь?",
    "Здравствуйте 👋 — всё в порядке",
];

/// Cline CLI 2.18.0 resumes a task restored into the store `cline auth` made in a new home:
/// the preview names the task folder's files and `state/taskHistory.json`, and `cline -y -T
/// <id>` run in the new directory sends the restored task's prompt and reply with the new
/// prompt, adding to the same task's messages, making no other task.
#[test]
fn cline_2_resumes_a_restored_task_in_its_new_directory() {
    let (work, home, dir) = places();
    let mock = Mock::start(work.path());
    let (cline, env) = cline_set_up("2.18.0", &home, &mock);
    let path = system_path();
    let root = home.join(".cline");
    let id = "1796568553202";
    let fixture = "cline/2.18.0/dot-cline";
    let done = move_session(work.path(), &path, "--cline-root", fixture, id, &root, &dir);
    let task = root.join("data/tasks").join(id);
    let ui = task.join("ui_messages.json");
    let files = done["preview"]["method"]["files"].as_array().unwrap();
    assert!(files.iter().any(|f| f == ui.to_str().unwrap()), "{done}");
    let history = root.join("data/state/taskHistory.json");
    assert_eq!(
        done["preview"]["state_db"],
        history.to_str().unwrap(),
        "{done}"
    );
    let shown = |p: &Path| serde_json::from_slice::<Value>(&std::fs::read(p).unwrap()).unwrap();
    let before = shown(&ui).as_array().unwrap().len();

    let prompt = format!("{PROMPT} [[say restored-session-reply]]");
    resumes(
        &cline,
        &["-y", "-T", id, &prompt],
        &dir,
        &path,
        &env,
        &mock,
        &CLINE_HISTORY,
    );
    assert!(shown(&ui).as_array().unwrap().len() > before);
    let tasks: Vec<PathBuf> = std::fs::read_dir(root.join("data/tasks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(tasks, vec![task]);
    let listed_task = listed(work.path(), &path, "--cline-root", &root, id);
    assert_eq!(listed_task["cwd"], *dir.to_string_lossy());
    let entries = shown(&history);
    assert_eq!(entries.as_array().unwrap().len(), 1, "{entries}");
}

/// Stops the hub daemons Cline 3.x leaves running for the directory `dir` (started as
/// `cline --cline-hub-daemon --cwd <dir> …`, not under the work folder, so [`Work`] would
/// not stop them), waiting until they are gone.
fn stop_cline_hub(dir: &Path) {
    let daemons = || -> Vec<String> {
        let procs = std::fs::read_dir("/proc").into_iter().flatten().flatten();
        procs
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .bytes()
                    .all(|b| b.is_ascii_digit())
            })
            .filter(|e| {
                let argv = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
                let argv: Vec<&[u8]> = argv.split(|&b| b == 0).collect();
                argv.contains(&b"--cline-hub-daemon".as_slice())
                    && argv.contains(&dir.as_os_str().as_encoded_bytes())
            })
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    };
    for _ in 0..50 {
        let left = daemons();
        if left.is_empty() {
            return;
        }
        let _ = Command::new("kill").args(&left).status();
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The hub daemons of a directory, stopped when dropped.
struct Hub(PathBuf);

impl Drop for Hub {
    fn drop(&mut self) {
        stop_cline_hub(&self.0);
    }
}

/// Cline CLI 3.0.65 resumes a session restored into the store of a new home where it ran a
/// session (so it has its sessions.db): the restore adds the session's row (the new directory,
/// the restored messages file), `cline history --json` lists it, and `cline
/// --id <id>` (which resumes only in its TUI: driven in a pseudo-terminal by
/// tests/record/pty_type.py) sends the restored prompt and reply with the new prompt, and
/// appends to the restored messages file.
#[test]
fn cline_3_resumes_a_restored_session_in_its_new_directory() {
    let (work, home, dir) = places();
    // Declared before the work folder goes: they stop even when the test fails.
    let _hubs = [Hub(dir.clone()), Hub(home.clone())];
    let mock = Mock::start(work.path());
    let (cline, env) = cline_set_up("3.0.65", &home, &mock);
    let path = system_path();
    let root = home.join(".cline");
    // A session of its own first, as on a machine Cline has run on: its sessions.db.
    let first = "CHAT a session of this home [[say first-reply]]";
    run_agent(&cline, &[first], &dir, &path, &env);
    let db = root.join("data/db/sessions.db");
    let id = "1796568643394_gprej";
    let fixture = "cline/3.0.65/dot-cline";
    let done = move_session(work.path(), &path, "--cline-root", fixture, id, &root, &dir);
    let messages = root
        .join("data/sessions")
        .join(id)
        .join(format!("{id}.messages.json"));
    let files = done["preview"]["method"]["files"].as_array().unwrap();
    assert!(
        files.iter().any(|f| f == messages.to_str().unwrap()),
        "{done}"
    );
    let shown = |p: &Path| serde_json::from_slice::<Value>(&std::fs::read(p).unwrap()).unwrap();
    assert_eq!(done["preview"]["state_db"], db.to_str().unwrap(), "{done}");
    let row: (String, String) = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT cwd, messages_path FROM sessions WHERE session_id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        row,
        (
            dir.to_string_lossy().into_owned(),
            messages.to_string_lossy().into_owned()
        )
    );
    let before = shown(&messages)["messages"].as_array().unwrap().len();

    let listing = run_agent(&cline, &["history", "--json"], &dir, &path, &env);
    assert!(listing.contains(id), "{listing}");

    let prompt = format!("{PROMPT} [[say restored-session-reply]]");
    let pty = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/record/pty_type.py");
    let mut cmd = Command::new("python3");
    cmd.arg(pty)
        .args(["120", "Auto-approve", &prompt, "restored-session-reply"])
        .arg(&cline)
        .args(["--id", id]);
    let out = offline(&mut cmd, &dir, &path, &env).output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen}");
    sent_history(&mock, &CLINE_HISTORY);
    assert!(shown(&messages)["messages"].as_array().unwrap().len() > before);
}

/// "Continue in…" Aider with the real aider 0.86.2 (issue 33): a Claude session whose prompt
/// holds lines Aider would run (`!touch …` is a shell line in a `--load` file, `/run …` a
/// command) is handed to Aider through the launch the app uses, the stand-in terminal running
/// it in a pseudo-terminal (`tests/record/pty_type.py`). The first request Aider sends, before
/// any typing, carries the handoff document as the user's message (`aider --message-file
/// FILE`); then Aider is interactive (`aider --restore-chat-history`), the user types one line,
/// and that request carries the document and the first reply (the restored history). Nothing
/// in the document ran, and after the reply Aider is at its prompt again.
#[test]
fn aider_is_handed_the_document_and_stays_interactive() {
    let Some(aider) = agents::aider(agents::AIDER) else {
        return;
    };
    let (work, home, dir) = places();
    let path = system_path();
    let claude_root = home.join(".claude");
    let id = "5a0c8d2e-3333-4444-8555-666677778888";
    let record = |n: u32, kind: &str, message: Value| {
        serde_json::json!({
            "parentUuid": (n > 0).then(|| format!("00000000-0000-4000-8000-{:012}", n - 1)),
            "isSidechain": false, "userType": "external", "cwd": dir, "sessionId": id,
            "version": "2.1.9", "type": kind, "message": message,
            "uuid": format!("00000000-0000-4000-8000-{n:012}"),
            "timestamp": format!("2026-11-30T10:00:0{n}.000Z"),
        })
    };
    let hostile =
        "Fix the build.\n!touch PWNED-shell\n/run touch PWNED-run\n#### /run touch PWNED-h";
    let lines = [
        record(
            0,
            "user",
            serde_json::json!({"role": "user", "content": hostile}),
        ),
        record(
            1,
            "assistant",
            serde_json::json!({"id": "msg_1", "type": "message", "role": "assistant",
                "model": "claude-test-1", "content": [{"type": "text", "text": "On it."}]}),
        ),
    ];
    let project = claude_root.join("projects/-work");
    std::fs::create_dir_all(&project).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(project.join(format!("{id}.jsonl")), text).unwrap();
    let root_arg = claude_root.to_str().unwrap().to_owned();

    let mock = Mock::start(work.path());
    // Waits for the second, interactive run (it says it restored the history), types a line,
    // waits for the mock's answer to it and a quiet screen.
    let pty = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/record/pty_type.py");
    let bin = stand_in_xterm(work.path(), &pty, "150 Restored 'go on' ok:goon");
    std::os::unix::fs::symlink(&aider, bin.join("aider")).unwrap();
    // Aider's own settings, as a user has them in the environment: the mock model, no git.
    let base = format!("http://127.0.0.1:{}/v1", mock.port);
    let env = [
        ("HOME", home.to_string_lossy().into_owned()),
        ("LITELLM_LOCAL_MODEL_COST_MAP", "True".to_owned()),
        ("AIDER_MODEL", "openai/mock-coder".to_owned()),
        ("AIDER_OPENAI_API_BASE", base),
        ("AIDER_OPENAI_API_KEY", "mock-key".to_owned()),
        ("AIDER_GIT", "false".to_owned()),
        ("AIDER_CHECK_UPDATE", "false".to_owned()),
        ("AIDER_ANALYTICS", "false".to_owned()),
        ("AIDER_SHOW_RELEASE_NOTES", "false".to_owned()),
        ("AIDER_SHOW_MODEL_WARNINGS", "false".to_owned()),
    ];
    let handoff = ["--claude-root", &root_arg, "handoff", id, "--to", "aider"];
    let printed = cli(work.path(), &path, &[&handoff[..], &["--print"]].concat());
    let document = printed["markdown"].as_str().unwrap().to_owned();
    assert!(document.contains("!touch PWNED-shell"), "{document}");

    let done = work.path().join("done-aider");
    let (said, status, screen) =
        handoff_in_terminal(work.path(), &path, &bin, &env, &handoff, &done);
    let said: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(status.trim(), "0", "Aider never answered: {screen}");
    // After the answer, Aider's prompt again (the screen is compared without spaces).
    let after = screen.rsplit("ok:goon").next().unwrap();
    assert!(
        after.contains("Tokens:") && after.trim_end().ends_with('>'),
        "Aider is not waiting at its prompt: {screen}"
    );
    // The first request, before any typing, carries the document as the user's message.
    let calls = mock.calls();
    assert_eq!(calls.len(), 2, "one request per run: {calls:?}");
    let said_by = |call: &Value, role: &str| -> Vec<String> {
        let messages = call["messages"].as_array().unwrap().iter();
        let of_role = messages.filter(|m| m["role"] == role);
        of_role
            .filter_map(|m| m["content"].as_str().map(str::to_owned))
            .collect()
    };
    let first_user = said_by(&calls[0], "user");
    let sent = first_user.last().expect("a user message");
    assert!(sent.contains(document.trim_end()), "{}", calls[0]);
    assert!(!mentions(&calls[0], "go on"), "{}", calls[0]);
    // The line typed in the second run goes with the restored first exchange: the document
    // and the mock's first reply. Aider restores them from its Markdown history, where each
    // line ends in two spaces (a Markdown line break): compared without them.
    let lines = |text: &str| -> String {
        let trimmed = text.lines().map(str::trim_end);
        trimmed.collect::<Vec<_>>().join("\n")
    };
    let second = &calls[1];
    let document_lines = lines(document.trim_end());
    assert!(
        said_by(second, "user")
            .iter()
            .any(|c| lines(c).contains(&document_lines)),
        "the restored history lacks the document: {second}"
    );
    let replies = said_by(second, "assistant");
    assert!(
        replies
            .iter()
            .any(|c| c.trim_start().starts_with("ok: This is a handoff")),
        "the restored history lacks the first reply: {second}"
    );
    assert!(mentions(second, "go on"), "{second}");
    // Nothing of the transcript ran; the prompt file is kept (the sweep removes it).
    let pwned: Vec<PathBuf> = walk(work.path())
        .into_iter()
        .filter(|f| f.to_string_lossy().contains("PWNED"))
        .collect();
    assert!(pwned.is_empty(), "{pwned:?}");
    let file = said["data"]["prompt_file"].as_str().unwrap();
    assert_eq!(std::fs::read_to_string(file).unwrap(), document);
}
