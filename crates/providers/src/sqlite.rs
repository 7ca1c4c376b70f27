//! Reading agents' SQLite stores safely while the agent writes them: read-only connections,
//! a short busy timeout instead of lock waits, no transaction held across queries, columns
//! read by name because every release adds some — and never a byte changed in the agent's
//! directory.
//!
//! SQLite itself writes beside a WAL database even on a read-only connection: it creates a
//! missing `-shm` (or a 0-byte `-wal`), and it writes read marks into an existing `-shm` (the
//! wal-index) on every read. A database with no `-wal` and no `-journal` holds everything in
//! its one file and is opened `immutable` (no side files, no locks). Otherwise the database
//! and its `-wal`/`-journal` are copied into a private directory and the copy is read: SQLite
//! rebuilds the wal-index (or rolls back a hot journal) there, and uncheckpointed rows stay
//! visible.

use std::collections::HashMap;
use std::fs::{DirBuilder, File, OpenOptions};
use std::io;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{types::ValueRef, Connection, OpenFlags, OptionalExtension, Row, Statement};

/// Side files whose content is part of the database; a `-shm` is only an index of the `-wal`.
const PENDING_SIDE_FILES: [&str; 2] = ["-wal", "-journal"];

/// How often a copy is retried when the database file changed while it was copied.
const COPY_ATTEMPTS: usize = 5;

/// An agent's database opened for reading: the agent's own file when SQLite can read it
/// without touching anything beside it, else a private copy. Derefs to the connection.
pub struct ReadOnlyDb {
    conn: Connection,
    /// Dropped after `conn` (fields drop in declaration order), so the copy outlives the
    /// connection reading it. Shared by the connections opened while the agent's files are
    /// unchanged (see [`shared_copy`]).
    copy: Option<Arc<PrivateDir>>,
}

impl ReadOnlyDb {
    /// The private directory holding the copy being read, if one was needed.
    pub fn copied_to(&self) -> Option<&Path> {
        self.copy.as_ref().map(|d| d.0.as_path())
    }
}

impl Deref for ReadOnlyDb {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.conn
    }
}

