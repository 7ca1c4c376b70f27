//! The CLI contract other tools depend on: flags, the JSON envelope, exit codes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use agent_sessions_core::provider::registry::AGENTS;
use common::json_of;

fn store(version: &str) -> PathBuf {
    common::testdata("claude").join(version).join("dot-claude")
}

/// A cache directory of its own for each command, unless a test shares one on purpose;
/// removed when dropped, like everything else the tests make.
fn fresh_cache() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("agent-sessions-cli-test-")
        .tempdir()
        .unwrap()
}

/// A command with a cache of its own, which lives as long as the command.
struct Cli {
    cmd: Command,
    _cache: tempfile::TempDir,
}

impl std::ops::Deref for Cli {
    type Target = Command;
    fn deref(&self) -> &Command {
        &self.cmd
    }
}

impl std::ops::DerefMut for Cli {
    fn deref_mut(&mut self) -> &mut Command {
        &mut self.cmd
    }
}

fn cli(args: &[&str]) -> Cli {
    let cache = fresh_cache();
    Cli {
        cmd: cli_with_cache(cache.path(), args),
        _cache: cache,
    }
}

/// Never reads the real user's stores from a test: nothing exists under its home.
fn cli_with_cache(cache: &Path, args: &[&str]) -> Command {
    common::cli(cache, args)
}

#[test]
fn scan_json_follows_the_envelope_contract() {
    let root = store("2.1.332");
    let out = cli(&["scan", "--json", "--claude-root", root.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = json_of(&out);
    assert_eq!(v["schema_version"], "agent-sessions.cli.v1");
    assert_eq!(v["ok"], true);
    assert!(v["warnings"].is_array());
    assert_eq!(v["data"]["diagnostics"]["parse_errors"], 0);
    let sessions = v["data"]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 8);
    let keys = [
        "provider",
        "id",
        "parent_id",
        "cwd",
        "repo_root",
        "title",
        "model",
        "created_at",
        "updated_at",
        "counts",
        "tokens",
        "cost_usd",
        "archived",
        "live",
        "source_path",
        "format_version",
    ];
    for s in sessions {
        for k in keys {
            assert!(s.get(k).is_some(), "session lacks {k}: {s}");
        }
        for k in ["user", "assistant", "tool_calls"] {
            assert!(s["counts"][k].is_u64());
        }
        assert!(s["updated_at"].as_str().unwrap().ends_with('Z'));
    }
    let times: Vec<&str> = sessions
        .iter()
        .map(|s| s["updated_at"].as_str().unwrap())
        .collect();
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, sorted, "not newest first");
    let renamed = sessions
        .iter()
        .find(|s| s["id"] == "ceefe47d-84be-4483-8ce5-5f829cfd22c9")
        .unwrap();
    assert_eq!(renamed["title"], "my-demo-session");
    assert_eq!(renamed["format_version"], "2.1.332");
    assert!(renamed["cost_usd"].as_f64().unwrap() > 0.0);
    let child = sessions
        .iter()
        .find(|s| s["id"] == "agent-ab351964a1d85ae3b")
        .unwrap();
    assert_eq!(child["parent_id"], "3783a6bc-cd8d-4c58-9da5-ce5411d3487a");
}

