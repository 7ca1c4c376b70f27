//! `agent-sessions-cli export`: formats and flags, standard output, `-o` written whole and
//! private, never over an existing file without `--force`, never into an agent's store, and
//! clear errors.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const ID: &str = "669d0c53-3d15-4f40-9830-4e99247562a5";

use agent_sessions_test_support::file_names as names;
use common::{copy_dir, json_of, stderr, stdout};

fn store() -> PathBuf {
    common::testdata("claude/2.0.50/dot-claude")
}

/// The CLI on the Claude fixture store, with a cache of its own and no real home.
fn run(cache: &Path, args: &[&str]) -> Output {
    common::cli(cache, &["export"])
        .args(args)
        .arg("--claude-root")
        .arg(store())
        .output()
        .unwrap()
}

#[test]
fn each_format_goes_to_standard_output_by_id_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let md = run(dir.path(), &["669d0c53", "--format", "md"]);
    assert!(md.status.success(), "{}", stderr(&md));
    let md = stdout(&md);
    assert!(
        md.starts_with("# List the files here and show main.py\n"),
        "{md}"
    );
    assert!(md.contains(&format!("- **Session:** `{ID}`")));
    assert!(md.contains("**Tool `Bash`** · ok"));

    let json = run(dir.path(), &["669d0c53", "--format", "json"]);
    assert!(json.status.success());
    let doc = json_of(&json);
    assert_eq!(doc["schema_version"], "agent-sessions.export.v1");
    assert_eq!(doc["session"]["id"], ID);
    assert!(doc["messages"].as_array().unwrap().len() > 5);

    let html = run(dir.path(), &["669d0c53", "--format", "html"]);
    assert!(html.status.success());
    let html = stdout(&html);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("Content-Security-Policy"));
    assert!(html.trim_end().ends_with("</html>"));
}

