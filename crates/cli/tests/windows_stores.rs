//! Stores a Windows agent writes: made by the test from the Linux fixtures (never committed
//! twice), the project folder named as Claude Code names it on Windows and each record's `cwd`
//! a Windows path, written the two ways Windows treats as one directory. Runs on Linux and, by
//! `scripts/test-windows.sh`, as a Windows program under Wine.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use agent_sessions_test_support::snapshot;
use common::{copy_dir, json_of, run, testdata};
use serde_json::Value;

/// One directory, two spellings (JSON-escaped): the drive and names' case, a trailing `\`.
const WINDOWS_DIRS: [&str; 2] = [r#""C:\\Users\\Ann\\proj""#, r#""c:\\users\\ann\\proj\\""#];

/// Rewrites, in every file under `dir` whose text holds the JSON string `linux` (a Linux
/// fixture's project directory), that string to a Windows spelling of one directory: the files
/// alternate between the two, as sessions of one project started from two shells would.
/// Returns how many files were rewritten.
fn windows_dirs(dir: &Path, linux: &str) -> usize {
    let quoted = format!("\"{linux}\"");
    let mut rewritten = 0;
    for (path, bytes) in snapshot(dir) {
        let text = String::from_utf8(bytes).unwrap();
        if text.contains(&quoted) {
            let windows = text.replace(&quoted, WINDOWS_DIRS[rewritten % 2]);
            std::fs::write(path, windows).unwrap();
            rewritten += 1;
        }
    }
    rewritten
}

/// Claude Code 2.1.332's store, as written on Windows into `root`: the project folder named
/// from the Windows directory, the sessions alternating between its two spellings.
fn windows_claude_store(root: &Path) {
    copy_dir(&testdata("claude/2.1.332/dot-claude"), root);
    let projects = root.join("projects");
    std::fs::rename(
        projects.join("-home-bob-projects-demo"),
        projects.join("C--Users-Ann-proj"),
    )
    .unwrap();
    assert!(windows_dirs(&projects, "/home/bob/projects/demo") > 2);
}

/// Codex 0.63.0's store (one rollout file per session, the `cwd` in its records), as written
/// on Windows into `root`.
fn windows_codex_store(root: &Path) {
    copy_dir(&testdata("codex/0.63.0/dot-codex"), root);
    assert_eq!(
        windows_dirs(&root.join("sessions"), "/home/alice/projects/demo"),
        4
    );
}

/// OpenCode 1.0.98's store (a JSON file per session and per project, the `directory` and
/// `worktree` in them and in tool parts' metadata), as written on Windows into `root`.
fn windows_opencode_store(root: &Path) {
    copy_dir(&testdata("opencode/1.0.98/local-share-opencode"), root);
    let storage = root.join("storage");
    assert!(windows_dirs(&storage, "/home/carol/projects/demo") > 6);
}

/// `scan --json` of one agent's store at `root` (`flag` names its root flag), with no parse
/// error: its sessions.
fn scan(cache: &Path, flag: &str, root: &Path) -> Vec<Value> {
    let out = run(cache, &["scan", "--json", flag, root.to_str().unwrap()]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v = json_of(&out);
    assert_eq!(v["data"]["diagnostics"]["parse_errors"], 0, "{flag}");
    v["data"]["sessions"].as_array().unwrap().clone()
}

/// The values of `name` among `sessions`.
fn field<'a>(sessions: &'a [Value], name: &str) -> BTreeSet<&'a str> {
    sessions.iter().filter_map(|s| s[name].as_str()).collect()
}

