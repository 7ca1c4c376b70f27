//! Codex specifics beyond the golden files: the state DB and session index overlays, a DB row
//! without its rollout, a DB being written while we read it, partial lines, incremental scans.

use std::io::Write;
use std::path::{Path, PathBuf};

mod common;

use agent_sessions_core::provider::{ProviderSet, ScanOutput, ScanProgress};
use agent_sessions_core::{ProviderKind, SessionMeta};

fn scan(set: &ProviderSet, state: &[u8]) -> ScanOutput {
    set.get(ProviderKind::Codex)
        .unwrap()
        .scan(&state.to_vec(), &ScanProgress::default())
        .unwrap()
}

fn by_id<'a>(sessions: &'a [SessionMeta], prefix: &str) -> &'a SessionMeta {
    sessions
        .iter()
        .find(|s| s.id.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix}"))
}

fn rollout(root: &Path, id_prefix: &str) -> PathBuf {
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().contains(id_prefix)
                && p.extension().is_some_and(|x| x == "jsonl")
            {
                return p;
            }
        }
    }
    panic!("no rollout {id_prefix}");
}

#[test]
fn archive_fork_and_subagent_links_are_read() {
    let dir = common::fixture_copy(ProviderKind::Codex, "0.171.0");
    let out = scan(&common::provider_set(ProviderKind::Codex, dir.path()), &[]);
    let archived = by_id(&out.changed, "01a22bc4-d278");
    assert!(archived.archived);
    let fork = by_id(&out.changed, "01a22bc4-ddca");
    assert_eq!(
        fork.forked_from.as_deref(),
        Some("01a22bc4-cb24-7030-8af9-1f6d53970528")
    );
    assert_eq!(fork.parent_id, None, "a fork is not a child");
    let child = by_id(&out.changed, "01a22bc4-d79d");
    assert_eq!(
        child.parent_id.as_deref(),
        Some("01a22bc4-d63a-7983-80d0-f3d6ee14c936")
    );
    assert_eq!(
        by_id(&out.changed, "01a22bc4-cb24")
            .format_version
            .as_deref(),
        Some("0.171.0")
    );
    assert!(by_id(&out.changed, "01a22bc4-cb24").tokens.is_some());
}

#[test]
fn a_db_row_without_its_rollout_is_a_clear_diagnostic() {
    let dir = common::fixture_copy(ProviderKind::Codex, "0.171.0");
    std::fs::remove_file(rollout(dir.path(), "01a22bc4-dad9")).unwrap();
    let out = scan(&common::provider_set(ProviderKind::Codex, dir.path()), &[]);
    assert_eq!(out.changed.len(), 5);
    let d = &out.diagnostics.items;
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].reason
            .contains("thread 01a22bc4-dad9-7450-b811-4865920862ed points to rollout"),
        "{}",
        d[0].reason
    );
    assert!(d[0].reason.contains("missing"));
}

#[test]
fn an_unreadable_state_db_costs_titles_not_sessions() {
    let dir = common::fixture_copy(ProviderKind::Codex, "0.171.0");
    for f in ["state_5.sqlite-wal", "state_5.sqlite-shm"] {
        let _ = std::fs::remove_file(dir.path().join(f));
    }
    std::fs::write(dir.path().join("state_5.sqlite"), b"this is not a database").unwrap();
    let out = scan(&common::provider_set(ProviderKind::Codex, dir.path()), &[]);
    assert_eq!(out.changed.len(), 6);
    assert!(out
        .diagnostics
        .items
        .iter()
        .any(|d| d.reason.starts_with("state DB unreadable")));
    // Titles fall back to the first prompt.
    assert_eq!(
        by_id(&out.changed, "01a22bc4-cb24").title.as_deref(),
        Some("List the files in this directory")
    );
}

#[test]
fn renames_in_the_session_index_win_and_rescan_incrementally() {
    let dir = common::fixture_copy(ProviderKind::Codex, "0.171.0");
    let s = common::provider_set(ProviderKind::Codex, dir.path());
    let first = scan(&s, &[]);
    let unchanged = scan(&s, &first.state);
    assert!(unchanged.changed.is_empty());
    let mut f = std::fs::File::create(dir.path().join("session_index.jsonl")).unwrap();
    writeln!(f, r#"{{"id":"01a22bc4-cb24-7030-8af9-1f6d53970528","thread_name":"old name","updated_at":"2026-11-30T10:00:00Z"}}"#).unwrap();
    writeln!(f, r#"{{"id":"01a22bc4-cb24-7030-8af9-1f6d53970528","thread_name":"listing files","updated_at":"2026-11-30T10:01:00Z"}}"#).unwrap();
    drop(f);
    let renamed = scan(&s, &unchanged.state);
    assert_eq!(
        by_id(&renamed.changed, "01a22bc4-cb24").title.as_deref(),
        Some("listing files")
    );
}

#[test]
fn a_half_written_line_waits_and_appends_are_read_from_the_offset() {
    let dir = common::fixture_copy(ProviderKind::Codex, "0.63.0");
    let s = common::provider_set(ProviderKind::Codex, dir.path());
    let first = scan(&s, &[]);
    let path = rollout(dir.path(), "01a22bc5-61f8");
    let before = by_id(&first.changed, "01a22bc5-61f8").counts;
    let line = r#"{"timestamp":"2026-12-01T00:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"and one more"}]}}"#;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(&line.as_bytes()[..50]).unwrap();
    drop(f);
    let partial = scan(&s, &first.state);
    assert_eq!(partial.diagnostics.parse_errors, 0);
    assert_eq!(by_id(&partial.changed, "01a22bc5-61f8").counts, before);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(&line.as_bytes()[50..]).unwrap();
    f.write_all(b"\n").unwrap();
    drop(f);
    let done = scan(&s, &partial.state);
    assert_eq!(done.changed.len(), 1);
    assert_eq!(done.changed[0].counts.user, before.user + 1);
}

#[test]
fn reads_the_db_while_codex_holds_a_write_transaction_and_sees_the_wal() {
    let dir = common::fixture_copy(ProviderKind::Codex, "0.171.0");
    let db = dir.path().join("state_5.sqlite");
    // A writer in WAL mode that never checkpoints: committed rows live only in the -wal file.
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer.pragma_update(None, "journal_mode", "wal").unwrap();
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    writer
        .execute("UPDATE threads SET name = 'renamed in wal' WHERE id = '01a22bc4-d63a-7983-80d0-f3d6ee14c936'", [])
        .unwrap();
    // And a write transaction left open while we read.
    writer.execute_batch("BEGIN IMMEDIATE; UPDATE threads SET name = 'uncommitted' WHERE id = '01a22bc4-cb24-7030-8af9-1f6d53970528';").unwrap();
    let wal = std::fs::metadata(dir.path().join("state_5.sqlite-wal"))
        .unwrap()
        .len();
    assert!(wal > 0, "the update should sit in the WAL");

    let started = std::time::Instant::now();
    let out = scan(&common::provider_set(ProviderKind::Codex, dir.path()), &[]);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "the scan waited on the writer"
    );
    assert_eq!(out.diagnostics.parse_errors, 0, "{:?}", out.diagnostics);
    assert_eq!(
        by_id(&out.changed, "01a22bc4-d63a").title.as_deref(),
        Some("renamed in wal")
    );
    assert_eq!(
        by_id(&out.changed, "01a22bc4-cb24").title.as_deref(),
        Some("List the files in this directory")
    );
    writer.execute_batch("COMMIT").unwrap();
}