#[test]
fn flags_choose_reasoning_tool_output_and_meta() {
    let dir = tempfile::tempdir().unwrap();
    let doc = |extra: &[&str]| {
        let mut args = vec![ID, "--format", "json"];
        args.extend_from_slice(extra);
        let out = run(dir.path(), &args);
        assert!(out.status.success(), "{}", stderr(&out));
        json_of(&out)
    };
    let parts = |d: &Value, kind: &str| -> Vec<Value> {
        d["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["parts"].as_array().unwrap().clone())
            .filter(|p| p["kind"] == kind)
            .collect()
    };
    let metas = |d: &Value| {
        d["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["meta"] == true)
            .count()
    };

    let plain = doc(&[]);
    assert_eq!(
        plain["options"],
        serde_json::json!({"reasoning": false, "tool_output": "trim", "meta": false})
    );
    assert!(parts(&plain, "reasoning").is_empty());
    assert_eq!(metas(&plain), 0);
    assert!(parts(&plain, "tool")
        .iter()
        .all(|t| t["output"].is_string()));

    let all = doc(&["--reasoning", "--tool-output", "full", "--meta"]);
    assert_eq!(all["options"]["tool_output"], "full");
    assert_eq!(parts(&all, "reasoning").len(), 1);
    assert!(metas(&all) > 0, "the fixture has meta records");

    let none = doc(&["--tool-output", "none"]);
    let tools = parts(&none, "tool");
    assert_eq!(tools.len(), 2);
    assert!(tools
        .iter()
        .all(|t| t["output"].is_null() && t["name"].is_string()));

    let bad = run(
        dir.path(),
        &[ID, "--format", "json", "--tool-output", "some"],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("\"some\" is not full, trim or none"),
        "{}",
        stderr(&bad)
    );
    let bad = run(dir.path(), &[ID, "--format", "pdf"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("unknown format \"pdf\"; use md, json or html"));
    let missing = run(dir.path(), &[ID]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("--format"));
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn output_files_are_whole_private_and_never_overwritten_by_accident() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.html");
    let f = file.to_str().unwrap();

    let out = run(cache.path(), &[ID, "--format", "html", "-o", f, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json_of(&out);
    assert_eq!(v["schema_version"], "agent-sessions.cli.v1");
    assert_eq!(v["ok"], true);
    let written = std::fs::read(&file).unwrap();
    assert_eq!(v["data"]["bytes"], written.len() as u64);
    assert_eq!(v["data"]["format"], "html");
    let reported = PathBuf::from(v["data"]["path"].as_str().unwrap());
    assert_eq!(reported, dunce::canonicalize(&file).unwrap());
    assert!(String::from_utf8(written.clone())
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
    #[cfg(unix)]
    assert_eq!(mode(&file), 0o600);

    // Again without --force: refused, the file untouched, a clear sentence and its code.
    let again = run(cache.path(), &[ID, "--format", "md", "-o", f]);
    assert_eq!(again.status.code(), Some(1));
    let err = stderr(&again);
    assert!(
        err.starts_with(&format!("error: {f} already exists and was left as it was")),
        "{err}"
    );
    assert!(stdout(&again).is_empty());
    assert_eq!(std::fs::read(&file).unwrap(), written);
    let again = run(cache.path(), &[ID, "--format", "md", "-o", f, "--json"]);
    let v = json_of(&again);
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], "file_exists");

    // With --force: replaced whole, still private, and the human line says where.
    let forced = run(cache.path(), &[ID, "--format", "md", "-o", f, "--force"]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    let md = std::fs::read_to_string(&file).unwrap();
    assert!(md.starts_with("# List the files here"));
    assert!(stdout(&forced).starts_with("wrote "), "{}", stdout(&forced));
    assert!(stdout(&forced).ends_with(&format!(" ({} bytes)\n", md.len())));
    #[cfg(unix)]
    assert_eq!(mode(&file), 0o600);
    assert_eq!(
        names(dir.path()),
        ["session.html"],
        "no temporary file left"
    );

    // --force alone means nothing without -o.
    let lone = run(cache.path(), &[ID, "--format", "md", "--force"]);
    assert_eq!(lone.status.code(), Some(2));
}

#[test]
fn errors_are_clear_and_leave_nothing_behind() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.md");
    let f = file.to_str().unwrap();

    let out = run(
        cache.path(),
        &["no-such-id", "--format", "md", "-o", f, "--json"],
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["error"]["code"], "session_not_found");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("no-such-id"));
    // Every session of the fixture starts with a hex digit or `agent-`: "" matches them all.
    let out = run(cache.path(), &["", "--format", "md", "--json", "-o", f]);
    assert_eq!(json_of(&out)["error"]["code"], "ambiguous_id");
    assert!(!file.exists());

    let nowhere = dir.path().join("no/such/dir/x.md");
    let out = run(
        cache.path(),
        &[ID, "--format", "md", "-o", nowhere.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with(&format!("error: cannot write {}", nowhere.display())),
        "{}",
        stderr(&out)
    );

    // --json reports on a written file; without -o the document is the output: a usage error.
    let out = run(cache.path(), &[ID, "--format", "json", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty());
    assert!(stderr(&out).contains("needs -o FILE"), "{}", stderr(&out));
    assert!(names(dir.path()).is_empty());
}

/// `-o` into an agent's store is refused even with `--force`, even aimed at the session's own
/// transcript: nothing in the store changes.
#[test]
fn exports_never_go_into_an_agent_store() {
    let cache = tempfile::tempdir().unwrap();
    let copy = tempfile::tempdir().unwrap();
    copy_dir(&store(), copy.path());
    let transcript = copy
        .path()
        .join(format!("projects/-home-bob-projects-demo/{ID}.jsonl"));
    let before = std::fs::read(&transcript).unwrap();
    let empty = Path::new("/nonexistent/agent-sessions-cli-test-home");
    let out = Command::new(env!("CARGO_BIN_EXE_agent-sessions-cli"))
        .args(["export", ID, "--format", "md", "--force", "--json", "-o"])
        .arg(&transcript)
        .arg("--claude-root")
        .arg(copy.path())
        .env("AGENT_SESSIONS_CACHE_DIR", cache.path())
        .env("HOME", empty)
        .env("XDG_DATA_HOME", empty.join("data"))
        .env("CODEX_HOME", empty.join("codex"))
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["error"]["code"], "write", "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("inside the Claude Code store"),
        "{message}"
    );
    assert_eq!(std::fs::read(&transcript).unwrap(), before);
    let dir = transcript.parent().unwrap();
    assert!(names(dir).iter().all(|n| !n.ends_with(".partial")));
}
