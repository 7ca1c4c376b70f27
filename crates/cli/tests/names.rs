//! Names the CLI does not choose (issue 29): store files and folders whose names are not UTF-8
//! (Linux allows any bytes but `/` and NUL) are sessions like any other, and a blob key that
//! tries to be a path names nothing.
#![cfg(unix)]

mod common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;
use serde_json::Value;

/// A Claude session with a spilled tool result (`tool-results/bd1gkvvug.txt`).
const SPILLED: &str = "5fec8eab-4b33-416d-b6fa-02f90e2a8cfc";
/// A second Claude session.
const OTHER: &str = "67e40764-2970-47cf-8c8e-1638ddecc58d";
const PROJECT: &str = "projects/-home-bob-projects-demo";

fn name(bytes: &[u8]) -> &OsStr {
    OsStr::from_bytes(bytes)
}

/// A copy of the Claude fixture in `tmp/claude` with two more sessions: `bad\xff.jsonl` (a
/// copy of [`SPILLED`] with its side folder, so its blob is there too) beside the others, and
/// a copy of [`OTHER`] in a project folder named `-home-\xfe` (not UTF-8 either). Returns the
/// store and the first copy's file.
fn claude_store(tmp: &Path) -> (PathBuf, PathBuf) {
    let store = tmp.join("claude");
    copy_dir(&testdata("claude/2.1.332/dot-claude"), &store);
    let project = store.join(PROJECT);
    let bad = project.join(name(b"bad\xff.jsonl"));
    std::fs::copy(project.join(format!("{SPILLED}.jsonl")), &bad).unwrap();
    copy_dir(&project.join(SPILLED), &project.join(name(b"bad\xff")));
    let folder = store.join("projects").join(name(b"-home-\xfe"));
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(
        project.join(format!("{OTHER}.jsonl")),
        folder.join(format!("{OTHER}.jsonl")),
    )
    .unwrap();
    (store, bad)
}

/// A scratch folder holding a copy of the fixture store `fixture` (under `testdata/`) as
/// `store`, which a test renames things in; the cache goes beside it.
fn scratch(fixture: &str, store: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(store);
    copy_dir(&testdata(fixture), &dir);
    (tmp, dir)
}

/// The CLI over `roots` with its cache in `cache`.
fn run_over(cache: &Path, args: &[&str], roots: &[(&str, &Path)]) -> Output {
    let mut cmd = cli(cache, args);
    for (flag, dir) in roots {
        cmd.arg(flag).arg(dir);
    }
    cmd.output().unwrap()
}

/// A command that succeeded, as JSON: no panic (exit 101), no "damaged" cache.
fn ok(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(out)
}

/// The listed sessions: (id, source path as the JSON shows it).
fn listed(scan: &Value) -> Vec<(String, String)> {
    let sessions = scan["data"]["sessions"].as_array().unwrap();
    sessions
        .iter()
        .map(|s| {
            let text = |k: &str| s[k].as_str().unwrap().to_owned();
            (text("id"), text("source_path"))
        })
        .collect()
}

#[test]
fn claude_sessions_whose_names_are_not_utf8_are_sessions_like_any_other() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, bad) = claude_store(tmp.path());
    let cache = tmp.path().join("cache");
    let roots = [("--claude-root", store.as_path())];
    let fixture_count = {
        let fixture = testdata("claude/2.1.332/dot-claude");
        let out = run_over(
            &tmp.path().join("c0"),
            &["scan", "--json"],
            &[("--claude-root", &fixture)],
        );
        listed(&ok(&out)).len()
    };

    // Listed with the others (the JSON's path lossy, for display), nothing reported.
    let scan = ok(&run_over(&cache, &["scan", "--json"], &roots));
    let sessions = listed(&scan);
    assert_eq!(sessions.len(), fixture_count + 2, "{sessions:?}");
    let shown = bad.to_string_lossy().into_owned();
    assert!(
        sessions.contains(&("bad\u{fffd}".to_owned(), shown.clone())),
        "{sessions:?}"
    );
    let in_folder = sessions.iter().filter(|(id, _)| id == OTHER).count();
    assert_eq!(
        in_folder, 2,
        "the copy in the folder not named in UTF-8: {sessions:?}"
    );
    assert_eq!(
        scan["data"]["diagnostics"]["items"],
        Value::Array(Vec::new())
    );
    // The next run reads the cache it wrote, and without the cache the same list.
    assert_eq!(
        listed(&ok(&run_over(&cache, &["scan", "--json"], &roots))),
        sessions
    );
    let direct = ok(&run_over(&cache, &["scan", "--json", "--no-cache"], &roots));
    let mut direct = listed(&direct);
    let mut cached = sessions.clone();
    direct.sort();
    cached.sort();
    assert_eq!(direct, cached);

    // Shown by its id and by the path the list shows; searched; counted; exported.
    let show = ok(&run_over(
        &cache,
        &["show", "--json", "bad\u{fffd}"],
        &roots,
    ));
    assert_eq!(show["data"]["session"]["source_path"], shown.as_str());
    assert!(!show["data"]["messages"].as_array().unwrap().is_empty());
    let by_path = ok(&run_over(&cache, &["show", "--json", &shown], &roots));
    assert_eq!(by_path["data"]["session"]["id"], "bad\u{fffd}");
    let search = ok(&run_over(&cache, &["search", "--json", "BIGOUT"], &roots));
    let hits = search["data"]["hits"].as_array().unwrap();
    assert!(
        hits.iter().any(|h| h["session_id"] == "bad\u{fffd}"),
        "{search}"
    );
    let stats = ok(&run_over(&cache, &["stats", "--json"], &roots));
    assert_eq!(
        stats["data"]["total"]["sessions"],
        fixture_count + 2,
        "{stats}"
    );
    let md = run_over(&cache, &["export", "--format", "md", "bad\u{fffd}"], &roots);
    assert!(md.status.success(), "{md:?}");
    assert!(String::from_utf8_lossy(&md.stdout).contains("BIGOUT"));

    // Its spilled tool result, from its own side folder (also not named in UTF-8).
    let key = "tool-results/bd1gkvvug.txt";
    let blob = run_over(&cache, &["blob", "bad\u{fffd}", key], &roots);
    assert!(blob.status.success(), "{blob:?}");
    let want = std::fs::read(store.join(PROJECT).join(name(b"bad\xff")).join(key)).unwrap();
    assert_eq!(blob.stdout, want);
}

