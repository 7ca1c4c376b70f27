//! A search that had to read sessions directly (the index did not hold their text yet) leaves
//! the index better for the next one: it starts `index --background` on the same roots and
//! cache and exits without waiting; the next search reads the index. The lock beside the cache
//! file keeps a second run from starting while one indexes; AGENT_SESSIONS_NO_BACKGROUND_INDEX
//! turns it off (every other test sets it: `common::no_real_home`).

#![cfg(target_os = "linux")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{cli, json_of, testdata};
use serde_json::Value;

/// The Claude store of version 2.1.332 (read only: the cache is the test's).
fn root() -> String {
    testdata("claude/2.1.332/dot-claude")
        .to_string_lossy()
        .into_owned()
}

/// `search main.py` on the store with the cache in `cache`; background indexing on or off.
fn search(cache: &Path, background: bool) -> Value {
    let mut cmd = cli(
        cache,
        &["search", "main.py", "--json", "--claude-root", &root()],
    );
    if background {
        cmd.env_remove("AGENT_SESSIONS_NO_BACKGROUND_INDEX");
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(&out)["data"].clone()
}

/// The indexing lock of the store's cache file in `cache`.
fn lock_of(cache: &Path) -> PathBuf {
    let out = cli(
        cache,
        &["cache", "path", "--json", "--claude-root", &root()],
    )
    .output()
    .unwrap();
    let file = json_of(&out)["data"]["path"].as_str().unwrap().to_owned();
    PathBuf::from(format!("{file}.lock"))
}

/// Waits for the background run `pid` to end by itself: its process gone, its lock removed.
fn ended(pid: u64, lock: &Path) {
    let deadline = Instant::now() + Duration::from_secs(180);
    while Path::new(&format!("/proc/{pid}")).exists() || lock.exists() {
        assert!(
            Instant::now() < deadline,
            "the background index did not end"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The sessions hit (the index ranks hits of a session its own way: which of its messages
/// come first is not what a direct read gives).
fn ids(data: &Value) -> std::collections::BTreeSet<String> {
    let hits = data["hits"].as_array().unwrap();
    hits.iter()
        .map(|h| h["session_id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_search_that_read_sessions_directly_leaves_the_index_for_the_next_search() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let first = search(&cache, true);
    assert!(first["read_directly"].as_u64().unwrap() > 0, "{first}");
    assert_eq!(first["background_index"]["state"], "started", "{first}");
    let pid = first["background_index"]["pid"].as_u64().unwrap();

    ended(pid, &lock_of(&cache));

    let next = search(&cache, false);
    assert_eq!(next["read_directly"], 0, "{next}");
    assert!(next.get("background_index").is_none(), "{next}");
    assert_eq!(
        ids(&next),
        ids(&first),
        "the same sessions hit, from the index"
    );
    assert!(!ids(&next).is_empty());
}

#[test]
fn the_variable_turns_the_background_index_off() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let first = search(&cache, false);
    assert_eq!(first["background_index"]["state"], "off", "{first}");
    let directly = first["read_directly"].as_u64().unwrap();
    assert!(directly > 0, "{first}");
    // Nothing indexed the text since: the next search reads the same sessions directly.
    let next = search(&cache, false);
    assert_eq!(next["read_directly"].as_u64().unwrap(), directly, "{next}");
    assert!(!lock_of(&cache).exists());
}

#[test]
fn while_one_run_indexes_a_search_starts_none_and_a_background_run_gives_up() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    // This test process holds the lock, as a running `index` would.
    search(&cache, false);
    let lock = lock_of(&cache);
    std::fs::write(&lock, std::process::id().to_string()).unwrap();
    let start = Instant::now();
    let data = search(&cache, true);
    assert_eq!(data["background_index"]["state"], "running", "{data}");
    assert_eq!(data["background_index"]["pid"], std::process::id());
    let out = cli(
        &cache,
        &["index", "--background", "--json", "--claude-root", &root()],
    )
    .output()
    .unwrap();
    assert!(out.status.success());
    assert_eq!(
        json_of(&out)["data"]["skipped"],
        "another run is indexing this cache"
    );
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "something waited for the lock"
    );
    // The lock is the holder's: left as it was.
    assert_eq!(
        std::fs::read_to_string(&lock).unwrap(),
        std::process::id().to_string()
    );

    // A lock left by a process that is gone is taken over: the search starts a run.
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    std::fs::write(&lock, dead.to_string()).unwrap();
    let data = search(&cache, true);
    assert_eq!(data["background_index"]["state"], "started", "{data}");
    ended(data["background_index"]["pid"].as_u64().unwrap(), &lock);
}
