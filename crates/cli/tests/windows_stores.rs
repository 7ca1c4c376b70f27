//! Stores a Windows agent writes: made by the test from the Linux fixtures (never committed
//! twice), the project folder named as Claude Code names it on Windows and each record's `cwd`
//! a Windows path, written the two ways Windows treats as one directory. Runs on Linux and, by
//! `scripts/test-windows.sh`, as a Windows program under Wine.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use agent_sessions_test_support::snapshot;
use common::{copy_dir, json_of, run, testdata};

/// The Linux fixture's directory, as its records write it.
const LINUX_CWD: &str = r#""cwd":"/home/bob/projects/demo""#;
/// One directory, two spellings (JSON-escaped): the drive and names' case, a trailing `\`.
const WINDOWS_CWDS: [&str; 2] = [
    r#""cwd":"C:\\Users\\Ann\\proj""#,
    r#""cwd":"c:\\users\\ann\\proj\\""#,
];

/// Claude Code 2.1.332's store, as written on Windows into `root`: sessions alternate
/// between the two spellings of the one directory.
fn windows_claude_store(root: &Path) {
    copy_dir(&testdata("claude/2.1.332/dot-claude"), root);
    let projects = root.join("projects");
    std::fs::rename(
        projects.join("-home-bob-projects-demo"),
        projects.join("C--Users-Ann-proj"),
    )
    .unwrap();
    let mut rewritten = 0;
    for (n, (path, bytes)) in snapshot(&projects).into_iter().enumerate() {
        let text = String::from_utf8(bytes).unwrap();
        if text.contains(LINUX_CWD) {
            let windows = text.replace(LINUX_CWD, WINDOWS_CWDS[n % 2]);
            std::fs::write(path, windows).unwrap();
            rewritten += 1;
        }
    }
    assert!(rewritten > 2, "sessions with each spelling");
}

#[test]
fn a_windows_directory_written_two_ways_is_one_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("claude");
    windows_claude_store(&root);
    let out = run(
        &tmp.path().join("cache"),
        &["scan", "--json", "--claude-root", root.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v = json_of(&out);
    assert_eq!(v["data"]["diagnostics"]["parse_errors"], 0);
    let sessions = v["data"]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 8);
    let field = |name: &str| -> BTreeSet<&str> {
        sessions.iter().filter_map(|s| s[name].as_str()).collect()
    };
    assert_eq!(
        field("cwd"),
        BTreeSet::from([r"C:\Users\Ann\proj", r"c:\users\ann\proj\"]),
        "the agent's spellings are kept as it wrote them"
    );
    assert_eq!(field("dir"), BTreeSet::from([r"C:\Users\Ann\proj"]));
}
