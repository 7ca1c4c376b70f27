//! The raw-JSON view's records (core `raw`): each message's records are the very lines of its
//! session file (Claude, Codex) or its stored rows and files (OpenCode), on the fixtures.

mod common;

use agent_sessions_core::model::Transcript;
use agent_sessions_core::raw::{self, RawRecords};
use agent_sessions_core::{Catalog, ProviderKind, ScanProgress};
use serde_json::Value;

fn transcripts(kind: ProviderKind, version: &str) -> (tempfile::TempDir, Catalog, Vec<Transcript>) {
    let dir = common::fixture_copy(kind, version);
    let catalog = common::catalog(kind, dir.path());
    let report = catalog.scan(&ScanProgress::default()).unwrap();
    assert!(!report.sessions.is_empty());
    let loaded = report
        .sessions
        .iter()
        .map(|s| catalog.load(s).unwrap())
        .collect();
    (dir, catalog, loaded)
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:.200}"))
}

/// Every message's records are its source lines, in order, each equal to the file's line.
fn lines_are_the_files_lines(kind: ProviderKind, version: &str) {
    let (_dir, catalog, transcripts) = transcripts(kind, version);
    let mut checked = 0;
    for t in &transcripts {
        let file = std::fs::read_to_string(&t.session.source_path).unwrap();
        let lines: Vec<&str> = file.lines().collect();
        for m in t.messages.iter().filter(|m| !m.source_lines.is_empty()) {
            let RawRecords { records, omitted } = raw::records(&catalog, &t.session, m).unwrap();
            let mut wanted = m.source_lines.clone();
            wanted.sort();
            wanted.dedup();
            let got: Vec<u64> = records.iter().map(|r| r.line.unwrap()).collect();
            assert_eq!(got, wanted, "{} message {}", t.session.id, m.id);
            assert_eq!(omitted, 0);
            for r in &records {
                let line = lines[r.line.unwrap() as usize - 1];
                if line.len() > raw::MAX_RECORD_BYTES {
                    // Cut: the line's start, as written.
                    assert!(r.truncated);
                    let keep = raw::MAX_RECORD_BYTES - 3;
                    assert_eq!(r.text.as_bytes()[..keep], line.as_bytes()[..keep]);
                } else {
                    assert!(!r.truncated);
                    assert_eq!(json(&r.text), json(line), "line {}", r.place);
                }
                assert_eq!(r.place, format!("line {}", r.line.unwrap()));
            }
            // The message's id is the record's own (a uuid, a response id) in one of them.
            if kind == ProviderKind::Claude {
                assert!(records.iter().any(|r| r.text.contains(&m.id)), "{}", m.id);
            }
            checked += 1;
        }
    }
    assert!(checked > 5, "only {checked} messages had lines");
}

#[test]
fn claude_messages_show_their_own_lines() {
    lines_are_the_files_lines(ProviderKind::Claude, "2.1.9");
    lines_are_the_files_lines(ProviderKind::Claude, "1.0.30");
}

#[test]
fn codex_messages_show_their_own_lines() {
    lines_are_the_files_lines(ProviderKind::Codex, "0.140.0");
}

#[test]
fn opencode_db_messages_show_their_message_and_part_rows() {
    let (dir, catalog, transcripts) = transcripts(ProviderKind::Opencode, "1.18.33");
    let conn = rusqlite::Connection::open(dir.path().join("opencode.db")).unwrap();
    let mut checked = 0;
    for t in &transcripts {
        for m in &t.messages {
            let Ok(row) = conn.query_row("SELECT data FROM message WHERE id = ?1", [&m.id], |r| {
                r.get::<_, String>(0)
            }) else {
                continue;
            };
            let parts: Vec<(String, String)> = conn
                .prepare("SELECT id, data FROM part WHERE message_id = ?1 ORDER BY id")
                .unwrap()
                .query_map([&m.id], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            let got = raw::records(&catalog, &t.session, m).unwrap().records;
            assert_eq!(got.len(), parts.len() + 1, "message {}", m.id);
            assert_eq!(got[0].place, format!("message {}", m.id));
            assert_eq!(json(&got[0].text), json(&row));
            let mut by_place: Vec<(String, Value)> = got[1..]
                .iter()
                .map(|r| (r.place.clone(), json(&r.text)))
                .collect();
            by_place.sort_by(|a, b| a.0.cmp(&b.0));
            let want: Vec<(String, Value)> = parts
                .iter()
                .map(|(id, data)| (format!("part {id}"), json(data)))
                .collect();
            assert_eq!(by_place, want);
            checked += 1;
        }
    }
    assert!(checked > 5, "only {checked} messages checked");
}

#[test]
fn opencode_json_messages_show_their_message_and_part_files() {
    let (dir, catalog, transcripts) = transcripts(ProviderKind::Opencode, "1.0.98");
    let mut checked = 0;
    for t in &transcripts {
        for m in &t.messages {
            let file = dir
                .path()
                .join("storage/message")
                .join(&t.session.id)
                .join(format!("{}.json", m.id));
            let got = raw::records(&catalog, &t.session, m).unwrap().records;
            assert_eq!(got[0].place, format!("message {}", m.id));
            assert_eq!(
                json(&got[0].text),
                json(&std::fs::read_to_string(&file).unwrap())
            );
            let parts = dir.path().join("storage/part").join(&m.id);
            let count = std::fs::read_dir(&parts).map_or(0, |d| d.count());
            assert_eq!(got.len(), count + 1, "message {}", m.id);
            for r in &got[1..] {
                let id = r.place.strip_prefix("part ").unwrap();
                let on_disk = std::fs::read_to_string(parts.join(format!("{id}.json"))).unwrap();
                assert_eq!(json(&r.text), json(&on_disk));
            }
            checked += 1;
        }
    }
    assert!(checked > 3, "only {checked} messages checked");
}

#[test]
fn an_unknown_message_of_a_row_store_has_no_records() {
    let (_dir, catalog, transcripts) = transcripts(ProviderKind::Opencode, "1.18.33");
    let mut m = transcripts[0].messages[0].clone();
    m.id = "msg_not_there".into();
    let got = raw::records(&catalog, &transcripts[0].session, &m).unwrap();
    assert_eq!(got, RawRecords::default());
}

#[test]
fn opencode_v2_messages_show_their_session_message_row() {
    // The v2 generation exists only as the fixture's SQL: built into a fresh store.
    let dir = tempfile::tempdir().unwrap();
    let script = common::repo().join("testdata/opencode/v2-synthetic/build.sql");
    let conn = rusqlite::Connection::open(dir.path().join("opencode.db")).unwrap();
    conn.execute_batch(&std::fs::read_to_string(script).unwrap())
        .unwrap();
    let catalog = common::catalog(ProviderKind::Opencode, dir.path());
    let report = catalog.scan(&ScanProgress::default()).unwrap();
    let mut checked = 0;
    for s in &report.sessions {
        let t = catalog.load(s).unwrap();
        for m in &t.messages {
            // The store holds v1 sessions too: only the v2 rows are checked here.
            let Ok(row) = conn.query_row(
                "SELECT data FROM session_message WHERE id = ?1",
                [&m.id],
                |r| r.get::<_, String>(0),
            ) else {
                continue;
            };
            let got = raw::records(&catalog, &t.session, m).unwrap().records;
            assert_eq!(got.len(), 1, "message {}", m.id);
            assert_eq!(got[0].place, format!("session_message {}", m.id));
            assert_eq!(json(&got[0].text), json(&row));
            checked += 1;
        }
    }
    assert!(checked > 3, "only {checked} messages checked");
}