/// A Codex rollout and its date folder named in bytes that are not UTF-8: listed (the id is
/// the one inside), shown, and the cache read back by the next run.
#[test]
fn a_codex_rollout_whose_name_is_not_utf8_is_a_session() {
    let (tmp, store) = scratch("codex/0.171.0/dot-codex", "codex");
    let day = store.join("sessions/2026/11/30");
    let rollout = "rollout-2026-11-30T09-24-09-01a22bc4-d63a-7983-80d0-f3d6ee14c936.jsonl";
    let folder = store.join("sessions/2026/11").join(name(b"3\xff"));
    std::fs::create_dir(&folder).unwrap();
    let mut renamed = b"rollout-2026-11-30T09-24-09-\xff".to_vec();
    renamed.extend_from_slice(&rollout.as_bytes()["rollout-2026-11-30T09-24-09-".len()..]);
    std::fs::rename(day.join(rollout), folder.join(name(&renamed))).unwrap();
    let cache = tmp.path().join("cache");
    let roots = [("--codex-root", store.as_path())];
    let id = "01a22bc4-d63a-7983-80d0-f3d6ee14c936";

    let scan = ok(&run_over(&cache, &["scan", "--json"], &roots));
    let sessions = listed(&scan);
    let (_, path) = sessions.iter().find(|(i, _)| i == id).expect("listed");
    assert!(path.contains('\u{fffd}'), "{path}");
    assert_eq!(
        listed(&ok(&run_over(&cache, &["scan", "--json"], &roots))),
        sessions
    );
    let show = ok(&run_over(&cache, &["show", "--json", id], &roots));
    assert!(!show["data"]["messages"].as_array().unwrap().is_empty());
    ok(&run_over(&cache, &["scan", "--json", "--no-cache"], &roots));
}

/// OpenCode's JSON storage with a session folder whose name is not UTF-8: its sessions are
/// listed and shown.
#[test]
fn an_opencode_storage_folder_whose_name_is_not_utf8_holds_sessions() {
    let (tmp, store) = scratch("opencode/1.0.98/local-share-opencode", "opencode");
    let sessions_dir = store.join("storage/session");
    let project = std::fs::read_dir(&sessions_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::rename(&project, sessions_dir.join(name(b"proj\xff"))).unwrap();
    let cache = tmp.path().join("cache");
    let roots = [("--opencode-root", store.as_path())];
    let fixture = testdata("opencode/1.0.98/local-share-opencode");
    let want = listed(&ok(&run_over(
        &tmp.path().join("c0"),
        &["scan", "--json"],
        &[("--opencode-root", &fixture)],
    )))
    .len();

    let scan = ok(&run_over(&cache, &["scan", "--json"], &roots));
    let sessions = listed(&scan);
    assert_eq!(sessions.len(), want, "{scan}");
    assert_eq!(
        listed(&ok(&run_over(&cache, &["scan", "--json"], &roots))),
        sessions
    );
    let (id, _) = &sessions[0];
    let show = ok(&run_over(&cache, &["show", "--json", id], &roots));
    assert_eq!(show["data"]["session"]["id"], id.as_str());
}

/// `blob SESSION part:../../…/x` on OpenCode's JSON storage used to print a `.json` file
/// outside every root; a part id is a file name, never a path.
#[test]
fn an_opencode_part_key_that_is_a_path_names_nothing() {
    let (tmp, store) = scratch("opencode/1.0.98/local-share-opencode", "opencode");
    // Outside the store: what the key reaches from `storage/part/<message>/`.
    std::fs::write(
        tmp.path().join("secret.json"),
        r#"{"state":{"output":"SECRET OUTSIDE THE STORE"}}"#,
    )
    .unwrap();
    let cache = tmp.path().join("cache");
    let roots = [("--opencode-root", store.as_path())];
    let scan = ok(&run_over(&cache, &["scan", "--json"], &roots));
    let (id, _) = &listed(&scan)[0];
    for key in ["part:../../../../secret", "part:..", "part:", "part:a/b"] {
        let out = run_over(&cache, &["blob", id, key, "--json"], &roots);
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("SECRET"),
            "{key}"
        );
        assert_eq!(out.status.code(), Some(1), "{key}: {out:?}");
        let v = json_of(&out);
        assert_eq!(v["error"]["code"], "blob_not_found", "{key}: {v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains("not a file name"), "{key}: {message}");
    }
}
