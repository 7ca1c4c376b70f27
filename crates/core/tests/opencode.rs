//! OpenCode specifics beyond the golden files: one id in several storage generations, reading
//! while OpenCode writes (open write transaction, uncheckpointed WAL), incremental scans.

mod common;

use std::path::Path;

use agent_sessions_core::provider::{ProviderSet, ScanOutput, ScanProgress};
use agent_sessions_core::{ProviderKind, SessionMeta};
use rusqlite::Connection;

fn scan(set: &ProviderSet, state: &[u8]) -> ScanOutput {
    set.get(ProviderKind::Opencode)
        .unwrap()
        .scan(&state.to_vec(), &ScanProgress::default())
        .unwrap()
}

fn find<'a>(sessions: &'a [SessionMeta], id: &str) -> &'a SessionMeta {
    sessions
        .iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("no {id}"))
}

const DB_SESSION: &str = "ses_dd4339e7fffeEdarK7FDG4nA4y";

/// Writes a legacy JSON copy of `id` (one prompt, one answer) updated at `updated` ms.
fn json_copy(root: &Path, id: &str, updated: i64) {
    let session = root.join("storage/session/prj");
    std::fs::create_dir_all(&session).unwrap();
    std::fs::write(
        session.join(format!("{id}.json")),
        format!(r#"{{"id":"{id}","version":"1.0.98","projectID":"prj","directory":"/json/copy","title":"json copy","time":{{"created":1,"updated":{updated}}}}}"#),
    )
    .unwrap();
    let msg = root.join("storage/message").join(id);
    std::fs::create_dir_all(&msg).unwrap();
    std::fs::write(
        msg.join("msg_1.json"),
        format!(r#"{{"id":"msg_1","sessionID":"{id}","role":"user","time":{{"created":1}}}}"#),
    )
    .unwrap();
    let part = root.join("storage/part/msg_1");
    std::fs::create_dir_all(&part).unwrap();
    std::fs::write(
        part.join("prt_1.json"),
        r#"{"id":"prt_1","messageID":"msg_1","type":"text","text":"from json"}"#,
    )
    .unwrap();
}

#[test]
fn a_session_in_json_and_db_appears_once_and_the_newer_copy_wins() {
    let dir = common::fixture_copy(ProviderKind::Opencode, "1.18.33");
    let set = common::provider_set(ProviderKind::Opencode, dir.path());
    json_copy(dir.path(), DB_SESSION, 1);
    let out = scan(&set, &[]);
    assert_eq!(out.changed.len(), 7);
    let s = find(&out.changed, DB_SESSION);
    assert_eq!(
        s.title.as_deref(),
        Some("Listing project files"),
        "the DB copy is newer"
    );
    assert!(s.source_path.ends_with("opencode.db"));

    json_copy(dir.path(), DB_SESSION, 4_000_000_000_000);
    let again = scan(&set, &out.state);
    assert_eq!(
        again.changed.len(),
        1,
        "only the session whose winner changed"
    );
    let s = &again.changed[0];
    assert_eq!(s.title.as_deref(), Some("json copy"));
    assert_eq!((s.counts.user, s.counts.assistant), (1, 0));
    // Load applies the same rule as the scan.
    let t = set.get(ProviderKind::Opencode).unwrap().load(s).unwrap();
    assert_eq!(t.session.title.as_deref(), Some("json copy"));
    assert_eq!(t.messages.len(), 1);
}

#[test]
fn legacy_json_and_db_sessions_list_together() {
    let dir = common::fixture_copy(ProviderKind::Opencode, "1.18.33");
    common::copy_dir(
        &common::fixture(ProviderKind::Opencode, "1.0.98").join("storage"),
        &dir.path().join("storage"),
    );
    let out = scan(
        &common::provider_set(ProviderKind::Opencode, dir.path()),
        &[],
    );
    assert_eq!(out.changed.len(), 13);
    assert_eq!(out.diagnostics.parse_errors, 0);
}

#[test]
fn reads_while_opencode_holds_a_write_transaction_and_sees_the_wal() {
    let dir = common::fixture_copy(ProviderKind::Opencode, "1.18.33");
    let set = common::provider_set(ProviderKind::Opencode, dir.path());
    let first = scan(&set, &[]);

    let writer = Connection::open(dir.path().join("opencode.db")).unwrap();
    writer.pragma_update(None, "journal_mode", "wal").unwrap();
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    writer
        .execute(
            "UPDATE session SET title = 'renamed in wal', time_updated = time_updated + 1 WHERE id = ?1",
            [DB_SESSION],
        )
        .unwrap();
    writer
        .execute_batch("BEGIN IMMEDIATE; UPDATE session SET title = 'uncommitted' WHERE id = 'ses_dd4341096ffef285TaeIhrVhqh';")
        .unwrap();
    assert!(
        std::fs::metadata(dir.path().join("opencode.db-wal"))
            .unwrap()
            .len()
            > 0
    );

    let started = std::time::Instant::now();
    let out = scan(&set, &first.state);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(out.diagnostics.parse_errors, 0, "{:?}", out.diagnostics);
    assert_eq!(
        out.changed.len(),
        1,
        "only the session whose time_updated moved"
    );
    assert_eq!(out.changed[0].title.as_deref(), Some("renamed in wal"));
    writer.execute_batch("ROLLBACK").unwrap();

    writer
        .execute("DELETE FROM session WHERE id = ?1", [DB_SESSION])
        .unwrap();
    let gone = scan(&set, &out.state);
    assert_eq!(gone.removed.len(), 1);
    assert_eq!(gone.removed[0].id, DB_SESSION);
}

#[test]
fn an_unreadable_database_is_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("opencode.db"), b"not sqlite at all").unwrap();
    let out = scan(
        &common::provider_set(ProviderKind::Opencode, dir.path()),
        &[],
    );
    assert!(out.changed.is_empty());
    assert_eq!(out.diagnostics.items.len(), 1);
    assert!(out.diagnostics.items[0]
        .reason
        .starts_with("cannot read the database"));
}