#[test]
fn scan_text_is_an_aligned_table() {
    let root = store("2.1.9");
    let out = cli(&["scan", "--claude-root", root.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("UPDATED"));
    let agent_col = lines[0].find("AGENT").unwrap();
    for l in &lines[1..8] {
        assert_eq!(l.find("claude"), Some(agent_col), "{l}");
    }
    assert_eq!(lines[8], "7 sessions");
}

#[test]
fn a_missing_explicit_root_is_exit_2_with_a_clear_error() {
    let out = cli(&["scan", "--json", "--claude-root", "/no/such/dir"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v = json_of(&out);
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], "root_missing");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("/no/such/dir"));

    let out = cli(&["scan", "--claude-root", "/no/such/dir"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: the claude root /no/such/dir does not exist"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
}

#[test]
fn missing_default_roots_are_simply_empty() {
    let out = cli(&["scan", "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    assert_eq!(v["data"]["sessions"].as_array().unwrap().len(), 0);
}

#[test]
fn show_prints_the_whole_transcript() {
    let root = store("2.0.50");
    let root = root.to_str().unwrap();
    let out = cli(&["show", "669d0c53", "--json", "--claude-root", root])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = json_of(&out);
    let data = &v["data"];
    assert_eq!(
        data["session"]["id"],
        "669d0c53-3d15-4f40-9830-4e99247562a5"
    );
    assert_eq!(data["session"]["counts"]["user"], 3);
    let counted_users = data["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user" && m["counted"] == true)
        .count();
    assert_eq!(counted_users, 3);
    assert_eq!(data["resume_command"]["argv"][0], "claude");
    assert_eq!(
        data["resume_command"]["argv"][2],
        "669d0c53-3d15-4f40-9830-4e99247562a5"
    );

    let out = cli(&["show", "669d0c53", "--claude-root", root])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("CHAT and after compaction?"));
    assert!(text.contains("context compacted (manual)"));
    // This system's shell: PowerShell on Windows (the suite runs there under Wine too).
    let resume = if cfg!(windows) {
        "resume: Set-Location -LiteralPath '/home/bob/projects/demo'; if ($?) { & claude --resume '669d0c53"
    } else {
        "resume: cd -- /home/bob/projects/demo && claude --resume 669d0c53"
    };
    assert!(text.contains(resume), "{text}");
}

#[test]
fn show_of_an_unknown_id_fails_cleanly() {
    let root = store("2.0.50");
    let out = cli(&[
        "show",
        "nope",
        "--json",
        "--claude-root",
        root.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_of(&out)["error"]["code"], "session_not_found");
}

#[test]
fn roots_repeat_and_providers_filter() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
    let c1 = base.join("claude/2.1.9/dot-claude");
    let c2 = base.join("claude/2.1.332/dot-claude");
    let x = base.join("codex/0.171.0/dot-codex");
    let args = [
        "scan",
        "--json",
        "--claude-root",
        c1.to_str().unwrap(),
        "--claude-root",
        c2.to_str().unwrap(),
        "--codex-root",
        x.to_str().unwrap(),
    ];
    let all = json_of(&cli(&args).output().unwrap());
    assert_eq!(all["data"]["sessions"].as_array().unwrap().len(), 7 + 8 + 6);
    let mut only = args.to_vec();
    only.extend(["--provider", "codex"]);
    let codex = json_of(&cli(&only).output().unwrap());
    let sessions = codex["data"]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 6);
    assert!(sessions.iter().all(|s| s["provider"] == "codex"));

    let bad = cli(&["scan", "--provider", "vim"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown provider \"vim\""));
}

#[test]
fn show_works_for_codex_sessions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/codex/0.171.0/dot-codex");
    let out = cli(&[
        "show",
        "01a22bc4-d278",
        "--codex-root",
        root.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("PATCH: create hello.txt with hello world"));
    assert!(text.contains("add hello.txt +1 -0"));
    let resume = if cfg!(windows) {
        "resume: Set-Location -LiteralPath '/home/alice/projects/demo'; if ($?) { & codex resume '01a22bc4-d278-7cb2-a307-8a58c76df129' }"
    } else {
        "resume: cd -- /home/alice/projects/demo && codex resume 01a22bc4-d278-7cb2-a307-8a58c76df129"
    };
    assert!(text.contains(resume), "{text}");
}

#[test]
fn search_json_follows_the_contract() {
    let root = store("2.1.332");
    let out = cli(&[
        "search",
        "my-demo-session",
        "--json",
        "--claude-root",
        root.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    let hits = v["data"]["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    for k in [
        "session_id",
        "provider",
        "message_id",
        "title",
        "snippet",
        "score",
        "source_path",
    ] {
        assert!(hits[0].get(k).is_some(), "hit lacks {k}");
    }
    assert_eq!(
        hits[0]["session_id"],
        "ceefe47d-84be-4483-8ce5-5f829cfd22c9"
    );
    // The hit names its own file (one id can be in two files).
    let file = std::path::PathBuf::from(hits[0]["source_path"].as_str().unwrap());
    assert!(file.starts_with(&root), "{file:?} outside {root:?}");
    assert!(
        file.ends_with("ceefe47d-84be-4483-8ce5-5f829cfd22c9.jsonl"),
        "{file:?}"
    );

    let bad = cli(&[
        "search",
        "\"open",
        "--json",
        "--claude-root",
        root.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(json_of(&bad)["error"]["code"], "bad_query");
}

/// `index` lists and indexes everything, says how long each step took, and has nothing left
/// to do the second time; a search after it reads nothing directly.
#[test]
fn index_brings_list_and_text_up_to_date_with_timings() {
    let cache = fresh_cache();
    let root = store("2.1.332");
    let r = root.to_str().unwrap();
    let run = |args: &[&str]| json_of(&cli_with_cache(cache.path(), args).output().unwrap());
    let before = run(&["search", "hello-from-tool", "--json", "--claude-root", r]);
    assert!(
        before["data"]["read_directly"].as_u64().unwrap() > 0,
        "{before}"
    );
    let first = run(&["index", "--json", "--claude-root", r]);
    assert_eq!(first["ok"], true, "{first}");
    let data = &first["data"];
    let listed = run(&["scan", "--json", "--claude-root", r]);
    let sessions = listed["data"]["sessions"].as_array().unwrap().len();
    assert_eq!(data["sessions"], sessions);
    assert_eq!(data["changed"], 0, "the search before listed them");
    assert_eq!(data["text_indexed"], sessions);
    assert_eq!(data["pending_text"], 0);
    let t = &data["timings_ms"];
    let (list, text, total) = (
        t["list"].as_f64().unwrap(),
        t["text"].as_f64().unwrap(),
        t["total"].as_f64().unwrap(),
    );
    assert!(
        list > 0.0 && text >= 0.0 && (total - list - text).abs() < 0.2,
        "{t}"
    );
    let again = run(&["index", "--json", "--claude-root", r]);
    assert_eq!(again["data"]["changed"], 0);
    assert_eq!(again["data"]["text_indexed"], 0);
    let after = run(&["search", "hello-from-tool", "--json", "--claude-root", r]);
    assert_eq!(after["data"]["read_directly"], 0);
    // The same messages and snippets (scores differ: BM25 over the index, not the sessions read).
    let found = |v: &Value| {
        let mut hits: Vec<String> = v["data"]["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| format!("{} {} {}", h["session_id"], h["message_id"], h["snippet"]))
            .collect();
        hits.sort();
        hits
    };
    assert!(!found(&after).is_empty());
    assert_eq!(found(&after), found(&before));
}

#[test]
fn cache_path_clear_and_diagnostics() {
    let cache = fresh_cache();
    let root = store("2.1.9");
    let r = root.to_str().unwrap();
    let path = json_of(
        &cli_with_cache(
            cache.path(),
            &["cache", "path", "--json", "--claude-root", r],
        )
        .output()
        .unwrap(),
    );
    let path = PathBuf::from(path["data"]["path"].as_str().unwrap());
    assert!(path.starts_with(&cache));
    assert!(!path.exists());
    assert!(cli_with_cache(cache.path(), &["scan", "--claude-root", r])
        .output()
        .unwrap()
        .status
        .success());
    assert!(path.exists(), "scan reads through the cache by default");
    let d = json_of(
        &cli_with_cache(cache.path(), &["diagnostics", "--json", "--claude-root", r])
            .output()
            .unwrap(),
    );
    assert_eq!(d["data"]["parse_errors"], 0);
    assert_eq!(d["data"]["format_versions"][0]["format_version"], "2.1.9");
    let cleared = json_of(
        &cli_with_cache(cache.path(), &["cache", "clear", "--json"])
            .output()
            .unwrap(),
    );
    assert!(!cleared["data"]["removed"].as_array().unwrap().is_empty());
    assert!(!path.exists());
    let nocache = fresh_cache();
    let unused = nocache.path().join("cache");
    assert!(
        cli_with_cache(&unused, &["scan", "--no-cache", "--claude-root", r])
            .output()
            .unwrap()
            .status
            .success()
    );
    assert!(!unused.exists(), "--no-cache creates no cache");
}

/// Builds a Claude store big enough that a debug build spends a while scanning and indexing it.
fn big_store(dir: &Path) {
    let src = store("2.1.332").join("projects/-home-bob-projects-demo");
    for p in 0..6 {
        let project = dir.join(format!("projects/-p{p}"));
        std::fs::create_dir_all(&project).unwrap();
        for (i, f) in std::fs::read_dir(&src).unwrap().flatten().enumerate() {
            if f.path().extension().is_some_and(|e| e == "jsonl") {
                for copy in 0..12 {
                    let id = format!("{p:08x}-{i:04x}-4000-8000-{copy:012x}");
                    std::fs::copy(f.path(), project.join(format!("{id}.jsonl"))).unwrap();
                }
            }
        }
    }
}

/// Killing the CLI mid-scan or mid-index loses nothing: the next run's list and search equal a
/// clean run's, and an `index` after it completes the text index.
#[test]
fn a_kill_mid_scan_or_mid_index_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("claude");
    big_store(&root);
    let r = root.to_str().unwrap();
    let search = [
        "search",
        "hello-from-tool",
        "--limit",
        "1000",
        "--json",
        "--claude-root",
        r,
    ];
    let run = |cache: &Path, args: &[&str]| json_of(&cli_with_cache(cache, args).output().unwrap());
    let clean_cache = fresh_cache();
    let clean = run(clean_cache.path(), &["scan", "--json", "--claude-root", r]);
    let clean_hits = run(clean_cache.path(), &search);
    let direct = json_of(
        &cli(&["scan", "--json", "--no-cache", "--claude-root", r])
            .output()
            .unwrap(),
    );
    assert_eq!(clean["data"]["sessions"], direct["data"]["sessions"]);

    let mut killed = 0;
    // Every other delay as a Windows program: each run here starts the CLI four times, and
    // under Wine each start costs a second or two (the test took three minutes there).
    let delays = [5u64, 20, 40, 80, 120, 200, 300, 450, 700];
    let step = if cfg!(windows) { 2 } else { 1 };
    for (i, delay) in delays.iter().step_by(step).enumerate() {
        let cache = fresh_cache();
        // Killed while listing, or while indexing text (`index` lists, then indexes).
        let command = if i % 2 == 0 { "scan" } else { "index" };
        let mut args = vec![command];
        args.extend(["--claude-root", r]);
        let mut child = cli_with_cache(cache.path(), &args)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(*delay));
        let _ = child.kill();
        let status = child.wait().unwrap();
        killed += usize::from(!status.success());
        let after = json_of(
            &cli_with_cache(cache.path(), &["scan", "--json", "--claude-root", r])
                .output()
                .unwrap(),
        );
        assert_eq!(
            after["data"]["sessions"], clean["data"]["sessions"],
            "after a kill at {delay} ms"
        );
        let hits = run(cache.path(), &search);
        assert_eq!(
            hits["data"]["hits"].as_array().unwrap().len(),
            clean_hits["data"]["hits"].as_array().unwrap().len(),
            "after a kill at {delay} ms"
        );
        let indexed = run(cache.path(), &["index", "--json", "--claude-root", r]);
        assert_eq!(indexed["data"]["pending_text"], 0, "{indexed}");
        let hits = run(cache.path(), &search);
        assert_eq!(hits["data"]["read_directly"], 0, "all from the index now");
        assert_eq!(
            hits["data"]["hits"].as_array().unwrap().len(),
            clean_hits["data"]["hits"].as_array().unwrap().len(),
            "after a kill at {delay} ms and an index"
        );
    }
    assert!(
        killed >= 3,
        "only {killed} runs were killed before they finished"
    );
}

/// Transcript text reaches a terminal without its control sequences: an escape in a prompt or a
/// directory name is shown, not obeyed.
#[test]
fn show_prints_no_terminal_control_sequences() {
    let store = tempfile::tempdir().unwrap();
    let project = store.path().join("projects/-tmp-x");
    std::fs::create_dir_all(&project).unwrap();
    let id = "11111111-2222-4333-8444-555555555555";
    let record = serde_json::json!({
        "type": "user", "uuid": "u1", "sessionId": id,
        "cwd": "/tmp/x\u{1b}]0;pwned\u{7}",
        "timestamp": "2026-11-30T10:00:00Z",
        "message": {"role": "user", "content": "hi\u{1b}]52;c;cm0gLXJmIH4=\u{7} there\r\u{202e}"}
    });
    std::fs::write(project.join(format!("{id}.jsonl")), format!("{record}\n")).unwrap();
    let root = store.path().to_str().unwrap();
    let out = cli(&["show", id, "--claude-root", root]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("hi\\u{1b}]52;c;cm0gLXJmIH4=\\u{7} there"),
        "{text}"
    );
    assert!(
        !text
            .chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "{text:?}"
    );
}

/// `show --json` streams the transcript (messages serialized as they are read) and still prints
/// exactly the golden transcript of every session of a fixture store, `resume_command` aside.
/// A golden file's `$ROOT/a/b` at `root`, joined as the provider joins it: a Windows root is
/// spelt with `\` (which the golden text cannot simply stand in for: JSON escapes it), and
/// so are the names after it.
fn rooted(golden: &str, root: &Path) -> PathBuf {
    let rest = golden.strip_prefix("$ROOT/").expect("a path under $ROOT");
    rest.split('/')
        .fold(root.to_path_buf(), |path, name| path.join(name))
}

#[test]
fn show_json_streams_the_golden_transcript() {
    for version in ["2.1.332", "1.0.30"] {
        let root = store(version);
        let r = root.to_str().unwrap();
        let golden = root.join("../expected/show");
        let mut checked = 0;
        for file in std::fs::read_dir(&golden).unwrap().flatten() {
            let name = file.file_name().into_string().unwrap();
            let id = name.trim_end_matches(".json");
            let out = cli(&["show", id, "--json", "--no-cache", "--claude-root", r])
                .output()
                .unwrap();
            assert!(out.status.success(), "{id}");
            let mut data = json_of(&out)["data"].take();
            data.as_object_mut().unwrap().remove("resume_command");
            let want = std::fs::read_to_string(file.path()).unwrap();
            let mut want: Value = serde_json::from_str(&want).unwrap();
            let source = &mut want["session"]["source_path"];
            *source = rooted(source.as_str().unwrap(), &root)
                .to_str()
                .unwrap()
                .into();
            assert!(data == want, "{version} {id}: not the golden transcript");
            checked += 1;
        }
        assert!(checked > 3, "{version}: {checked}");
    }
}

#[test]
fn root_kind_dir_adds_a_root_like_the_agents_own_flag() {
    let root = store("2.1.332");
    let dir = root.to_str().unwrap();
    let sessions = |args: &[&str]| {
        let out = cli(args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        json_of(&out)["data"]["sessions"].clone()
    };
    let by_flag = sessions(&["scan", "--json", "--claude-root", dir]);
    assert!(!by_flag.as_array().unwrap().is_empty());
    let by_root = sessions(&["scan", "--json", "--root", &format!("claude={dir}")]);
    assert_eq!(by_root, by_flag);
    let out = cli(&["scan", "--json", "--root", &format!("nope={dir}")])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown provider \"nope\""));
    let out = cli(&["scan", "--json", "--root", dir]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not KIND=DIR"));
}

#[test]
fn agents_lists_the_registry_with_the_roots_in_effect() {
    let root = store("2.1.332");
    let dir = root.to_str().unwrap();
    let out = cli(&["agents", "--json", "--root", &format!("claude={dir}")])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    let agents = v["data"]["agents"].as_array().unwrap();
    let names: Vec<&str> = agents.iter().map(|a| a["name"].as_str().unwrap()).collect();
    let registry: Vec<&str> = AGENTS.iter().map(|a| a.name()).collect();
    assert_eq!(names, registry);
    assert_eq!(names[..3], ["claude", "codex", "opencode"]);
    assert_eq!(agents[0]["label"], "Claude Code");
    assert_eq!(agents[0]["env_var"], "CLAUDE_CONFIG_DIR");
    assert_eq!(agents[0]["roots"], serde_json::json!([dir]));
    // Each action the agent has, or why not (the registry's capabilities; docs/agents.md).
    let action = |agent: &str, name: &str| {
        let a = agents.iter().find(|a| a["name"] == agent).unwrap();
        let all = a["actions"].as_array().unwrap();
        all.iter().find(|x| x["action"] == name).unwrap().clone()
    };
    assert_eq!(action("claude", "trash")["has"], true);
    assert_eq!(action("claude", "delete")["has"], false);
    let copy = action("opencode", "restore as a copy");
    assert_eq!(copy["has"], false);
    assert!(copy["why"]
        .as_str()
        .unwrap()
        .contains("OpenCode alone makes its ids"));
    // The others read their variables' folders (set by the test harness: each agent's
    // variable is `<empty home>/<name>`), with the folder under it the agent uses.
    for (shown, agent) in agents.iter().zip(AGENTS).skip(1) {
        let mut want = Path::new(common::EMPTY_HOME).join(agent.name());
        want.extend(agent.env_subdir);
        assert_eq!(
            shown["roots"],
            serde_json::json!([want]),
            "{}",
            agent.name()
        );
    }
}

/// Every agent of the registry has its `--<name>-root DIR` flag (made from the registry), with
/// its name and store in `--help`; each flag gives that agent, and only it, the directory.
#[test]
fn every_agent_has_its_root_flag() {
    let help = cli(&["--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    for (i, agent) in AGENTS.iter().enumerate() {
        let flag = format!("--{}-root", agent.name());
        let line = help.lines().find(|l| l.contains(&flag));
        let line = line.unwrap_or_else(|| panic!("--help has no {flag}:\n{help}"));
        assert!(
            line.contains(agent.label) && line.contains(agent.env_var),
            "{line}"
        );
        let dir = tempfile::tempdir().unwrap();
        let out = cli(&["agents", "--json", &flag, dir.path().to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::stderr(&out));
        let v = json_of(&out);
        let agents = v["data"]["agents"].as_array().unwrap();
        assert_eq!(
            agents[i]["roots"],
            serde_json::json!([dir.path()]),
            "{flag}"
        );
        for (j, other) in agents.iter().enumerate().filter(|&(j, _)| j != i) {
            assert_ne!(
                other["roots"], agents[i]["roots"],
                "{flag} moved {j}'s roots"
            );
        }
    }
}

/// `log --follow` of a session no running agent holds prints its timeline and ends at once,
/// saying why on stderr (a user tailing a file being written would wait for more otherwise).
#[test]
fn log_follow_of_an_ended_session_says_it_has_ended() {
    let root = store("2.1.332");
    let out = cli(&[
        "--claude-root",
        root.to_str().unwrap(),
        "log",
        "9d22e384",
        "--follow",
    ])
    .output()
    .unwrap();
    assert!(out.status.success());
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("session_end"), "{printed}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("no running agent holds this session"),
        "{said}"
    );
}

/// Aider's runs are found under `--aider-root`, and, with no root, in the directory the CLI
/// runs in (a subfolder of the repository whose history it is): `scan --provider aider`.
#[test]
fn aider_runs_are_found_by_root_and_by_the_current_directory() {
    let fixture = common::testdata("aider").join("0.86.2");
    let count = |out: std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        json_of(&out)["data"]["sessions"].as_array().unwrap().len()
    };
    let root = fixture.to_str().unwrap();
    let by_root = cli(&[
        "scan",
        "--json",
        "--provider",
        "aider",
        "--aider-root",
        root,
    ]);
    assert_eq!(count(by_root.cmd_output()), 6);
    // The demo repository holds five runs; the CLI runs in a folder below it.
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("demo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    let history = fixture.join("demo/.aider.chat.history.md");
    std::fs::copy(&history, repo.join(".aider.chat.history.md")).unwrap();
    let mut here = cli(&["scan", "--json", "--provider", "aider", "--no-cache"]);
    here.current_dir(repo.join("src"));
    assert_eq!(count(here.cmd_output()), 5);
}

impl Cli {
    fn cmd_output(mut self) -> std::process::Output {
        self.cmd.output().unwrap()
    }
}
