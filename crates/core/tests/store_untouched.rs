//! Reading an agent's SQLite store never creates, changes or removes a file in the agent's
//! directory, whatever side files (`-wal`, `-shm`) the agent left, and still shows what only the
//! WAL holds. Each case snapshots every file's name, size, mtime and bytes before and after a
//! scan and a load of every session.

mod common;

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use agent_sessions_core::provider::{Provider, ProviderSet, ScanProgress};
use agent_sessions_core::{ProviderKind, SessionMeta};
use rusqlite::config::DbConfig;
use rusqlite::Connection;

/// Every file under `dir`: size, mtime and a hash of its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, (u64, SystemTime, u64)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                let mut h = std::hash::DefaultHasher::new();
                std::fs::read(e.path()).unwrap().hash(&mut h);
                out.insert(e.path(), (meta.len(), meta.modified().unwrap(), h.finish()));
            }
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    /// Checkpointed and closed: no side files.
    None,
    /// Closed without a checkpoint, then the `-shm` removed: rows only in the WAL.
    WalOnly,
    /// Checkpointed, then closed, with a `-shm` left behind.
    ShmOnly,
    /// Closed without a checkpoint: both side files, rows only in the WAL.
    Both,
    /// The writer still open, with a committed row in the WAL and an open write transaction.
    OpenWriter,
}

const CASES: [Side; 5] = [
    Side::None,
    Side::WalOnly,
    Side::ShmOnly,
    Side::Both,
    Side::OpenWriter,
];

/// The files that appeared, disappeared or changed between two listings.
fn changes(
    before: &BTreeMap<PathBuf, (u64, SystemTime, u64)>,
    after: &BTreeMap<PathBuf, (u64, SystemTime, u64)>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (path, was) in before {
        match after.get(path) {
            None => out.push(format!("removed {}", path.display())),
            Some(now) if now != was => out.push(format!("changed {}", path.display())),
            _ => {}
        }
    }
    for path in after.keys().filter(|p| !before.contains_key(*p)) {
        out.push(format!("created {}", path.display()));
    }
    out
}

fn side_file(db: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", db.display()))
}

/// Puts `db` in the state `side` describes after running `committed` (and, for an open writer,
/// `uncommitted` inside a transaction left open). Returns the writer when it stays open.
fn prepare(db: &Path, side: Side, committed: &str, uncommitted: &str) -> Option<Connection> {
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(side_file(db, suffix));
    }
    let writer = Connection::open(db).unwrap();
    writer.pragma_update(None, "journal_mode", "wal").unwrap();
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    let keep_wal = matches!(side, Side::WalOnly | Side::Both | Side::OpenWriter);
    writer
        .set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, keep_wal)
        .unwrap();
    writer.execute_batch(committed).unwrap();
    match side {
        Side::OpenWriter => {
            writer
                .execute_batch(&format!("BEGIN IMMEDIATE; {uncommitted}"))
                .unwrap();
            return Some(writer);
        }
        Side::ShmOnly => {
            writer
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                .unwrap();
            // Keep the -shm as SQLite left it, then let the writer go.
            let shm = std::fs::read(side_file(db, "-shm")).unwrap();
            drop(writer);
            std::fs::write(side_file(db, "-shm"), shm).unwrap();
            let _ = std::fs::remove_file(side_file(db, "-wal"));
        }
        _ => drop(writer),
    }
    if side == Side::WalOnly {
        std::fs::remove_file(side_file(db, "-shm")).unwrap();
    }
    let wal = side_file(db, "-wal");
    let shm = side_file(db, "-shm");
    let expected = match side {
        Side::None => (false, false),
        Side::WalOnly => (true, false),
        Side::ShmOnly => (false, true),
        Side::Both | Side::OpenWriter => (true, true),
    };
    assert_eq!((wal.exists(), shm.exists()), expected, "{side:?}");
    if keep_wal {
        assert!(
            std::fs::metadata(&wal).unwrap().len() > 0,
            "{side:?}: rows in the WAL"
        );
    }
    None
}

/// Scans, then loads every session; returns what the scan listed.
fn scan_and_load(set: &ProviderSet, kind: ProviderKind) -> Vec<SessionMeta> {
    let p: &dyn Provider = set.get(kind).unwrap();
    let out = p.scan(&Vec::new(), &ScanProgress::default()).unwrap();
    assert_eq!(out.diagnostics.parse_errors, 0, "{:?}", out.diagnostics);
    for s in &out.changed {
        p.load(s).unwrap();
    }
    out.changed
}

fn title<'a>(sessions: &'a [SessionMeta], id_prefix: &str) -> Option<&'a str> {
    sessions
        .iter()
        .find(|s| s.id.starts_with(id_prefix))
        .unwrap_or_else(|| panic!("no {id_prefix}"))
        .title
        .as_deref()
}

#[test]
fn reading_codex_state_db_leaves_the_store_as_it_was() {
    let mut problems = Vec::new();
    for side in CASES {
        let dir = common::fixture_copy(ProviderKind::Codex, "0.171.0");
        let db = dir.path().join("state_5.sqlite");
        let writer = prepare(
            &db,
            side,
            "UPDATE threads SET name = 'renamed in wal' WHERE id = '01a22bc4-d63a-7983-80d0-f3d6ee14c936'",
            "UPDATE threads SET name = 'uncommitted' WHERE id = '01a22bc4-cb24-7030-8af9-1f6d53970528'",
        );
        let before = files(dir.path());
        let set = common::provider_set(ProviderKind::Codex, dir.path());
        let sessions = scan_and_load(&set, ProviderKind::Codex);
        for change in changes(&before, &files(dir.path())) {
            problems.push(format!("{side:?}: {change}"));
        }
        // The committed rename is visible wherever it is stored; an uncommitted one never is.
        assert_eq!(
            title(&sessions, "01a22bc4-d63a"),
            Some("renamed in wal"),
            "{side:?}"
        );
        assert_eq!(
            title(&sessions, "01a22bc4-cb24"),
            Some("List the files in this directory"),
            "{side:?}"
        );
        drop(writer);
    }
    assert!(problems.is_empty(), "the store changed: {problems:#?}");
}

const OPENCODE_SESSION: &str = "ses_dd4339e7fffeEdarK7FDG4nA4y";

#[test]
fn reading_opencode_db_leaves_the_store_as_it_was() {
    let mut problems = Vec::new();
    for side in CASES {
        let dir = common::fixture_copy(ProviderKind::Opencode, "1.18.33");
        let db = dir.path().join("opencode.db");
        let writer = prepare(
            &db,
            side,
            &format!("UPDATE session SET title = 'renamed in wal', time_updated = time_updated + 1 WHERE id = '{OPENCODE_SESSION}'"),
            "UPDATE session SET title = 'uncommitted' WHERE id = 'ses_dd4341096ffef285TaeIhrVhqh'",
        );
        let before = files(dir.path());
        let set = common::provider_set(ProviderKind::Opencode, dir.path());
        let sessions = scan_and_load(&set, ProviderKind::Opencode);
        for change in changes(&before, &files(dir.path())) {
            problems.push(format!("{side:?}: {change}"));
        }
        assert_eq!(
            title(&sessions, OPENCODE_SESSION),
            Some("renamed in wal"),
            "{side:?}"
        );
        assert_ne!(
            title(&sessions, "ses_dd4341096ffef285TaeIhrVhqh"),
            Some("uncommitted"),
            "{side:?}"
        );
        drop(writer);
    }
    assert!(problems.is_empty(), "the store changed: {problems:#?}");
}
