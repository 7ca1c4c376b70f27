//! One session in two files (a Claude project folder copied beside itself): the bare id is
//! refused as `ambiguous_id` naming both files and saying how to name one; the path of either
//! file names that one for show, export and trash; trashing the copy leaves the original's
//! files byte for byte.

#![cfg(target_os = "linux")]

mod agents;
mod common;

use std::path::{Path, PathBuf};
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

/// The store's two project folders moved to `dir`, as if the session had been run there: the
/// original's folder named as Claude Code names `dir`'s, the copy's beside it with `-copy`, the
/// directory rewritten in every record. The original's file and the copy's.
fn moved_to(store: &SameIdStore, dir: &Path) -> (PathBuf, PathBuf) {
    let folder =
        agent_sessions_core::provider::claude::bundle::claude_project(&dir.to_string_lossy());
    let projects = store.root().join("projects");
    let original = projects.join(&folder);
    let copy = projects.join(format!("{folder}-copy"));
    std::fs::rename(store.original.parent().unwrap(), &original).unwrap();
    std::fs::rename(store.copy.parent().unwrap(), &copy).unwrap();
    for (file, bytes) in snapshot(&projects) {
        let text = String::from_utf8(bytes).unwrap();
        let moved = text.replace("/home/bob/projects/demo", &dir.to_string_lossy());
        // Written now: Claude Code deletes transcripts older than 30 days when it starts.
        std::fs::write(file, moved).unwrap();
    }
    let name = store.original.file_name().unwrap();
    (original.join(name), copy.join(name))
}

/// Claude Code 2.1.332 itself, run as the original's resume command says (in the session's
/// directory), carries on the original and leaves the copy as it was: `claude --resume <id>`
/// names no file, so the same command built for the copy would do the same. So the original's
/// row gets the command as before, and the copy's row is refused (`resume_other_copy`, naming
/// the original) by `show` and by `open --resume`, before a terminal is looked for.
#[test]
#[cfg_attr(
    windows,
    ignore = "runs the real agents, installed from npm as Linux builds"
)]
fn claude_code_resumes_the_original_so_the_copy_is_refused() {
    let store = SameIdStore::create();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("the demo.dir");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    let (original, copy) = moved_to(&store, &dir);
    let (original_arg, copy_arg) = (original.display().to_string(), copy.display().to_string());

    let (out, v) = cli(&store, tmp.path(), &["show", &original_arg, "--json"]);
    assert!(out.status.success(), "{v}");
    let resume = &v["data"]["resume_command"];
    assert_eq!(
        resume["argv"],
        serde_json::json!(["claude", "--resume", store.id])
    );
    assert_eq!(resume["cwd"], *dir.to_string_lossy());

    let (out, v) = cli(&store, tmp.path(), &["show", &copy_arg, "--json"]);
    assert!(out.status.success(), "the copy is still shown: {v}");
    let refused = &v["data"]["resume_command"]["error"];
    assert_eq!(refused["code"], "resume_other_copy", "{v}");
    let open = [
        "open",
        &copy_arg,
        "--resume",
        "--dry-run",
        "--terminal",
        "no-such-terminal",
        "--json",
    ];
    let (out, v) = cli(&store, tmp.path(), &open);
    assert_eq!(out.status.code(), Some(1), "{v}");
    assert_eq!(v["error"]["code"], "resume_other_copy", "{v}");
    for message in [&refused["message"], &v["error"]["message"]] {
        let message = message.as_str().unwrap();
        assert!(
            message.contains(&format!("it would open {original_arg}"))
                && message.contains(&format!("not {copy_arg}")),
            "{message}"
        );
    }

    // The original's command, run by Claude Code in its directory against the scripted model.
    let claude = agents::claude(agents::CLAUDE);
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mock = agents::Mock::start(tmp.path());
    let env = agents::claude_env(&home, store.root(), &mock);
    let (copy_before, original_before) = (
        std::fs::read(&copy).unwrap(),
        std::fs::read(&original).unwrap(),
    );
    let prompt = "CHAT which file goes on?";
    let path = std::env::var("PATH").unwrap_or_default();
    let said = agents::run_agent(
        &claude,
        &["-p", "--resume", store.id, prompt],
        &dir,
        &path,
        &env,
    );
    assert!(said.contains("restored-session-reply"), "{said}");
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        copy_before,
        "the copy is as it was"
    );
    let after = std::fs::read(&original).unwrap();
    assert!(after.starts_with(&original_before) && after.len() > original_before.len());
    let added = String::from_utf8_lossy(&after[original_before.len()..]);
    assert!(added.contains(prompt), "the original carried on: {added}");
}