/// Opens an agent's SQLite file for reading only, never creating it and never creating,
/// changing or removing a file beside it (see the module comment for how).
pub fn open_read_only(path: &Path) -> rusqlite::Result<ReadOnlyDb> {
    require_regular_file(path)?;
    let pending: Vec<&str> = PENDING_SIDE_FILES
        .into_iter()
        .filter(|s| is_pending(&side_file(path, s)))
        .collect();
    if pending.is_empty() {
        let uri = format!("file:{}?immutable=1", uri_path(path));
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(uri, flags)?;
        conn.busy_timeout(Duration::from_millis(250))?;
        return Ok(ReadOnlyDb { conn, copy: None });
    }
    let dir = shared_copy(path, &pending).map_err(|e| cannot_copy(path, &e))?;
    let copy = dir.0.join("db");
    // Read-write so SQLite can rebuild the wal-index or roll back a hot journal in the copy;
    // `query_only` keeps our own statements from writing, and nothing is checkpointed at close
    // (the copy is deleted right after).
    let conn = Connection::open_with_flags(
        &copy,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    conn.pragma_update(None, "query_only", true)?;
    Ok(ReadOnlyDb {
        conn,
        copy: Some(dir),
    })
}

/// How long a copy is handed to new connections after it was made, while the agent's files
/// keep their stamps. A search or an index pass reads many sessions of one database in a few
/// seconds; copying it for each (twice: the copy shown is found, then read) made the work
/// grow with the number of sessions times the size of the database while the agent runs.
const REUSE: Duration = Duration::from_secs(5);

/// What a database's files looked like when a copy was made: the database's stamp and each
/// pending side file's.
type Stamps = Vec<(&'static str, (u64, Option<std::time::SystemTime>, [i64; 3]))>;

/// The latest copy of each database, while [`REUSE`] lasts.
static COPIES: Mutex<Vec<(PathBuf, Stamps, Arc<PrivateDir>)>> = Mutex::new(Vec::new());

fn copies() -> std::sync::MutexGuard<'static, Vec<(PathBuf, Stamps, Arc<PrivateDir>)>> {
    COPIES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Stops handing out the copies kept for reuse; each is deleted once no connection reads it.
/// A process calls it before it exits: a copy holds the user's sessions, and statics are not
/// dropped at exit (the next process's sweep would remove it only an hour later).
pub fn release_copies() {
    copies().clear();
}

fn stamps(db: &Path, pending: &[&'static str]) -> io::Result<Stamps> {
    let mut out = vec![("", stamp(db)?)];
    for suffix in pending {
        out.push((*suffix, stamp(&side_file(db, suffix))?));
    }
    Ok(out)
}

/// A private copy of `db` with its `pending` side files: the latest one made when the files
/// still have the stamps they had then and it is younger than [`REUSE`], else a new one. A
/// copy is deleted once it is no longer handed out and no connection reads it.
fn shared_copy(db: &Path, pending: &[&'static str]) -> io::Result<Arc<PrivateDir>> {
    let now = stamps(db, pending)?;
    let known = copies()
        .iter()
        .find(|(path, stamps, _)| path == db && *stamps == now)
        .map(|(_, _, dir)| dir.clone());
    if let Some(dir) = known {
        return Ok(dir);
    }
    let dir = Arc::new(PrivateDir::create()?);
    copy_consistent(db, pending, &dir.0.join("db"))?;
    let mut all = copies();
    all.retain(|(path, _, _)| path != db);
    all.push((db.to_path_buf(), now, dir.clone()));
    drop(all);
    let made = Arc::downgrade(&dir);
    // Without the thread the copy is kept until the next one of this database replaces it.
    let _ = std::thread::Builder::new()
        .name("snapshot-expiry".into())
        .spawn(move || {
            std::thread::sleep(REUSE);
            copies().retain(|(_, _, dir)| !std::ptr::eq(Arc::as_ptr(dir), made.as_ptr()));
        });
    Ok(dir)
}

/// Whether a side file holds part of the database. An empty one holds nothing: SQLite leaves a
/// 0-byte `-wal` after a checkpoint that truncates it (and a 0-byte `-journal` is never hot),
/// so the database file alone is whole and is read in place. Copying it for every read cost
/// a whole copy of an OpenCode database per session read (24 s of a 300 MB first search).
fn is_pending(side: &Path) -> bool {
    std::fs::symlink_metadata(side).is_ok_and(|m| !(m.is_file() && m.len() == 0))
}

/// A database and the WAL beside it (`<db>-wal`): rows written while the agent runs are in
/// the WAL until a checkpoint, so a change of either file is a change of the rows, and a
/// provider watches and stamps both.
pub fn with_wal(db: &Path) -> [PathBuf; 2] {
    [db.to_path_buf(), side_file(db, "-wal")]
}

fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

fn failure(code: std::os::raw::c_int, message: String) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), Some(message))
}

fn cannot_copy(path: &Path, e: &io::Error) -> rusqlite::Error {
    failure(
        rusqlite::ffi::SQLITE_CANTOPEN,
        format!(
            "cannot take a private copy of {} to read: {e}",
            path.display()
        ),
    )
}

/// Only a regular file is opened: SQLite (and a copy) would block forever on a named pipe.
fn require_regular_file(path: &Path) -> rusqlite::Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(_) => Err(failure(
            rusqlite::ffi::SQLITE_CANTOPEN,
            format!("{} is not a regular file", path.display()),
        )),
        Err(e) => Err(failure(
            rusqlite::ffi::SQLITE_CANTOPEN,
            format!("unable to open database file {}: {e}", path.display()),
        )),
    }
}

