//! The CLI contract other tools depend on: flags, the JSON envelope, exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn store(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/claude")
        .join(version)
        .join("dot-claude")
}

fn cli(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agent-sessions-cli"));
    cmd.args(args);
    // Never read the real user's stores from a test.
    let empty = std::env::temp_dir().join("agent-sessions-cli-test-home");
    cmd.env("HOME", &empty)
        .env("CLAUDE_CONFIG_DIR", empty.join("claude"))
        .env("CODEX_HOME", empty.join("codex"))
        .env("XDG_DATA_HOME", empty.join("data"));
    cmd
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
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
    assert!(text.contains("resume: cd /home/bob/projects/demo && claude --resume 669d0c53"));
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

    let bad = cli(&["scan", "--provider", "gemini"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown provider \"gemini\""));
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
    assert!(text.contains(
        "resume: cd /home/alice/projects/demo && codex resume 01a22bc4-d278-7cb2-a307-8a58c76df129"
    ));
}
