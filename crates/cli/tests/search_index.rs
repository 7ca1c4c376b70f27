//! A `search` leaves the index better than it found it: what it had to read directly (sessions
//! the text index does not hold yet) is indexed once its hits are out, so the next search reads
//! nothing directly and finds the same hits from the index.

mod common;

use common::{json_of, run, testdata};
use serde_json::Value;

fn search(cache: &std::path::Path, root: &str, query: &str) -> Value {
    let out = run(
        cache,
        &[
            "search",
            query,
            "--limit",
            "500",
            "--json",
            "--claude-root",
            root,
        ],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    json_of(&out)["data"].clone()
}

#[test]
fn a_search_indexes_what_it_read_directly_for_the_next() {
    let cache = tempfile::tempdir().unwrap();
    let root = testdata("claude/2.1.332/dot-claude");
    let root = root.to_str().unwrap();
    let first = search(cache.path(), root, "main.py");
    assert!(
        first["read_directly"].as_u64().unwrap() > 0,
        "a fresh cache holds no text: {first}"
    );
    let second = search(cache.path(), root, "main.py");
    assert_eq!(
        second["read_directly"], 0,
        "all read before is indexed now: {second}"
    );
    let ids = |v: &Value| {
        let mut ids: Vec<String> = v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| format!("{} {}", h["session_id"], h["message_id"]))
            .collect();
        ids.sort();
        ids
    };
    // Every match (the limit is above them all), however it was found.
    assert_eq!(
        ids(&first),
        ids(&second),
        "the index finds what reading found"
    );
    // Nothing pending is left: `index` has no text to add.
    let indexed = json_of(&run(
        cache.path(),
        &["index", "--json", "--claude-root", root],
    ));
    assert_eq!(indexed["data"]["text_indexed"], 0, "{indexed}");
}