/// The sessions of a store made by `store` (read with the root flag `flag`, `count` of them)
/// keep each `cwd` as the agent wrote it and are grouped under one `dir`.
fn one_directory(flag: &str, store: fn(&Path), count: usize) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    store(&root);
    let sessions = scan(&tmp.path().join("cache"), flag, &root);
    assert_eq!(sessions.len(), count);
    assert_eq!(
        field(&sessions, "cwd"),
        BTreeSet::from([r"C:\Users\Ann\proj", r"c:\users\ann\proj\"]),
        "the agent's spellings are kept as it wrote them"
    );
    assert_eq!(
        field(&sessions, "dir"),
        BTreeSet::from([r"C:\Users\Ann\proj"])
    );
}

#[test]
fn a_windows_directory_written_two_ways_is_one_directory() {
    one_directory("--claude-root", windows_claude_store, 8);
}

#[test]
fn codex_sessions_in_a_windows_directory_written_two_ways_are_one_directory() {
    one_directory("--codex-root", windows_codex_store, 4);
}

#[test]
fn opencode_sessions_in_a_windows_directory_written_two_ways_are_one_directory() {
    one_directory("--opencode-root", windows_opencode_store, 6);
}

/// `value` in the golden files' spelling, which the Linux build wrote from the Linux store:
/// a Windows spelling of the project directory is the Linux fixture's `linux`, and a path
/// under `root` is `$ROOT/…` with `/` (a Windows build joins the names below the root with
/// `\`). Anything else is left as it is: a difference there is a difference.
fn linux_spelling(value: &mut Value, root: &Path, linux: &str) {
    match value {
        Value::String(s) => {
            let windows = WINDOWS_DIRS.map(|d| serde_json::from_str::<String>(d).unwrap());
            let root = root.to_str().unwrap();
            if windows.contains(s) {
                *s = linux.to_owned();
            } else if let Some(rest) = s.strip_prefix(root) {
                *s = format!("$ROOT{}", rest.replace('\\', "/"));
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| linux_spelling(v, root, linux)),
        Value::Object(fields) => fields
            .values_mut()
            .for_each(|v| linux_spelling(v, root, linux)),
        _ => {}
    }
}

/// A golden file of `fixture` (`testdata/<agent>/<version>/expected/<rel>`), as JSON.
fn golden(fixture: &str, rel: &str) -> Value {
    let path = testdata(fixture).join("expected").join(rel);
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The CLI's `scan`, `show` and `export --format json` of a Windows-shaped store (read as a
/// Windows program under Wine, and on Linux) are the Linux build's golden output for the Linux
/// store, but for how the paths are spelt.
fn same_json_as_on_linux(fixture: &str, flag: &str, store: fn(&Path), linux: &str, export: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    store(&root);
    let cache = tmp.path().join("cache");
    let r = root.to_str().unwrap();
    let data = |args: &[&str]| {
        let out = run(&cache, &[args, &["--json", flag, r]].concat());
        assert!(out.status.success(), "{args:?}: {}", common::stderr(&out));
        let mut data = json_of(&out)["data"].take();
        linux_spelling(&mut data, &root, linux);
        data
    };

    let mut sessions = data(&["scan"])["sessions"].take();
    let mut want = golden(fixture, "scan.json");
    let by_id = |v: &mut Value| {
        let list = v.as_array_mut().unwrap();
        list.sort_by_key(|s| s["id"].as_str().unwrap().to_owned());
    };
    by_id(&mut sessions);
    by_id(&mut want);
    assert!(sessions == want, "{fixture}: scan differs from Linux's");

    // `show` is the transcript's golden, but for its session: the CLI's is the scan's (with
    // the directory and cost basis a scan finds, which loading one file does not).
    for listed in want.as_array().unwrap() {
        let id = listed["id"].as_str().unwrap();
        let mut shown = data(&["show", id]);
        shown.as_object_mut().unwrap().remove("resume_command");
        assert!(
            shown["session"] == *listed,
            "{fixture} {id}: show's session"
        );
        let mut want = golden(fixture, &format!("show/{id}.json"));
        want["session"] = listed.clone();
        assert!(shown == want, "{fixture} {id}: show differs from Linux's");
    }

    // The export is the document itself (`--json` would report a written file instead).
    let out = run(
        &cache,
        &["export", export, "--format", "json", "--reasoning", flag, r],
    );
    assert!(out.status.success(), "export: {}", common::stderr(&out));
    let mut exported = json_of(&out);
    linux_spelling(&mut exported, &root, linux);
    exported["exported_at"] = Value::Null;
    exported["generator"] = "agent-sessions $VERSION".into();
    let want = golden(fixture, &format!("export/{export}.json"));
    assert!(exported == want, "{fixture}: export differs from Linux's");

    // Search, before the text is indexed (read from the files) and after `index`: the hits
    // of the Linux store itself, searched the same way, but for path spelling.
    let linux_root = testdata(fixture).join(common_store(flag));
    let linux_cache = tmp.path().join("linux-cache");
    let search = |cache: &Path, root: &Path| {
        let args = ["search", "the", "--limit", "1000", "--json", flag];
        let out = run(cache, &[&args[..], &[root.to_str().unwrap()]].concat());
        assert!(out.status.success(), "search: {}", common::stderr(&out));
        let mut hits = json_of(&out)["data"]["hits"].take();
        linux_spelling(&mut hits, root, linux);
        hits
    };
    let want = search(&linux_cache, &linux_root);
    assert!(want.as_array().is_some_and(|h| h.len() > 3), "{want}");
    assert!(
        search(&cache, &root) == want,
        "{fixture}: search differs from Linux's"
    );
    let indexed = data(&["index"]);
    assert_eq!(indexed["pending_text"], 0, "{indexed}");
    let args = ["index", "--json", flag, linux_root.to_str().unwrap()];
    assert!(run(&linux_cache, &args).status.success());
    let want = search(&linux_cache, &linux_root);
    assert!(
        search(&cache, &root) == want,
        "{fixture}: indexed search differs from Linux's"
    );

    // A bundle of the export's session, restored into an empty store in another directory,
    // lists there with that directory, whichever way its records spelt the old one. (Codex's
    // store is files; OpenCode's restore needs the database OpenCode makes on its first run.)
    if flag != "--codex-root" {
        return;
    }
    let bundle = tmp.path().join("s.agent-session.zip");
    let out = run(
        &cache,
        &[
            "bundle",
            "export",
            export,
            "-o",
            bundle.to_str().unwrap(),
            flag,
            r,
        ],
    );
    assert!(
        out.status.success(),
        "bundle export: {}",
        common::stderr(&out)
    );
    let moved = tmp.path().join("moved here");
    std::fs::create_dir_all(&moved).unwrap();
    let moved = dunce::canonicalize(&moved).unwrap();
    let new_root = tmp.path().join("new-store");
    std::fs::create_dir_all(&new_root).unwrap();
    let (b, d, n) = (
        bundle.to_str().unwrap(),
        moved.to_str().unwrap(),
        new_root.to_str().unwrap(),
    );
    let args = [
        "bundle", "import", b, "--dir", d, "--yes", "--json", flag, n,
    ];
    let out = run(&tmp.path().join("cache-2"), &args);
    assert!(
        out.status.success(),
        "bundle import: {}",
        common::stderr(&out)
    );
    let listed = scan(&tmp.path().join("cache-3"), flag, &new_root);
    let restored = listed.iter().find(|s| s["id"] == export).unwrap();
    assert_eq!(
        restored["cwd"].as_str(),
        Some(d),
        "{fixture}: the restored directory"
    );
}

/// The folder of a fixture version that is the agent's root, by its root flag.
fn common_store(flag: &str) -> &'static str {
    match flag {
        "--codex-root" => "dot-codex",
        "--opencode-root" => "local-share-opencode",
        other => panic!("no store for {other}"),
    }
}

#[test]
fn a_windows_codex_store_gives_linux_json_but_for_path_spelling() {
    same_json_as_on_linux(
        "codex/0.63.0",
        "--codex-root",
        windows_codex_store,
        "/home/alice/projects/demo",
        "01a22bc5-669b-7e11-bc53-ef00e1c0e7ab",
    );
}

#[test]
fn a_windows_opencode_store_gives_linux_json_but_for_path_spelling() {
    same_json_as_on_linux(
        "opencode/1.0.98",
        "--opencode-root",
        windows_opencode_store,
        "/home/carol/projects/demo",
        "ses_dd4233f85ffeF6TN3TEhX5oKKw",
    );
}