/// Copies the database and its pending side files into `to` so that together they are one
/// committed state: side files first, then the database, again when the database file changed
/// meanwhile (a checkpoint wrote it). A WAL that grows during the copy is fine: SQLite's
/// recovery keeps its frames up to the last complete commit, and frames a checkpoint already
/// wrote into the database hold the same pages.
fn copy_consistent(db: &Path, pending: &[&'static str], to: &Path) -> io::Result<()> {
    for _ in 0..COPY_ATTEMPTS {
        let before = stamp(db)?;
        for suffix in pending {
            match copy_private(&side_file(db, suffix), &side_file(to, suffix)) {
                // Gone since we looked: a WAL is deleted only once the database holds it all.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                other => other?,
            }
        }
        copy_private(db, to)?;
        if stamp(db)? == before {
            return Ok(());
        }
    }
    Err(io::Error::other(
        "the database kept changing while it was copied; try again",
    ))
}

/// What changes when a file's content is rewritten: size, times, inode.
fn stamp(path: &Path) -> io::Result<(u64, Option<std::time::SystemTime>, [i64; 3])> {
    let m = std::fs::metadata(path)?;
    #[cfg(unix)]
    let more = {
        use std::os::unix::fs::MetadataExt;
        [m.ino() as i64, m.ctime(), m.ctime_nsec()]
    };
    #[cfg(not(unix))]
    let more = [0; 3];
    Ok((m.len(), m.modified().ok(), more))
}

/// Copies a regular file into a new file of ours (0600), replacing an earlier copy.
fn copy_private(from: &Path, to: &Path) -> io::Result<()> {
    match std::fs::remove_file(to) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    if !std::fs::metadata(from)?.is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file",
            from.display()
        )));
    }
    let mut src = File::open(from)?;
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut dst = options.open(to)?;
    io::copy(&mut src, &mut dst)?;
    Ok(())
}

/// A directory of ours in the system temp dir (0700), removed with everything in it on drop.
struct PrivateDir(PathBuf);

const PRIVATE_PREFIX: &str = "agent-sessions-snapshot-";

impl PrivateDir {
    fn create() -> io::Result<PrivateDir> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        static SWEEP: std::sync::Once = std::sync::Once::new();
        let base = std::env::temp_dir();
        SWEEP.call_once(|| sweep_stale(&base));
        let pid = std::process::id();
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("{PRIVATE_PREFIX}{pid}-{n}"));
            #[cfg_attr(not(unix), allow(unused_mut))] // only unix sets a mode
            let mut builder = DirBuilder::new();
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                builder.mode(0o700);
            }
            match builder.create(&path) {
                Ok(()) => return Ok(PrivateDir(path)),
                // Left by an earlier process with our pid: take the next name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1 << 20 => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Removes copies left by processes that were killed while reading: those whose process is
/// gone and that are older than any read takes. (They hold the user's sessions.)
fn sweep_stale(base: &Path) {
    if !cfg!(unix) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(PRIVATE_PREFIX)
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > Duration::from_secs(3600));
        if old && pid != std::process::id() && !crate::process::is_running(pid, None) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// A path as the path part of a `file:` URI: `%`, `?` and `#` escaped, and on Unix every
/// byte outside ASCII too, so a name that is not UTF-8 reaches SQLite byte for byte (it
/// decodes `%HH` to the byte), where its lossy text named a file that is not there.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().into_owned().into_bytes();
    for b in bytes {
        match b {
            b'%' | b'?' | b'#' | 0x80.. => out.push_str(&format!("%{b:02x}")),
            b => out.push(char::from(b)),
        }
    }
    out
}

