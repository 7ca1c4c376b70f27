//! One session in two files (a Claude project folder copied beside itself): the bare id is
//! refused as `ambiguous_id` naming both files and saying how to name one; the path of either
//! file names that one for show, export and trash; trashing the copy leaves the original's
//! files byte for byte.

#![cfg(target_os = "linux")]

mod common;

use std::path::Path;
use std::process::{Command, Output};

use agent_sessions_test_support::{snapshot, SameIdStore};
use serde_json::Value;

/// The CLI on the store, with a home, cache, config and trash of its own under `tmp`.
fn run(store: &SameIdStore, tmp: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(common::BIN);
    common::no_real_home(&mut cmd)
        .args(args)
        .arg("--claude-root")
        .arg(store.root())
        .env("XDG_DATA_HOME", tmp.join("data"))
        .env("AGENT_SESSIONS_CACHE_DIR", tmp.join("cache"))
        .env("AGENT_SESSIONS_CONFIG", tmp.join("config.toml"));
    cmd.output().unwrap()
}

/// [`run`] with `--json`: the output and its envelope.
fn cli(store: &SameIdStore, tmp: &Path, args: &[&str]) -> (Output, Value) {
    let out = run(store, tmp, args);
    let v = common::json_of(&out);
    (out, v)
}

#[test]
fn the_bare_id_is_ambiguous_and_a_file_names_one() {
    let store = SameIdStore::create();
    let tmp = tempfile::tempdir().unwrap();
    let (out, v) = cli(&store, tmp.path(), &["scan", "--json"]);
    assert!(out.status.success(), "{v}");
    let same = v["data"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["id"] == store.id)
        .count();
    assert_eq!(same, 2, "both files are listed");

    let written = tmp.path().join("out.md").display().to_string();
    let export = ["export", store.id, "--format", "md", "-o", &written];
    for command in [&["show", store.id][..], &export] {
        let (out, v) = cli(&store, tmp.path(), &[command, &["--json"]].concat());
        assert_eq!(out.status.code(), Some(1), "{v}");
        assert_eq!(v["error"]["code"], "ambiguous_id");
        let message = v["error"]["message"].as_str().unwrap();
        for file in [&store.original, &store.copy] {
            assert!(message.contains(&file.display().to_string()), "{message}");
        }
        assert!(message.contains("give the path of its file"), "{message}");
    }

    for (file, own, other) in [
        (&store.original, store.original_text, store.copy_text),
        (&store.copy, store.copy_text, store.original_text),
    ] {
        let file = file.display().to_string();
        for command in [&["show", &file][..], &["export", &file, "--format", "md"]] {
            let out = run(&store, tmp.path(), command);
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{command:?}: {text}");
            assert!(
                text.contains(own) && !text.contains(other),
                "{command:?}: {text}"
            );
        }
    }
}

#[test]
fn trashing_the_copy_by_its_file_leaves_the_original() {
    let store = SameIdStore::create();
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("config.toml"),
        "[actions]\nallow_delete = true\n",
    )
    .unwrap();
    let (out, v) = cli(&store, tmp.path(), &["trash", store.id, "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{v}");
    assert_eq!(v["error"]["code"], "ambiguous_id", "refused, nothing moved");

    let original_folder = store.original.parent().unwrap();
    let before = snapshot(original_folder);
    let copy = store.copy.display().to_string();
    let args = ["trash", &copy, "--with-subagents", "--yes", "--json"];
    let (out, v) = cli(&store, tmp.path(), &args);
    assert!(out.status.success(), "{v}");
    assert!(!store.copy.exists());
    assert_eq!(
        snapshot(original_folder),
        before,
        "the original is untouched"
    );
    let (_, v) = cli(&store, tmp.path(), &["show", store.id, "--json"]);
    assert_eq!(
        v["ok"], true,
        "one file holds it now: the id names it ({v})"
    );
}
