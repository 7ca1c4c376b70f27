//! The scan suite for OpenCode: its sessions live in one SQLite database, so what a scan costs
//! is SQL (the session rows and their aggregates), and while OpenCode runs the database has a
//! pending WAL, which we read from a private copy (`providers::sqlite`). Both are measured: the
//! database as OpenCode leaves it when it exits, and as it is while OpenCode writes.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use agent_sessions_core::provider::{ProviderSet, ScanProgress};
use agent_sessions_core::{ProviderKind, Roots};
use rusqlite::config::DbConfig;
use rusqlite::Connection;

use super::{best, cat, corpus, peak_rss, print_table, reset_peak, Args, Row};

pub fn run(args: &Args) {
    let root = args.dir.join(format!("opencode-{}MB", args.size_mb));
    let db = root.join("opencode.db");
    if !db.exists() {
        eprintln!("generating {} MB opencode corpus …", args.size_mb);
        let mut rng = corpus::Rng::new(0x0c0d);
        corpus::store(
            ProviderKind::Opencode,
            &root,
            args.size_mb * 1_000_000,
            &mut rng,
        )
        .unwrap();
    }
    let total = db.metadata().unwrap().len();
    println!(
        "\nopencode: {} ({:.1} MB; one database, read on one thread)\n",
        db.display(),
        total as f64 / 1e6
    );
    let mut rows = vec![];
    let (t, _) = best(args.runs, || cat(std::slice::from_ref(&db)));
    rows.push(Row {
        what: "cat (I/O baseline)".into(),
        time: t,
        bytes: total,
        peak_rss: None,
        note: "read the database, warm cache".into(),
    });
    rows.extend(scans(&root, args, total, "no WAL"));

    // OpenCode running: its last writes are in the WAL, not yet in the database.
    let running = args
        .dir
        .join(format!("opencode-{}MB-running", args.size_mb));
    let writer = Running::start(&db, &running);
    writer.touch_a_session();
    rows.extend(scans(&running, args, total, "pending WAL"));
    let set = ProviderSet::new(
        &Roots::default().with(ProviderKind::Opencode, [&running]),
        &[ProviderKind::Opencode],
    );
    let provider = set.get(ProviderKind::Opencode).unwrap();
    let p = ScanProgress::default();
    let state = provider.scan(&Vec::new(), &p).unwrap().state;
    writer.touch_a_session();
    reset_peak();
    let start = Instant::now();
    let out = provider.scan(&state, &p).unwrap();
    rows.push(Row {
        what: "pending WAL: OpenCode writes a session, rescan".into(),
        time: start.elapsed(),
        bytes: total,
        peak_rss: peak_rss(),
        note: format!("{} changed; the database copied", out.changed.len()),
    });
    drop(writer);
    // As the CLI and the app do before they exit: the last copy would stay in the temp
    // directory (statics are not dropped at exit), 375 MB at --size-mb 300.
    agent_sessions_core::provider::sqlite::release_copies();
    print_table(&rows);
}

/// A cold scan (no previous state) and a rescan with nothing changed.
fn scans(root: &Path, args: &Args, total: u64, label: &str) -> Vec<Row> {
    let set = ProviderSet::new(
        &Roots::default().with(ProviderKind::Opencode, [root]),
        &[ProviderKind::Opencode],
    );
    let provider = set.get(ProviderKind::Opencode).unwrap();
    let p = ScanProgress::default();
    reset_peak();
    let (t, out) = best(args.runs, || provider.scan(&Vec::new(), &p).unwrap());
    let mut rows = vec![Row {
        what: format!("{label}: cold scan"),
        time: t,
        bytes: total,
        peak_rss: peak_rss(),
        note: format!("{} sessions listed", out.changed.len()),
    }];
    reset_peak();
    let (t, again) = best(args.runs, || provider.scan(&out.state, &p).unwrap());
    rows.push(Row {
        what: format!("{label}: warm rescan, nothing changed"),
        time: t,
        bytes: 0,
        peak_rss: peak_rss(),
        note: format!("{} changed", again.changed.len()),
    });
    rows
}

/// A copy of the corpus's store with a writer holding it open, as OpenCode does while it runs:
/// its writes stay in the WAL (no checkpoint). The database file is a hard link to the corpus's
/// (WAL writes leave it as it is; nothing is checkpointed at close), so making it is instant.
struct Running {
    conn: Connection,
    dir: PathBuf,
}

impl Running {
    fn start(db: &Path, dir: &Path) -> Running {
        let _ = fs::remove_dir_all(dir);
        fs::create_dir_all(dir).unwrap();
        let here = dir.join("opencode.db");
        if fs::hard_link(db, &here).is_err() {
            fs::copy(db, &here).unwrap();
        }
        let conn = Connection::open(&here).unwrap();
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .unwrap();
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
            .unwrap();
        Running {
            conn,
            dir: dir.to_path_buf(),
        }
    }

    /// OpenCode records a turn: the newest session's row is updated.
    fn touch_a_session(&self) {
        self.conn
            .execute(
                "UPDATE session SET time_updated = time_updated + 1000, title = title || '.'
                 WHERE id = (SELECT id FROM session ORDER BY time_updated DESC LIMIT 1)",
                [],
            )
            .unwrap();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}