pub fn has_table(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    let sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1";
    Ok(conn
        .query_row(sql, [name], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Column positions of a prepared statement, by name.
pub struct Columns(HashMap<String, usize>);

impl Columns {
    pub fn of(stmt: &Statement<'_>) -> Self {
        Columns(
            stmt.column_names()
                .enumerate()
                .map(|(i, n)| (n.to_owned(), i))
                .collect(),
        )
    }

    pub fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// A non-empty text column (numbers and blobs are not text).
    pub fn text(&self, row: &Row<'_>, name: &str) -> Option<String> {
        match row.get_ref(*self.0.get(name)?).ok()? {
            ValueRef::Text(t) => {
                let s = String::from_utf8_lossy(t).into_owned();
                (!s.is_empty()).then_some(s)
            }
            _ => None,
        }
    }

    pub fn integer(&self, row: &Row<'_>, name: &str) -> Option<i64> {
        match row.get_ref(*self.0.get(name)?).ok()? {
            ValueRef::Integer(i) => Some(i),
            ValueRef::Real(f) => Some(f as i64),
            _ => None,
        }
    }

    pub fn real(&self, row: &Row<'_>, name: &str) -> Option<f64> {
        match row.get_ref(*self.0.get(name)?).ok()? {
            ValueRef::Integer(i) => Some(i as f64),
            ValueRef::Real(f) => Some(f),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<(std::ffi::OsString, Vec<u8>)> {
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| (e.file_name(), std::fs::read(e.path()).unwrap_or_default()))
            .collect();
        out.sort();
        out
    }

    /// A WAL database at `db` with table `t` of `rows` rows, and the writer's connection (a
    /// WAL beside the file while it is open, none once it is dropped).
    fn wal_db(db: &Path, rows: i64) -> Connection {
        let w = Connection::open(db).unwrap();
        w.pragma_update(None, "journal_mode", "wal").unwrap();
        w.execute_batch("CREATE TABLE t(x)").unwrap();
        for x in 1..=rows {
            w.execute("INSERT INTO t VALUES (?1)", [x]).unwrap();
        }
        w
    }

    fn count(conn: &Connection) -> i64 {
        conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn reading_a_quiet_wal_database_leaves_no_files_behind() {
        let dir = tempfile::tempdir().unwrap();
        // Characters a URI gives a meaning to (`?` only where the system allows it).
        let name = if cfg!(windows) {
            "odd name#1%.db"
        } else {
            "odd?name#1%.db"
        };
        let db = dir.path().join(name);
        drop(wal_db(&db, 1)); // closed: no WAL left
        let before = names(dir.path());
        assert_eq!(before.len(), 1, "{before:?}");
        let conn = open_read_only(&db).unwrap();
        assert!(conn.copied_to().is_none(), "nothing pending: read in place");
        assert_eq!(count(&conn), 1);
        assert!(
            conn.execute("INSERT INTO t VALUES (2)", []).is_err(),
            "must be read-only"
        );
        drop(conn);
        assert_eq!(names(dir.path()), before);
    }

    /// A database in a folder whose name is not UTF-8 (an agent's data folder under such a
    /// home) is the file opened, not the lossily named one beside it, which does not exist.
    #[cfg(unix)]
    #[test]
    fn a_database_under_a_name_that_is_not_utf8_is_opened_where_it_is() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir
            .path()
            .join(std::ffi::OsStr::from_bytes(b"data\xff \xc3\xa9"));
        std::fs::create_dir(&folder).unwrap();
        let db = folder.join("opencode.db");
        drop(wal_db(&db, 3));
        let conn = open_read_only(&db).unwrap();
        assert!(conn.copied_to().is_none());
        assert_eq!(count(&conn), 3);
    }

    /// An empty `-wal` (left by a truncating checkpoint) or `-journal` holds nothing: the
    /// database is read in place, untouched, with no copy.
    #[test]
    fn an_empty_wal_or_journal_is_read_in_place() {
        for side in ["-wal", "-journal"] {
            let dir = tempfile::tempdir().unwrap();
            let db = dir.path().join("x.db");
            drop(wal_db(&db, 2)); // closed: no WAL left
            std::fs::write(side_file(&db, side), b"").unwrap();
            let before = names(dir.path());
            let conn = open_read_only(&db).unwrap();
            assert!(conn.copied_to().is_none(), "{side}");
            assert_eq!(count(&conn), 2, "{side}");
            drop(conn);
            assert_eq!(names(dir.path()), before, "{side}: nothing touched");
            // One byte is something: copied, as before.
            std::fs::write(side_file(&db, side), b"x").unwrap();
            assert!(open_read_only(&db).map_or(true, |c| c.copied_to().is_some()));
        }
    }

    #[test]
    fn a_pending_wal_is_read_from_a_private_copy_that_goes_away() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        let w = wal_db(&db, 2);
        let before = names(dir.path());
        let conn = open_read_only(&db).unwrap();
        assert_eq!(count(&conn), 2);
        assert!(conn.execute("INSERT INTO t VALUES (3)", []).is_err());
        let copy = conn.copied_to().unwrap().to_path_buf();
        assert!(copy.starts_with(std::env::temp_dir()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&copy), 0o700);
            assert_eq!(mode(&copy.join("db")), 0o600);
            assert_eq!(mode(&copy.join("db-wal")), 0o600);
        }
        drop(conn);
        // Handed out for REUSE more, then removed (the connection is gone).
        let gone = (0..300).any(|_| {
            std::thread::sleep(Duration::from_millis(100));
            !copy.exists()
        });
        assert!(gone, "the copy is removed once it is not handed out");
        assert_eq!(names(dir.path()), before, "the agent's files are untouched");
        drop(w);
    }

    /// Connections opened while the agent's files are unchanged read one copy; a write of the
    /// agent's makes the next connection read a new copy, which holds it.
    #[test]
    fn a_copy_is_shared_until_the_agent_writes() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        let w = wal_db(&db, 1);
        let a = open_read_only(&db).unwrap();
        let b = open_read_only(&db).unwrap();
        assert_eq!(a.copied_to(), b.copied_to(), "one copy for both");
        assert_eq!((count(&a), count(&b)), (1, 1));
        // Concurrent readers of the copy, on other threads.
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| assert_eq!(count(&open_read_only(&db).unwrap()), 1));
            }
        });
        w.execute("INSERT INTO t VALUES (2)", []).unwrap();
        let c = open_read_only(&db).unwrap();
        assert_ne!(c.copied_to(), a.copied_to(), "the agent wrote: a new copy");
        assert_eq!(count(&c), 2);
        assert_eq!(count(&a), 1, "an open connection keeps its copy");
    }

    /// A rollback-journal database left mid-transaction (a crash): SQLite must roll the
    /// journal back before reading, which it may only do in a copy.
    #[test]
    fn a_hot_journal_is_rolled_back_in_the_copy_only() {
        let work = tempfile::tempdir().unwrap();
        let db = work.path().join("x.db");
        let w = Connection::open(&db).unwrap();
        w.execute_batch(
            "CREATE TABLE t(x);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
             INSERT INTO t SELECT randomblob(200) FROM n;
             PRAGMA cache_size = 2;
             BEGIN; DELETE FROM t; INSERT INTO t VALUES (1);",
        )
        .unwrap();
        // The transaction spilled into the database file: what a crash now would leave.
        let store = tempfile::tempdir().unwrap();
        for name in ["x.db", "x.db-journal"] {
            std::fs::copy(work.path().join(name), store.path().join(name)).unwrap();
        }
        drop(w);
        let before = names(store.path());
        let conn = open_read_only(&store.path().join("x.db")).unwrap();
        assert_eq!(count(&conn), 2000, "the rolled-back state, not a torn one");
        drop(conn);
        assert_eq!(names(store.path()), before);
    }

    #[cfg(unix)]
    #[test]
    fn a_named_pipe_is_refused_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        let fifo = |p: &Path| {
            let ok = std::process::Command::new("mkfifo")
                .arg(p)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "mkfifo");
        };
        fifo(&db);
        let e = open_read_only(&db).err().unwrap();
        assert!(e.to_string().contains("not a regular file"), "{e}");

        std::fs::remove_file(&db).unwrap();
        Connection::open(&db)
            .unwrap()
            .execute_batch("CREATE TABLE t(x)")
            .unwrap();
        fifo(&dir.path().join("x.db-wal"));
        let e = open_read_only(&db).err().unwrap();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
}
