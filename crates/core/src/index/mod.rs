//! The cache: a SQLite file of our own that remembers every provider's scan state and every
//! session's metadata, and holds an FTS5 index of message text. With it, listing sessions never
//! parses a transcript and searching never reads a store.
//!
//! `$XDG_CACHE_HOME/agent-sessions/index-v<N>-<hash of roots>.db`, created 0600 in a 0700
//! directory, WAL mode. Each provider's changes are committed in one transaction together with
//! its new scan state, so a process killed mid-scan leaves the previous consistent state and the
//! next run redoes the rest. Write transactions begin `IMMEDIATE`, so a second process waits
//! for the first (busy timeout) instead of failing when its read turns into a write. The file is
//! ours and disposable: a damaged one is emptied and refilled from the stores.
//!
//! The message text is split over [`SHARDS`] files by session (the cache file holds the first
//! share and every title; `index-v<N>-<hash>-text<k>.db` the others, attached to the cache's
//! connection as `text<k>`), so that as many threads write FTS5 at once: one FTS5 writer was the
//! whole critical path of indexing (`docs/performance.md`).

mod direct;
pub mod lock;
mod query;
mod rank;
pub(crate) mod resume;
mod stored_path;
mod text;
mod tokens;

pub use query::{MAX_QUERY_CHARS, MAX_TERMS};
pub use tokens::Tokenizer;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::config::DbConfig;
use rusqlite::{
    params, Connection, ErrorCode, OpenFlags, OptionalExtension, Transaction, TransactionBehavior,
};
use serde::Serialize;

use crate::error::Error;
use crate::model::{Diagnostic, Diagnostics, ProviderKind, SessionMeta};
use crate::provider::files::fnv1a;
use crate::provider::{ProviderSet, Roots, ScanProgress, SessionKey};
use stored_path::Stored;

/// Bump when the schema or the meaning of stored data changes; older files are left alone.
pub const SCHEMA_VERSION: u32 = 7;

/// How many of the newest matches a search ranks.
pub const RANKED_CANDIDATES: usize = 1000;

/// Markers around matched terms in snippets.
pub const MARK_START: &str = "«";
pub const MARK_END: &str = "»";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS provider_state (
  provider TEXT PRIMARY KEY,
  state BLOB NOT NULL,
  problems INTEGER NOT NULL DEFAULT 0
);
-- AUTOINCREMENT: a shard's rows of a removed session are deleted in a transaction of their own
-- file, so a race with another process's writer can leave some behind; a rowid never used
-- again keeps them from ever naming another session.
CREATE TABLE IF NOT EXISTS sessions (
  rowid INTEGER PRIMARY KEY AUTOINCREMENT,
  provider TEXT NOT NULL,
  id TEXT NOT NULL,
  source_path TEXT NOT NULL,
  updated_at INTEGER,
  cwd TEXT,
  repo_root TEXT,
  title TEXT,
  meta TEXT NOT NULL,
  text_indexed INTEGER NOT NULL DEFAULT 0,
  -- 1 when reading the session means parsing it whole (rows of a database, one JSON
  -- document): a search reads those slowly until they are indexed, so they are indexed first.
  read_whole INTEGER NOT NULL DEFAULT 0,
  UNIQUE (provider, id, source_path)
);
CREATE INDEX IF NOT EXISTS sessions_pending ON sessions (text_indexed);
CREATE TABLE IF NOT EXISTS diagnostics (
  provider TEXT NOT NULL,
  path TEXT NOT NULL,
  line INTEGER,
  reason TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS diagnostics_provider ON diagnostics (provider);
";

/// The text tables of one shard, in database `{db}` (`main` or an attached `text<k>`).
const TEXT_SCHEMA: &str = "
-- `line`: the first line of the message's records (0: none), see `resume`.
CREATE TABLE IF NOT EXISTS {db}.indexed_messages (
  session INTEGER NOT NULL,
  message_id TEXT NOT NULL,
  hash INTEGER NOT NULL,
  fts_rowid INTEGER NOT NULL,
  line INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (session, message_id)
) WITHOUT ROWID;
-- No prefix indexes: they were 60% of the indexing time. A prefix query is answered by an OR
-- of the terms that start with it, from `terms`: every term of the indexed text, written in
-- the transaction that indexes it (a term whose rows are gone later stays, matching nothing).
CREATE VIRTUAL TABLE IF NOT EXISTS {db}.fts USING fts5(
  title, body, session UNINDEXED, message_id UNINDEXED,
  tokenize = 'as_cjk'
);
CREATE TABLE IF NOT EXISTS {db}.terms (term TEXT PRIMARY KEY) WITHOUT ROWID;
";

/// Every table of one shard's text, in database `db`: its rows ([`TEXT_SCHEMA`]), what it owes
/// ([`SHARD_STATE_SCHEMA`]) and its sessions' resume points ([`resume::SCHEMA`]).
fn text_schema(db: &str) -> String {
    [TEXT_SCHEMA, SHARD_STATE_SCHEMA, resume::SCHEMA]
        .concat()
        .replace("{db}", db)
}

/// The FTS5 tokenizer of the index (in [`SCHEMA`]), also used to match sessions read directly:
/// `unicode61 remove_diacritics 2`, but one token per Chinese, Japanese or Korean character
/// (`tokens.rs`). Registered on each connection by [`functions`].
const TOKENIZER: &str = tokens::NAME;

/// Registers our tokenizer and rank function on a connection to the cache: FTS5 makes a table's
/// tokenizer when the connection first opens the table, so this comes before any statement on
/// one (a table whose tokenizer is missing cannot be read or written at all).
fn functions(conn: &Connection) -> rusqlite::Result<()> {
    tokens::register(conn)?;
    rank::register(conn)
}

/// A connection to one of the cache's files ([`cache_files`]) with the index's tokenizer and
/// rank function registered: what a tool or a test that writes its full-text tables directly
/// needs (FTS5 refuses to write them, or to match in them, without the tokenizer).
pub fn open_file(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    functions(&conn)?;
    Ok(conn)
}

/// FTS5's settings, stored in the table (set once, when it is created). `hashsize`: the terms
/// of a transaction are gathered in memory up to this size before FTS5 writes them out as a
/// segment. The default, 1 MiB, cut a 32 MB transaction into dozens of small segments to merge
/// again (text indexing took 29 s of CPU instead of 17 s on the 300 MB corpus); 64 MiB cost
/// 40 MB more peak memory and saved nothing measurable (`docs/performance.md`).
const FTS_SETTINGS: &str = "
INSERT INTO {db}.fts (fts, rank) VALUES ('hashsize', 33554432);
";

/// How many files the message text is split over, each written by its own thread at once: the
/// session with rowid `r` has its message rows in shard `r % SHARDS` (titles are all in the
/// cache file). FTS5's inserts were ≈ 5 s of the one writer's ≈ 6.5 s at 300 MB, on one core
/// (`docs/performance.md`). Changing it changes the meaning of the files: bump
/// [`SCHEMA_VERSION`].
const SHARDS: usize = 2;

/// The shard holding the message rows of the session with this rowid.
fn shard_of(rowid: i64) -> usize {
    rowid.rem_euclid(SHARDS as i64) as usize
}

/// The file of shard `k` of the cache file at `path` (the cache file itself for shard 0).
fn shard_path_of(path: &Path, k: usize) -> PathBuf {
    match k {
        0 => path.to_path_buf(),
        k => shard_path(path, k),
    }
}

/// The name of shard `k`'s database on the cache's connection.
fn shard_db(k: usize) -> String {
    match k {
        0 => "main".to_owned(),
        k => format!("text{k}"),
    }
}

/// The file of shard `k` ≥ 1, beside the cache file (`index-v5-<hash>-text1.db`).
fn shard_path(path: &Path, k: usize) -> PathBuf {
    let name = path.file_stem().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!("{name}-text{k}.db"))
}

/// The cache file at `path` and every shard file beside it.
pub fn cache_files(path: &Path) -> Vec<PathBuf> {
    let mut paths = vec![path.to_path_buf()];
    paths.extend((1..SHARDS).map(|k| shard_path(path, k)));
    paths
}

/// How long a writer waits for another process's write transaction before giving up.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

pub struct Index {
    conn: Connection,
    /// Connections a search reads the other shards with, at once (opened at the first search):
    /// every shard's query is its own walk, and on one connection they ran one after another
    /// (a broad prefix, hundreds of terms looked up in each shard: 1 GB p95 17 → 28 ms).
    readers: std::sync::Mutex<Vec<Connection>>,
    /// Connections to one file each that the list's writes go through (opened when first
    /// needed): a write transaction on `conn` would lock every attached file, and another
    /// process indexing holds one or the other most of the time (see [`Index::write_to`]).
    files: Vec<Option<Connection>>,
    path: PathBuf,
    /// The identity of the files `conn` opened (see [`file_ids`]).
    opened: Vec<FileId>,
    /// What opening did that the user should hear about (a damaged cache rebuilt).
    warnings: Vec<String>,
    /// The page cache's bytes right after it was last emptied (see [`Index::shrink_caches`]).
    cache_floor: std::sync::atomic::AtomicI64,
}

/// What one refresh changed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RefreshReport {
    pub changed: usize,
    pub removed: usize,
}

/// What a search found, and how.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SearchResults {
    pub hits: Vec<Hit>,
    /// Sessions whose text was not in the index yet, searched by reading them (none when the
    /// index alone filled the limit).
    pub read_directly: usize,
    /// Of those, sessions that could not be read.
    pub unreadable: usize,
    /// Matches may be missing: some sessions could not be read.
    pub partial: bool,
}

/// Restricts a search.
#[derive(Debug, Clone, Default)]
pub struct SearchFilter {
    pub providers: Vec<ProviderKind>,
    /// Sessions whose cwd or repo root is this directory or below it.
    pub dir: Option<String>,
    /// Sessions updated at or after this time (ms since the epoch).
    pub since_ms: Option<i64>,
    pub until_ms: Option<i64>,
    pub limit: usize,
}

/// One search result: a message (or the title, with an empty `message_id`). Read back from a
/// remote's answer too.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, ts_rs::TS)]
pub struct Hit {
    pub session_id: String,
    pub provider: ProviderKind,
    pub message_id: String,
    pub title: Option<String>,
    pub snippet: String,
    /// Higher is better (negated BM25).
    pub score: f64,
    /// The session's file: one session id can be in two files (a project folder copied beside
    /// itself), and a hit opens its own. Empty from a remote server that predates it. In
    /// JSON, lossy where the name is not UTF-8 (`model::path`).
    #[serde(default, with = "crate::model::path::os")]
    #[ts(type = "string")]
    pub source_path: PathBuf,
}

/// The cache directory: `AGENT_SESSIONS_CACHE_DIR`, else the per-OS cache dir
/// (`$XDG_CACHE_HOME/agent-sessions` on Linux, `~/Library/Caches/agent-sessions` on macOS).
pub fn cache_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(dir) = env("AGENT_SESSIONS_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "agent-sessions").map(|d| d.cache_dir().to_path_buf())
}

/// The cache file for these roots: a different set of roots gets a different file.
pub fn index_path(dir: &Path, roots: &Roots) -> PathBuf {
    // Each root byte for byte: lossily, two roots whose names are not UTF-8 shared a file.
    // (For a UTF-8 root the bytes are its text, so the file is the one it always was.)
    let mut key = Vec::new();
    for kind in ProviderKind::ALL {
        for r in roots.for_kind(kind) {
            key.extend_from_slice(kind.as_str().as_bytes());
            key.push(b'=');
            key.extend_from_slice(&stored_path::os_bytes(r.as_os_str()));
            key.push(b'\n');
        }
    }
    dir.join(format!("index-v{SCHEMA_VERSION}-{:016x}.db", fnv1a(&key)))
}

/// Deletes every cache file of ours in `dir` (all versions and roots). Returns what it deleted.
/// (Only our own file names: the directory may be one the user shares with other things.)
pub fn clear(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(removed);
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("index-v")
            && (name.ends_with(".db") || name.ends_with(".db-wal") || name.ends_with(".db-shm"))
        {
            std::fs::remove_file(e.path()).map_err(|err| Error::Cache {
                path: e.path(),
                reason: format!("cannot delete it: {}", held_open(&err)),
            })?;
            removed.push(e.path());
        }
    }
    removed.sort();
    Ok(removed)
}

/// Why a cache file could not be deleted, said plainly where Windows refuses to delete a file
/// another process has open (its sharing violation, error 32): a running app or CLI holds
/// the cache, which Linux and macOS would delete from under it.
fn held_open(err: &std::io::Error) -> String {
    const SHARING_VIOLATION: i32 = 32;
    if cfg!(windows) && err.raw_os_error() == Some(SHARING_VIOLATION) {
        format!("another program has it open (close agent-sessions and try again): {err}")
    } else {
        err.to_string()
    }
}

/// What a SQLite error on the cache means for the user: busy (another process writes), damaged
/// (rebuild it), unwritable (point the cache elsewhere), or something else.
fn cache_error(path: &Path, e: rusqlite::Error) -> Error {
    let (path, reason) = (path.to_path_buf(), e.to_string());
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            Error::CacheBusy { path, reason }
        }
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
            Error::CacheCorrupt { path, reason }
        }
        Some(
            ErrorCode::ReadOnly
            | ErrorCode::CannotOpen
            | ErrorCode::PermissionDenied
            | ErrorCode::DiskFull,
        ) => Error::CacheUnwritable { path, reason },
        _ => Error::Cache { path, reason },
    }
}

/// What the user is told after a damaged cache was emptied and refilled.
pub fn rebuilt_warning(path: &Path, reason: &str) -> String {
    format!(
        "the session cache {} was damaged ({reason}); it was rebuilt from the agents' stores",
        path.display()
    )
}

/// Opens the cache file with its busy handler; the schema comes with [`setup`].
fn connect(path: &Path) -> Result<Connection, Error> {
    without_memory_statistics();
    let mut conn = Connection::open(path).map_err(|e| cache_error(path, e))?;
    conn.busy_handler(Some(wait_busy))
        .map_err(|e| cache_error(path, e))?;
    Ok(conn)
}

/// How often a connection that finds the cache locked tries again.
const BUSY_POLL: std::time::Duration = std::time::Duration::from_millis(2);

/// SQLite's busy handler for our connections: try again every [`BUSY_POLL`] for up to
/// [`BUSY_TIMEOUT`]. SQLite's own (`busy_timeout`) sleeps up to 100 ms between tries, and a
/// text writer starts its next transaction [`WRITER_PAUSE`] after the last: another process
/// listing beside a long indexing pass missed every gap and failed "busy" after 5 s
/// (`docs/performance.md`, sixth step).
fn wait_busy(tries: i32) -> bool {
    let waited = BUSY_POLL * u32::try_from(tries).unwrap_or(u32::MAX);
    if waited >= BUSY_TIMEOUT {
        return false;
    }
    std::thread::sleep(BUSY_POLL);
    true
}

/// Turns SQLite's memory statistics off, once, if SQLite has not started yet in this process.
/// With them on, every allocation of every connection takes one process-wide mutex: a search's
/// shards read at once on two connections took longer than one after the other (a prefix
/// spelled out as 627 terms: 18–20 ms in turn, 27–30 ms at once), while two processes did not
/// slow each other. Too late once SQLite has started (a store read first): it stays on, slower.
pub fn without_memory_statistics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: sqlite3_config takes this option with one int; before sqlite3_initialize it
        // only sets a flag, after it returns SQLITE_MISUSE and changes nothing.
        unsafe {
            rusqlite::ffi::sqlite3_config(rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS, 0);
        }
    });
}

/// Hands freed memory back to the system: what an indexing pass's threads freed, and what an
/// idle service's emptied page caches left (`service::release_idle_memory`). glibc's malloc gives
/// each new thread an arena of its own (up to sixteen here) and keeps what was freed in it, so
/// an app's worker, which starts new threads for every step, added up what each step's threads
/// held: its cold start in steps peaked at 152–163 MB against 126–140 MB in one pass. (Two
/// arenas at most kept it at 128 MB but slowed searches, whose shards' reader threads then
/// shared one: p95 20 ms against 8 ms, `docs/performance.md`.)
pub(crate) fn release_freed_memory() {
    // SAFETY: malloc_trim only returns free memory of the allocator's arenas to the system.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The bytes of page cache a connection holds over all its files.
fn page_cache_used(conn: &Connection) -> i64 {
    let (mut current, mut high) = (0, 0);
    // SAFETY: the handle is the live connection's; the two outputs are plain ints.
    unsafe {
        rusqlite::ffi::sqlite3_db_status(
            conn.handle(),
            rusqlite::ffi::SQLITE_DBSTATUS_CACHE_USED,
            &mut current,
            &mut high,
            0,
        );
    }
    i64::from(current)
}

/// A connection that writes text to one file (the cache file or a shard's): WAL mode is the
/// file's, `synchronous` the connection's. It never creates the file: only [`setup`] makes a
/// cache's files (private, with their schema).
fn writer(path: &Path) -> Result<Connection, Error> {
    without_memory_statistics();
    let flags = OpenFlags::default().difference(OpenFlags::SQLITE_OPEN_CREATE);
    let mut conn = Connection::open_with_flags(path, flags).map_err(|e| cache_error(path, e))?;
    conn.busy_handler(Some(wait_busy))
        .map_err(|e| cache_error(path, e))?;
    conn.pragma_update(None, "synchronous", "normal")
        .map_err(|e| cache_error(path, e))?;
    tokens::register(&conn).map_err(|e| cache_error(path, e))?;
    Ok(conn)
}

/// A file's device and inode (`None`: missing; always `None` off Unix, where an open file
/// cannot be deleted).
type FileId = Option<(u64, u64)>;

/// The identity of each of the cache's files at its paths now. Text writers and search readers
/// open the files by name while the cache's connection keeps those it opened: after another
/// process deleted them (`cache clear`) and maybe made new ones, a writer would write this
/// cache's rowids, which there name other sessions, into the other cache's files, and a reader
/// would read them.
fn file_ids(path: &Path) -> Vec<FileId> {
    cache_files(path)
        .iter()
        .map(|file| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                std::fs::metadata(file).ok().map(|m| (m.dev(), m.ino()))
            }
            #[cfg(not(unix))]
            {
                let _ = file;
                None
            }
        })
        .collect()
}

/// WAL mode, the schema and the rank function. The schema is created in an immediate
/// transaction so that several processes opening a new cache at once wait for each other.
fn setup(conn: &mut Connection, path: &Path) -> Result<(), Error> {
    let err = |e| cache_error(path, e);
    // 32 KB pages, set before WAL mode writes the file's first page (the size is fixed from then
    // on: an existing cache keeps its own). Most of the cache is message text and FTS5 segments,
    // rows of several KB each, which in 4 KB pages spilled into chains of overflow pages: 32 KB
    // cut the kernel's share of filling the index and ≈ 1 s of 9–10 s at 300 MB, for a 6%
    // bigger file and no change in query times (`docs/performance.md`).
    busy_retried(|| file_settings(conn, "main")).map_err(err)?;
    attach_shards(conn, path)?;
    // A cache in use is opened without a write lock: the files' one writer each, another
    // process indexing, hold them most of the time.
    if ready(conn).map_err(err)? {
        return functions(conn).map_err(err);
    }
    // The schema's tables are made with the tokenizer (a file that cannot be read failed above).
    tokens::register(conn).map_err(err)?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(err)?;
    let had_sessions = has_table(&tx, "main", "sessions").map_err(err)?;
    tx.execute_batch(SCHEMA).map_err(err)?;
    // No session listed: no text row is anyone's. (Not only when the cache file is new: SQLite
    // commits the attached files one after the other, so a kill can leave a new cache file's
    // schema committed and its shards' emptying not.)
    let listed: bool = tx
        .query_row("SELECT EXISTS (SELECT 1 FROM main.sessions)", [], |r| {
            r.get(0)
        })
        .map_err(err)?;
    for k in 0..SHARDS {
        let db = shard_db(k);
        let had_text = has_table(&tx, &db, "fts").map_err(err)?;
        tx.execute_batch(&text_schema(&db)).map_err(err)?;
        if !had_text {
            tx.execute_batch(&FTS_SETTINGS.replace("{db}", &db))
                .map_err(err)?;
        }
        // The files belong together: a shard file created anew (deleted by hand) means its
        // sessions' text must be indexed again; a cache file created anew (no sessions), that a
        // left-over shard's rows name sessions that are gone.
        if had_sessions && !had_text {
            tx.execute(
                "UPDATE sessions SET text_indexed = 0 WHERE rowid % ?1 = ?2",
                params![SHARDS as i64, k as i64],
            )
            .map_err(err)?;
        } else if !listed && had_text {
            tx.execute_batch(&format!(
                "DELETE FROM {db}.fts; DELETE FROM {db}.indexed_messages; DELETE FROM {db}.terms;
                 DELETE FROM {db}.text_resume;"
            ))
            .map_err(err)?;
        }
    }
    tx.commit().map_err(err)?;
    // Searches rank with it (after the schema: FTS5 is reached through a statement, which a
    // damaged file would fail first).
    rank::register(conn).map_err(err)
}

/// Attaches every shard's file to `conn` as `text<k>` (once), with its settings.
fn attach_shards(conn: &Connection, path: &Path) -> Result<(), Error> {
    for k in 1..SHARDS {
        let shard = shard_path(path, k);
        create_private(&shard)?;
        let db = shard_db(k);
        let attached: bool = conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM pragma_database_list WHERE name = ?1)",
                [&db],
                |r| r.get(0),
            )
            .map_err(|e| cache_error(path, e))?;
        if !attached {
            busy_retried(|| {
                conn.execute(
                    "ATTACH DATABASE ?1 AS ?2",
                    params![shard.to_string_lossy(), db],
                )
            })
            .map_err(|e| cache_error(&shard, e))?;
        }
        busy_retried(|| file_settings(conn, &db)).map_err(|e| cache_error(&shard, e))?;
    }
    Ok(())
}

/// A connection a search reads with, beside the cache's own: the same files and functions.
fn reader(path: &Path) -> Result<Connection, Error> {
    let conn = connect(path)?;
    attach_shards(&conn, path)?;
    functions(&conn).map_err(|e| cache_error(path, e))?;
    Ok(conn)
}

/// A file's page size (before its first page is written) and journal: see [`setup`].
fn file_settings(conn: &Connection, db: &str) -> rusqlite::Result<()> {
    conn.pragma_update(Some(db), "page_size", 32768)?;
    conn.pragma_update(Some(db), "journal_mode", "wal")?;
    conn.pragma_update(Some(db), "synchronous", "normal")
}

/// Runs `f` again while SQLite says the database is busy, up to [`BUSY_TIMEOUT`]. For the steps
/// of opening a new cache that SQLite does not wait on itself: changing a new file to WAL mode
/// reads it and then locks it, and SQLite answers "busy" at once rather than wait where waiting
/// could deadlock — several processes opening one new cache at once hit it (a test does).
fn busy_retried<T>(mut f: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let start = std::time::Instant::now();
    loop {
        match f() {
            Err(e)
                if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
                    && start.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

/// Whether the cache's schema is complete in every file and it lists sessions (a cache with
/// none is set up in a write transaction: see [`setup`]).
fn ready(conn: &Connection) -> rusqlite::Result<bool> {
    if !has_table(conn, "main", "sessions")? {
        return Ok(false);
    }
    for k in 0..SHARDS {
        let db = shard_db(k);
        for table in [
            "fts",
            "indexed_messages",
            "terms",
            "text_resume",
            "shard_state",
        ] {
            if !has_table(conn, &db, table)? {
                return Ok(false);
            }
        }
    }
    conn.query_row("SELECT EXISTS (SELECT 1 FROM main.sessions)", [], |r| {
        r.get(0)
    })
}

/// Whether database `db` has a table (or virtual table) named `name`.
fn has_table(tx: &Connection, db: &str, name: &str) -> rusqlite::Result<bool> {
    tx.query_row(
        &format!("SELECT EXISTS (SELECT 1 FROM {db}.sqlite_master WHERE name = ?1)"),
        [name],
        |r| r.get(0),
    )
}

/// Empties a damaged database in place (SQLite's documented reset: works on a corrupt file, and
/// other connections to the file see the empty database rather than a deleted file).
/// Every shard attached is emptied too: the files belong together.
fn reset(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_RESET_DATABASE, true)?;
    let vacuumed =
        (0..SHARDS).try_for_each(|k| conn.execute_batch(&format!("VACUUM {}", shard_db(k))));
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_RESET_DATABASE, false)?;
    vacuumed
}

impl Index {
    /// Opens (creating if needed) the cache for `roots` in `dir`. A damaged cache file is
    /// rebuilt (see [`Index::warnings`]).
    pub fn open(dir: &Path, roots: &Roots) -> Result<Index, Error> {
        create_private_dir(dir)?;
        let path = index_path(dir, roots);
        create_private(&path)?;
        let mut index = Index {
            conn: connect(&path)?,
            readers: Default::default(),
            files: Vec::new(),
            path,
            opened: Vec::new(),
            warnings: Vec::new(),
            cache_floor: Default::default(),
        };
        match setup(&mut index.conn, &index.path) {
            Err(Error::CacheCorrupt { reason, .. }) => {
                index.rebuild()?;
                index.warnings.push(rebuilt_warning(&index.path, &reason));
            }
            other => other?,
        }
        index.opened = file_ids(&index.path);
        Ok(index)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What opening did that the user should know (a damaged cache rebuilt), taken once.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Throws the cache's content away and starts empty: the cache is disposable, and the next
    /// refresh fills it from the stores. Emptied in place when SQLite can; else the files are
    /// deleted and created again.
    pub fn rebuild(&mut self) -> Result<(), Error> {
        self.close_others();
        self.conn.flush_prepared_statement_cache();
        if reset(&self.conn).is_ok() && setup(&mut self.conn, &self.path).is_ok() {
            self.opened = file_ids(&self.path);
            return Ok(());
        }
        let placeholder = Connection::open_in_memory().map_err(|e| cache_error(&self.path, e))?;
        drop(std::mem::replace(&mut self.conn, placeholder));
        for path in cache_files(&self.path) {
            for suffix in ["-wal", "-shm", ""] {
                let file = PathBuf::from(format!("{}{suffix}", path.display()));
                match std::fs::remove_file(&file) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(Error::CacheCorrupt {
                            path: self.path.clone(),
                            reason: format!("cannot delete {}: {e}", file.display()),
                        })
                    }
                    _ => {}
                }
            }
        }
        self.open_again()
    }

    /// Opens the cache's files anew at its paths (creating them, as [`Index::open`] does).
    fn open_again(&mut self) -> Result<(), Error> {
        create_private(&self.path)?;
        self.conn = connect(&self.path)?;
        setup(&mut self.conn, &self.path)?;
        self.opened = file_ids(&self.path);
        Ok(())
    }

    /// Follows the cache's files when another process deleted or replaced them since this one
    /// opened them (`cache clear`): the next refresh fills the new files, as it would a new
    /// cache, instead of this process writing to files no one else sees — or, through writers
    /// that open them by name, into the new cache (rowids that name other sessions there).
    fn follow_replaced(&mut self) -> Result<(), Error> {
        if file_ids(&self.path) == self.opened {
            return Ok(());
        }
        self.close_others();
        let placeholder = Connection::open_in_memory().map_err(|e| cache_error(&self.path, e))?;
        drop(std::mem::replace(&mut self.conn, placeholder));
        self.open_again()
    }

    /// Fails when the files at the cache's paths are not the ones its connection opened (see
    /// [`file_ids`]).
    fn same_files(&self) -> Result<(), Error> {
        if file_ids(&self.path) == self.opened {
            return Ok(());
        }
        Err(Error::Cache {
            path: self.path.clone(),
            reason: "its files were deleted or replaced while the text was being indexed (the cache was cleared); the next refresh fills the new cache".into(),
        })
    }

    fn err(&self, e: rusqlite::Error) -> Error {
        cache_error(&self.path, e)
    }

    /// Brings the cache up to date with the stores: each provider scans from its stored state,
    /// and its changes and new state are committed together.
    pub fn refresh(
        &mut self,
        providers: &ProviderSet,
        progress: &ScanProgress,
    ) -> Result<RefreshReport, Error> {
        self.refresh_with(providers, progress, &mut |_, _| {})
    }

    /// [`Index::refresh`], calling `on_commit` with each provider's changes as they land, so a
    /// first scan can show each agent's sessions as soon as that agent is done (and a service
    /// can tell which sessions changed).
    pub fn refresh_with(
        &mut self,
        set: &ProviderSet,
        progress: &ScanProgress,
        on_commit: &mut dyn FnMut(ProviderKind, &crate::provider::ScanOutput),
    ) -> Result<RefreshReport, Error> {
        self.follow_replaced()?;
        let mut report = RefreshReport::default();
        let states: Vec<Vec<u8>> = set
            .iter()
            .map(|p| self.state(p.kind()))
            .collect::<Result<_, _>>()?;
        let mut known = self.session_dirs()?;
        // And the directories a restore wrote a session into, remembered beside this file.
        if let Some(cache) = self.path.parent() {
            known.extend(crate::near::dirs(cache));
        }
        // Commit each provider as its scan finishes.
        set.scan_each_near(
            &states,
            progress,
            &known,
            &mut |kind, output| -> Result<(), Error> {
                let read_whole =
                    |meta: &SessionMeta| set.get(kind).is_none_or(|p| !p.reads_in_part(meta));
                self.commit(kind, &output, &read_whole)?;
                report.changed += output.changed.len();
                report.removed += output.removed.len();
                on_commit(kind, &output);
                Ok(())
            },
        )?;
        Ok(report)
    }

    /// One provider's scan result, with its new state, in one transaction.
    fn commit(
        &mut self,
        kind: ProviderKind,
        output: &crate::provider::ScanOutput,
        read_whole: &dyn Fn(&SessionMeta) -> bool,
    ) -> Result<(), Error> {
        self.release_text(&output.removed)?;
        // Made only for a scan that changed sessions: each is a tokenizer on a connection of
        // its own and 256 KB of recent terms, and every idle tick commits every agent's scan
        // (its state), which built eight of them each 5 s for nothing (docs/performance.md,
        // "Sixth round").
        let mut terms = match output.changed.is_empty() {
            true => None,
            false => Some(tokens::NewTerms::new().map_err(|e| self.err(e))?),
        };
        self.write_to(0, |tx| {
            for key in &output.removed {
                remove_session(tx, key)?;
            }
            if let Some(terms) = terms.as_mut() {
                for meta in &output.changed {
                    upsert_session(tx, meta, read_whole(meta), terms)?;
                }
            }
            replace_diagnostics(tx, kind, &output.diagnostics)?;
            tx.execute(
                "INSERT INTO provider_state (provider, state, problems) VALUES (?1, ?2, ?3)
                 ON CONFLICT (provider) DO UPDATE SET state = excluded.state, problems = excluded.problems",
                params![kind.as_str(), output.state, output.diagnostics.parse_errors as i64],
            )?;
            Ok(())
        })
    }

    /// Drops sessions from the cache at once (their text too), as a trash or delete leaves
    /// them: the list stops showing them before the next refresh notices the files are gone.
    pub fn forget(&mut self, keys: &[SessionKey]) -> Result<(), Error> {
        self.release_text(keys)?;
        self.write_to(0, |tx| {
            keys.iter().try_for_each(|key| remove_session(tx, key))
        })
    }

    /// Runs `f` in a write transaction on a connection to shard `k`'s file alone (the cache
    /// file for 0, where it is `main`) and commits it.
    fn write_to<T>(
        &mut self,
        k: usize,
        f: impl FnOnce(&Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T, Error> {
        let path = self.file_path(k);
        let tx = self
            .file_conn(k)?
            .transaction_with_behavior(TransactionBehavior::Immediate);
        let done = tx.and_then(|tx| {
            let out = f(&tx)?;
            tx.commit().map(|()| out)
        });
        done.map_err(|e| cache_error(&path, e))
    }

    /// Shard `k`'s file (the cache file for 0).
    fn file_path(&self, k: usize) -> PathBuf {
        shard_path_of(&self.path, k)
    }

    /// A connection to shard `k`'s file alone, opened when first needed and kept: the list's
    /// writes and the text writers go through it.
    fn file_conn(&mut self, k: usize) -> Result<&mut Connection, Error> {
        let path = self.file_path(k);
        if self.files.len() <= k {
            self.files.resize_with(k + 1, || None);
        }
        Ok(match &mut self.files[k] {
            Some(conn) => conn,
            empty => empty.insert(writer(&path)?),
        })
    }

    /// Empties this cache's connections' page caches (`PRAGMA shrink_memory`, every attached
    /// file), which SQLite otherwise keeps until the connection next reads: what an app gone
    /// idle need not hold. Whether there was anything to free (more than a connection keeps
    /// however empty: its scratch page per file); the memory goes back to the system with
    /// [`release_freed_memory`].
    pub fn shrink_caches(&self) -> bool {
        let floor = self.cache_floor.load(std::sync::atomic::Ordering::Relaxed);
        if self.cache_used() <= floor {
            return false;
        }
        // A connection that cannot shrink keeps its pages: nothing is lost, only kept.
        self.each_connection(|conn| drop(conn.execute_batch("PRAGMA shrink_memory")));
        let left = self.cache_used();
        self.cache_floor
            .store(left, std::sync::atomic::Ordering::Relaxed);
        true
    }

    /// Bytes of page cache this cache's connections hold (SQLite's own count).
    pub fn cache_used(&self) -> i64 {
        let mut used = 0;
        self.each_connection(|conn| used += page_cache_used(conn));
        used
    }

    /// Each connection this cache holds open: its own, its search readers, its file writers.
    fn each_connection(&self, mut f: impl FnMut(&Connection)) {
        let readers = self
            .readers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let files = self.files.iter().flatten();
        std::iter::once(&self.conn)
            .chain(readers.iter())
            .chain(files)
            .for_each(&mut f);
    }

    /// Closes the search readers and the list's writers (they open the files by name).
    fn close_others(&mut self) {
        self.readers
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
        self.files.clear();
    }

    /// Deletes the message rows that sessions about to be removed have in other shards' files,
    /// before the transaction that removes them from the cache file (which deletes their rows
    /// there). A transaction spans one file's commit only, so the order keeps a kill harmless:
    /// first the sessions are marked unindexed (a kill then leaves them listed and re-indexed),
    /// then each shard's rows go, then the sessions.
    fn release_text(&mut self, keys: &[SessionKey]) -> Result<(), Error> {
        if keys.is_empty() {
            return Ok(());
        }
        let elsewhere = self.write_to(0, |tx| {
            let mut elsewhere = Vec::new();
            for key in keys {
                let Some(rowid) = session_rowid(tx, key)? else {
                    continue;
                };
                if shard_of(rowid) != 0 {
                    tx.execute(
                        "UPDATE sessions SET text_indexed = 0 WHERE rowid = ?1",
                        [rowid],
                    )?;
                    elsewhere.push(rowid);
                }
            }
            Ok(elsewhere)
        })?;
        for k in 1..SHARDS {
            let rowids: Vec<i64> = elsewhere
                .iter()
                .copied()
                .filter(|&r| shard_of(r) == k)
                .collect();
            if !rowids.is_empty() {
                self.write_to(k, |tx| {
                    rowids.iter().try_for_each(|&r| text::remove(tx, "main", r))
                })?;
            }
        }
        Ok(())
    }

    fn state(&self, kind: ProviderKind) -> Result<Vec<u8>, Error> {
        self.conn
            .query_row(
                "SELECT state FROM provider_state WHERE provider = ?1",
                [kind.as_str()],
                |r| r.get(0),
            )
            .optional()
            .map(Option::unwrap_or_default)
            .map_err(|e| self.err(e))
    }

    /// Every directory a cached session ran in: where an agent found where the user works
    /// looks ([`ProviderSet::scan_each_near`]).
    fn session_dirs(&self) -> Result<Vec<PathBuf>, Error> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT DISTINCT cwd FROM sessions WHERE cwd IS NOT NULL AND cwd != ''")
            .map_err(|e| self.err(e))?;
        let dirs = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.map(|r| r.map(PathBuf::from)).collect())
            .map_err(|e| self.err(e))?;
        Ok(dirs)
    }

    /// Every session in the cache for these providers (all when empty), newest first.
    pub fn sessions(&self, providers: &[ProviderKind]) -> Result<Vec<SessionMeta>, Error> {
        Ok(self.session_rows(providers)?.0)
    }

    /// [`Index::sessions`] and [`Index::diagnostics`]: what a list shows. A session row that
    /// does not decode is one diagnostic, not a damaged cache (see [`unreadable_row`]).
    pub fn listing(
        &self,
        providers: &[ProviderKind],
    ) -> Result<(Vec<SessionMeta>, Diagnostics), Error> {
        let (sessions, unreadable) = self.session_rows(providers)?;
        let mut diagnostics = self.diagnostics(providers)?;
        unreadable.into_iter().for_each(|d| diagnostics.push(d));
        Ok((sessions, diagnostics))
    }

    /// The sessions of these providers, newest first, and a diagnostic for each row that does
    /// not decode.
    fn session_rows(
        &self,
        providers: &[ProviderKind],
    ) -> Result<(Vec<SessionMeta>, Vec<Diagnostic>), Error> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT provider, meta, source_path FROM sessions")
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        let (mut out, mut unreadable) = (Vec::new(), Vec::new());
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let provider: String = row.get(0).map_err(|e| self.err(e))?;
            let Some(kind) = ProviderKind::parse(&provider)
                .filter(|k| providers.is_empty() || providers.contains(k))
            else {
                continue;
            };
            let meta: String = row.get(1).map_err(|e| self.err(e))?;
            let path = row
                .get::<_, stored_path::Read>(2)
                .map_err(|e| self.err(e))?
                .0;
            match meta_of_row(&meta, path.clone()) {
                Some(meta) => out.push(meta),
                None => unreadable.push(unreadable_row(kind, path)),
            }
        }
        out.sort_by(SessionMeta::newest_first);
        Ok((out, unreadable))
    }

    /// Diagnostics stored by the last refresh, for these providers (all when empty).
    pub fn diagnostics(&self, providers: &[ProviderKind]) -> Result<Diagnostics, Error> {
        let mut stmt = self
            .conn
            .prepare("SELECT provider, path, line, reason FROM diagnostics ORDER BY provider, path, line")
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        let mut out = Diagnostics::default();
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let provider: String = row.get(0).map_err(|e| self.err(e))?;
            let Some(kind) = ProviderKind::parse(&provider) else {
                continue;
            };
            if !providers.is_empty() && !providers.contains(&kind) {
                continue;
            }
            out.push(Diagnostic {
                provider: kind,
                path: row
                    .get::<_, stored_path::Read>(1)
                    .map_err(|e| self.err(e))?
                    .0,
                line: row
                    .get::<_, Option<i64>>(2)
                    .map_err(|e| self.err(e))?
                    .map(|l| l as u64),
                reason: row.get(3).map_err(|e| self.err(e))?,
            });
        }
        // The kept items are capped; the count of all problems is stored per provider.
        let mut stmt = self
            .conn
            .prepare("SELECT provider, problems FROM provider_state")
            .map_err(|e| self.err(e))?;
        let totals = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .map_err(|e| self.err(e))?;
        out.parse_errors = 0;
        for row in totals {
            let (provider, n) = row.map_err(|e| self.err(e))?;
            let wanted = ProviderKind::parse(&provider)
                .is_some_and(|k| providers.is_empty() || providers.contains(&k));
            if wanted {
                out.parse_errors += n.max(0) as u64;
            }
        }
        Ok(out)
    }

    /// How many sessions the cache lists.
    pub fn session_count(&self) -> Result<usize, Error> {
        self.conn
            .query_row("SELECT count(*) FROM sessions", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(|e| self.err(e))
    }

    /// Sessions whose message text is not (fully) in the search index yet.
    pub fn pending_text(&self) -> Result<usize, Error> {
        self.conn
            .query_row(
                "SELECT count(*) FROM sessions WHERE text_indexed = 0",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as usize)
            .map_err(|e| self.err(e))
    }

    /// Opens the writers' connections to every shard's file (`Index::file_conn`), checked to be
    /// this cache's files.
    fn open_writers(&mut self) -> Result<(), Error> {
        for k in 0..SHARDS {
            self.file_conn(k)?;
        }
        // Replaced while they were opened: the writers have other files than the cache's.
        self.same_files()
    }

    /// Settles what the shards marked in `idle` owe (see [`settle`]), through the writers'
    /// connections ([`Index::open_writers`] first).
    fn settle_idle(&mut self, idle: &[bool]) -> Result<(), Error> {
        let path = self.path.clone();
        let files = self.files.iter_mut().enumerate().zip(idle);
        for ((k, conn), _) in files.filter(|(_, idle)| **idle) {
            if let Some(conn) = conn {
                settle(conn).map_err(|e| cache_error(&shard_path_of(&path, k), e))?;
            }
        }
        Ok(())
    }

    /// Whether a pass of `pending` sessions of shard `k` writes in bulk: as many as the shard has
    /// indexed, or more (a cold start). Its text then goes without its terms, which are listed
    /// from the index once its queue is done ([`list_terms`], one walk of the index) instead of
    /// looked up token by token as the text is extracted (a sixth of a cold start's CPU:
    /// `docs/performance.md`); a pass much smaller than the index looks its tokens up.
    fn writes_in_bulk(&self, k: usize, pending: usize) -> Result<bool, Error> {
        if pending == 0 {
            return Ok(false);
        }
        let indexed: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM sessions WHERE text_indexed = 1 AND rowid % ?1 = ?2",
                params![SHARDS as i64, k as i64],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))?;
        Ok(pending as i64 >= indexed)
    }

    /// Indexes the message text of up to `max` pending sessions (all when `None`): first those
    /// a search can only read by parsing them whole (OpenCode's rows), then the others, each
    /// newest first — a search reads unindexed one-file sessions at the speed of reading.
    /// Each of the [`SHARDS`] has a thread reading and extracting its sessions' text and a
    /// thread writing it to its own file (this one for the cache file), at once, in
    /// transactions of up to [`TX_TEXT_BYTES`] or [`TX_TIME`], so a kill loses at most the
    /// transactions in progress (their sessions stay pending) and another process's writer
    /// waits at most about [`TX_TIME`]. Only messages whose text changed are rewritten, so a
    /// grown live session costs its new messages.
    ///
    /// A session is marked indexed in the cache file: in the transaction that writes its text
    /// for the first shard; after its shard's transaction committed for the others (a kill in
    /// between leaves it pending, and indexing it again rewrites nothing that is current).
    pub fn index_text(
        &mut self,
        providers: &ProviderSet,
        max: Option<usize>,
        progress: &ScanProgress,
    ) -> Result<usize, Error> {
        self.index_text_within(providers, max, None, progress)
    }

    /// [`Index::index_text`], ending once `time` has passed (after the session being written):
    /// an app's worker indexes in steps of a bounded time and refreshes the list between them.
    /// When the step takes the last pending sessions, the segments its shards were written in
    /// since their last merge are merged (see [`merge_segments`]).
    pub fn index_text_within(
        &mut self,
        providers: &ProviderSet,
        max: Option<usize>,
        time: Option<std::time::Duration>,
        progress: &ScanProgress,
    ) -> Result<usize, Error> {
        self.follow_replaced()?;
        let deadline = time.map(|t| std::time::Instant::now() + t);
        // Only the batch asked for is read: an app indexing 20 at a time over 50,000 pending
        // sessions would otherwise decode all of them for every batch. One more is asked for,
        // to know whether this batch empties the queue.
        let limit = max
            .and_then(|m| i64::try_from(m).ok())
            .map_or(-1, |m| m.saturating_add(1));
        let mut pending: Vec<(i64, i64, String, stored_path::Read)> = {
            let mut stmt = self
                .conn
                .prepare("SELECT rowid, coalesce(updated_at, 0), meta, source_path FROM sessions WHERE text_indexed = 0 ORDER BY read_whole DESC, updated_at DESC LIMIT ?1")
                .map_err(|e| self.err(e))?;
            let rows = stmt
                .query_map([limit], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })
                .map_err(|e| self.err(e))?;
            rows.collect::<Result<_, _>>().map_err(|e| self.err(e))?
        };
        let last = max.is_none_or(|m| pending.len() <= m);
        pending.truncate(max.unwrap_or(usize::MAX));
        progress.add_total(pending.len() as u64, 0);
        let mut shares: Vec<Vec<Queued>> = (0..SHARDS).map(|_| Vec::new()).collect();
        for (rowid, updated, meta, path) in pending {
            let k = shard_of(rowid);
            let resume = resume::load(&self.conn, &shard_db(k), rowid).map_err(|e| self.err(e))?;
            shares[k].push(Queued {
                rowid,
                updated,
                meta: meta_of_row(&meta, path.0),
                resume,
            });
        }
        if shares.iter().all(Vec::is_empty) {
            // A queue emptied without a last step (its sessions removed), or a kill before a
            // shard settled: what it owes is settled now.
            self.open_writers()?;
            self.settle_idle(&[true; SHARDS])?;
            return Ok(0);
        }
        let mut bulk = Vec::new();
        let mut terms = Vec::new();
        for (k, share) in shares.iter().enumerate() {
            bulk.push(self.writes_in_bulk(k, share.len())?);
            terms.push(match bulk[k] {
                true => None,
                false => Some(tokens::NewTerms::new().map_err(|e| self.err(e))?),
            });
        }
        let ending = |k: usize| Ending {
            deadline,
            last,
            bulk: bulk[k],
        };
        // Each writer has a connection to its file alone (`Index::file_conn`): a write
        // transaction on the cache's connection would lock every attached shard. The cache
        // file's writer also marks sessions indexed, for every shard.
        self.open_writers()?;
        if last {
            // Shards with nothing to write now: earlier steps may have left them owing.
            let idle: Vec<bool> = shares.iter().map(Vec::is_empty).collect();
            self.settle_idle(&idle)?;
        }
        let path = self.path.clone();
        let mut files = self.files.iter_mut().flatten();
        let Some(conn) = files.next() else {
            return Ok(0);
        };
        let mut writers = Vec::new();
        for ((k, share), shard) in shares.iter().enumerate().skip(1).zip(files) {
            if !share.is_empty() {
                writers.push((k, shard, shard_path(&path, k)));
            }
        }
        let done = std::thread::scope(|s| {
            let mut extractors = Vec::new();
            let mut receivers = Vec::new();
            for (share, new_terms) in shares.into_iter().zip(terms) {
                if share.is_empty() {
                    continue;
                }
                let (send, received) = std::sync::mpsc::sync_channel(EXTRACT_AHEAD);
                let first = shard_of(share[0].rowid) == 0;
                extractors.push(s.spawn(move || extract_share(providers, share, new_terms, send)));
                receivers.push((first, received));
            }
            let own = match receivers.first() {
                Some((true, _)) => Some(receivers.remove(0).1),
                _ => None,
            };
            // Sessions the other shards committed, to mark indexed here.
            let (marks, committed) = std::sync::mpsc::channel::<Vec<Written>>();
            let others: Vec<_> = writers
                .into_iter()
                .zip(receivers)
                .map(|((k, shard, shard_path), (_, received))| {
                    let marks = marks.clone();
                    let ending = ending(k);
                    s.spawn(move || {
                        // When the cache file's writer has stopped, these stay pending.
                        let mut sent = |done: Vec<Written>| drop(marks.send(done));
                        write_shard(
                            shard,
                            received.into_iter(),
                            ending,
                            progress,
                            &mut |_, _| Ok(()),
                            &mut sent,
                        )
                        .map_err(|e| cache_error(&shard_path, e))
                    })
                })
                .collect();
            drop(marks);
            let mut marked = |tx: &Transaction<'_>, done: &[Written]| {
                mark_indexed(tx, done)?;
                for more in committed.try_iter() {
                    mark_indexed(tx, &more)?;
                }
                Ok(())
            };
            let mut written = match own {
                Some(received) => write_shard(
                    conn,
                    received.into_iter(),
                    ending(0),
                    progress,
                    &mut marked,
                    &mut drop,
                )
                .map_err(|e| cache_error(&path, e)),
                None => Ok(0),
            };
            // What the other shards commit after this one is done is marked as it comes.
            if written.is_ok() {
                for more in committed.iter() {
                    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate);
                    let marked = tx.and_then(|tx| {
                        mark_indexed(&tx, &more)?;
                        tx.commit()
                    });
                    if let Err(e) = marked {
                        written = Err(cache_error(&path, e));
                        break;
                    }
                }
            }
            drop(committed);
            for other in others {
                let result = other.join().unwrap_or(Ok(0));
                written = match (written, result) {
                    (Ok(a), Ok(b)) => Ok(a + b),
                    (Err(e), _) | (_, Err(e)) => Err(e),
                };
            }
            // The receivers are gone once the writers return, so the extractors end too.
            extractors.into_iter().for_each(|e| drop(e.join()));
            written
        });
        release_freed_memory();
        done
    }

    /// Full-text search over titles and message text, best matches first. Ranking every match
    /// of a common word costs time in proportion to the history, so BM25 ranks the newest
    /// [`RANKED_CANDIDATES`] matches (FTS5 finds those by walking its index backwards and
    /// stopping); snippets are made for the returned rows only, and the session filters run
    /// inside the match.
    pub fn search(&self, query: &str, filter: &SearchFilter) -> Result<Vec<Hit>, Error> {
        let items = query::parse(query)?;
        Ok(self.search_items(&items, filter)?.0)
    }

    /// The FTS5 expression the index answers `items` with: prefix terms spelled out from
    /// `terms` (see [`query::expand`]), with how many phrases they became; or, when a prefix
    /// has too many terms, FTS5's own prefix syntax and `None`.
    fn expression(&self, items: &[query::Item]) -> Result<Expression, Error> {
        let mut tokenizer = tokens::Tokenizer::new().map_err(|e| self.err(e))?;
        let unlisted = self.terms_unlisted().map_err(|e| self.err(e))?;
        // Every shard's terms, merged in order (SQLite merges the sorted parts as they are read,
        // so the walk still stops at the first term past the prefix).
        let sql = (0..SHARDS)
            .map(|k| format!("SELECT term FROM {}.terms WHERE term >= ?1", shard_db(k)))
            .collect::<Vec<_>>()
            .join(" UNION ")
            + " ORDER BY term";
        let mut known = |prefix: &str| -> rusqlite::Result<Option<Vec<String>>> {
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let rows = stmt.query_map([prefix], |r| r.get::<_, String>(0))?;
            // Stops at the first term past the prefix, or one past the cap.
            let mut error = None;
            let terms = rows.map_while(|r| r.map_err(|e| error = Some(e)).ok());
            if unlisted.is_empty() {
                let found = query::starting_with(terms, prefix);
                return error.map_or(Ok(found), Err);
            }
            let mut found: std::collections::BTreeSet<String> = terms
                .take_while(|t| t.starts_with(prefix))
                .take(query::MAX_EXPANSION + 1)
                .collect();
            if let Some(e) = error {
                return Err(e);
            }
            for &k in &unlisted {
                found.extend(self.index_terms(k, prefix)?);
            }
            Ok(query::starting_with(found.iter(), prefix))
        };
        match query::expand(items, &mut tokenizer, &mut known).map_err(|e| self.err(e))? {
            Some(expanded) => Ok(Expression {
                fts: expanded.fts,
                spelled: Some(expanded.phrases),
                phrases: expanded.each,
            }),
            None => Ok(Expression {
                fts: query::to_fts_items(items),
                spelled: None,
                phrases: query::phrases_of(items),
            }),
        }
    }

    /// The shards whose `terms` do not list every term of their text yet: a bulk pass's terms
    /// wait to be listed until its queue is done (see [`SHARD_STATE_SCHEMA`]).
    fn terms_unlisted(&self) -> rusqlite::Result<Vec<usize>> {
        let mut out = Vec::new();
        for k in 0..SHARDS {
            let sql = format!(
                "SELECT coalesce(max(terms_missing), 0) FROM {}.shard_state",
                shard_db(k)
            );
            if self
                .conn
                .prepare_cached(&sql)?
                .query_row([], |r| r.get(0))?
            {
                out.push(k);
            }
        }
        Ok(out)
    }

    /// The terms of shard `k`'s index that start with `prefix`, from FTS5's own vocabulary (a
    /// walk of each term's rows: slower than `terms`, so only while those are not listed; the
    /// prefix is spelled out as it will be then, and its snippets are the same).
    fn index_terms(&self, k: usize, prefix: &str) -> rusqlite::Result<Vec<String>> {
        let (db, vocab) = (shard_db(k), format!("fts_terms_{k}"));
        self.conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.{vocab} USING fts5vocab({db}, fts, row);"
        ))?;
        // Past every term that starts with the prefix (U+10FFFF is the greatest character).
        let end = format!("{prefix}\u{10FFFF}");
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT term FROM temp.{vocab} WHERE term >= ?1 AND term <= ?2 LIMIT ?3"
        ))?;
        let rows = stmt.query_map(params![prefix, end, query::MAX_EXPANSION as i64 + 1], |r| {
            r.get(0)
        })?;
        rows.collect()
    }

    /// [`Index::search`] of parsed items; also says whether prefixes were spelled out.
    fn search_items(
        &self,
        items: &[query::Item],
        filter: &SearchFilter,
    ) -> Result<(Vec<Hit>, bool), Error> {
        let expression = self.expression(items)?;
        let spelled = expression.spelled.is_some();
        let (conditions, session_args) = session_conditions(filter);
        let restrict = if conditions.is_empty() {
            String::new()
        } else {
            format!(
                " AND session IN (SELECT rowid FROM main.sessions WHERE {})",
                conditions.join(" AND ")
            )
        };
        let limit = filter.limit.max(1);
        // Each phrase's document frequency is counted in the newest rows: for a prefix spelled
        // out as dozens of terms that costs more than the search; those come newest first.
        let hits = if expression.spelled.is_none_or(|n| n <= RANKED_PHRASES) {
            let best = self.best_ranked(&expression, &restrict, &session_args)?;
            self.hits_at(&expression.fts, &best, limit)?
        } else {
            self.newest(&expression.fts, &restrict, session_args, limit)?
        };
        Ok((hits, spelled))
    }

    /// The newest [`RANKED_CANDIDATES`] matches (the newest share of them in each shard) by
    /// BM25, best first, as (shard, rowid, rank; lower is better). One
    /// walk of each shard's index backwards scores each candidate as it is found (`rank.rs`),
    /// with the phrases' document frequencies counted over all shards first.
    fn best_ranked(
        &self,
        expression: &Expression,
        restrict: &str,
        session_args: &[rusqlite::types::Value],
    ) -> Result<Vec<Ranked>, Error> {
        let counted =
            self.each_shard(|conn, shard| frequencies(conn, shard, &expression.phrases))?;
        let mut frequencies = vec![0; expression.phrases.len() + 3];
        for counts in counted {
            for (sum, n) in frequencies.iter_mut().zip(counts) {
                *sum += n;
            }
        }
        let slots = vec!["?"; frequencies.len()].join(", ");
        let mut args: Vec<rusqlite::types::Value> =
            frequencies.into_iter().map(Into::into).collect();
        args.push(expression.fts.clone().into());
        args.extend(session_args.iter().cloned());
        let found = self.each_shard(|conn, shard| {
            let sql = format!(
                "SELECT rowid, {}(fts, {slots}) FROM {}.fts WHERE fts MATCH ?{restrict}
                 ORDER BY rowid DESC LIMIT {}",
                rank::FUNCTION,
                shard_db(shard),
                RANKED_CANDIDATES / SHARDS
            );
            let mut stmt = conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(rusqlite::params_from_iter(&args), |r| {
                Ok(Ranked {
                    shard,
                    rowid: r.get(0)?,
                    rank: r.get(1)?,
                })
            })?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })?;
        let mut scored: Vec<Ranked> = found.into_iter().flatten().collect();
        // Best first; among equals, newest first.
        scored.sort_by(|a, b| {
            a.rank
                .total_cmp(&b.rank)
                .then(b.rowid.cmp(&a.rowid))
                .then(a.shard.cmp(&b.shard))
        });
        Ok(scored)
    }

    /// Runs `query` on every shard at once, each on a connection of its own (shard 0 on the
    /// cache's; reads of a WAL database do not wait for each other), in shard order.
    fn each_shard<T: Send>(
        &self,
        query: impl Fn(&Connection, usize) -> rusqlite::Result<T> + Sync,
    ) -> Result<Vec<T>, Error> {
        let mut readers = self
            .readers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if readers.len() < SHARDS - 1 && self.same_files().is_ok() {
            while readers.len() < SHARDS - 1 {
                readers.push(reader(&self.path)?);
            }
            // Replaced while they were opened: they read other files than the cache's.
            if self.same_files().is_err() {
                readers.clear();
            }
        }
        if readers.len() < SHARDS - 1 {
            // The files at the cache's paths are another cache's (see `file_ids`): every shard
            // is read one after the other on the cache's own connection, which has them all.
            return (0..SHARDS)
                .map(|k| query(&self.conn, k).map_err(|e| self.err(e)))
                .collect();
        }
        let query = &query;
        let results = std::thread::scope(|s| {
            let others: Vec<_> = readers
                .iter_mut()
                .enumerate()
                .map(|(i, conn)| s.spawn(move || query(conn, i + 1)))
                .collect();
            let mut results = vec![query(&self.conn, 0)];
            for other in others {
                let result = other
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                results.push(result);
            }
            results
        });
        results
            .into_iter()
            .map(|r| r.map_err(|e| self.err(e)))
            .collect()
    }

    /// The hits of the first `limit` rows chosen by [`Index::best_ranked`] that name a listed
    /// session, in that order, with their snippets (made for these rows only: FTS5 finds each
    /// by its rowid). A shard can hold rows of a removed session (its writer, on another
    /// connection, committed after the removal): they are passed over, not counted.
    fn hits_at(&self, fts: &str, rows: &[Ranked], limit: usize) -> Result<Vec<Hit>, Error> {
        let mut hits = Vec::with_capacity(limit.min(rows.len()));
        for row in rows {
            if hits.len() >= limit {
                break;
            }
            let sql = format!(
                "SELECT s.id, s.provider, fts.message_id, s.title,
                        snippet(fts, -1, '{MARK_START}', '{MARK_END}', '…', {}), s.source_path
                 FROM {}.fts JOIN main.sessions s ON s.rowid = fts.session
                 WHERE fts MATCH ?1 AND fts.rowid = ?2",
                query::snippet_tokens(fts),
                shard_db(row.shard)
            );
            let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
            let found = stmt
                .query_row(params![fts, row.rowid], |r| hit_of(r, 0.0 - row.rank))
                .optional()
                .map_err(|e| self.err(e))?;
            hits.extend(found.flatten());
        }
        Ok(hits)
    }

    /// The newest `limit` matches with their snippets, unranked (a prefix spelled out as more
    /// phrases than BM25 is worth, see [`RANKED_PHRASES`]): each shard's newest, taken by
    /// position in their shard (each shard's rows are in the order it indexed them).
    fn newest(
        &self,
        fts: &str,
        restrict: &str,
        session_args: Vec<rusqlite::types::Value>,
        limit: usize,
    ) -> Result<Vec<Hit>, Error> {
        let mut args: Vec<rusqlite::types::Value> = vec![fts.to_owned().into()];
        args.extend(session_args);
        args.push((limit as i64).into());
        // Rows of a removed session (see `hits_at`) take no place of the limit.
        let listed = match restrict {
            "" => " AND session IN (SELECT rowid FROM main.sessions)",
            some => some,
        };
        let found = self.each_shard(|conn, shard| {
            let sql = format!(
                "SELECT s.id, s.provider, h.message_id, s.title, h.snip, s.source_path
                 FROM (SELECT rowid AS row, session, message_id,
                              snippet(fts, -1, '{MARK_START}', '{MARK_END}', '…', {}) AS snip
                       FROM {}.fts WHERE fts MATCH ?{listed}
                       ORDER BY rowid DESC LIMIT ?) h
                 JOIN main.sessions s ON s.rowid = h.session
                 ORDER BY h.row DESC",
                query::snippet_tokens(fts),
                shard_db(shard)
            );
            let mut stmt = conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(rusqlite::params_from_iter(&args), |r| hit_of(r, 0.0))?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })?;
        let mut placed = Vec::new();
        for (shard, hits) in found.into_iter().enumerate() {
            let known = hits.into_iter().flatten();
            placed.extend(known.enumerate().map(|(place, hit)| (place, shard, hit)));
        }
        placed.sort_by_key(|(place, shard, _)| (*place, *shard));
        Ok(placed
            .into_iter()
            .take(limit)
            .map(|(_, _, hit)| hit)
            .collect())
    }

    /// [`Index::search`], and the sessions whose text is not indexed yet read directly (see
    /// `direct`), so every match is found whatever the indexer has reached: hits from the
    /// index first, then hits read directly, newest sessions first, up to `filter.limit`.
    pub fn search_all(
        &self,
        query: &str,
        filter: &SearchFilter,
        providers: &ProviderSet,
    ) -> Result<SearchResults, Error> {
        let items = query::parse(query)?;
        let (mut hits, expanded) = self.search_items(&items, filter)?;
        let limit = filter.limit.max(1);
        let mut results = SearchResults::default();
        // When the index fills the answer, what it lacks would rank after it: nothing to read.
        let pending = if hits.len() < limit {
            self.pending_sessions(filter)?
        } else {
            Vec::new()
        };
        if !pending.is_empty() {
            results.read_directly = pending.len();
            // Prefixes are spelled out there too, from the messages read, when the index
            // spelled them out: a snippet then weighs each matching term as its own phrase.
            let found = direct::search(&self.conn, providers, &pending, &items, expanded, limit)
                .map_err(|e| self.err(e))?;
            direct::merge(&mut hits, found.hits);
            hits.truncate(limit);
            results.unreadable = found.unreadable;
            results.partial = found.unreadable > 0;
        }
        results.hits = hits;
        Ok(results)
    }

    /// The sessions not (fully) text-indexed that `filter` lets through, newest first.
    fn pending_sessions(&self, filter: &SearchFilter) -> Result<Vec<SessionMeta>, Error> {
        let (mut conditions, args) = session_conditions(filter);
        conditions.push("text_indexed = 0".into());
        let sql = format!(
            "SELECT meta, source_path FROM sessions WHERE {} ORDER BY updated_at DESC",
            conditions.join(" AND ")
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args), |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, stored_path::Read>(1)?))
            })
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (meta, path) = row.map_err(|e| self.err(e))?;
            // One that does not decode is left out, as the list leaves it out.
            out.extend(meta_of_row(&meta, path.0));
        }
        Ok(out)
    }
}

/// A write transaction of the text index ends once it holds this much text, or after
/// [`TX_TIME`]: big enough that FTS5 writes few, large segments (a transaction per session made
/// thousands of small ones and spent most of its time merging them), short enough that another
/// process's writer, waiting up to [`BUSY_TIMEOUT`], gets its turn.
const TX_TEXT_BYTES: usize = 32 << 20;
const TX_TIME: std::time::Duration = std::time::Duration::from_millis(2000);

/// A text writer's pause between transactions: longer than [`BUSY_POLL`], so that another
/// process waiting for the file gets it (a few tens of ms over a whole pass).
const WRITER_PAUSE: std::time::Duration = std::time::Duration::from_millis(6);

/// The newest rows the rank function's document frequencies are counted in, over all shards
/// (see [`frequencies`]): an index this small is counted whole.
const SAMPLE_ROWS: i64 = 10_000;

/// A match [`Index::best_ranked`] chose: its shard, its row there, and its BM25 rank.
struct Ranked {
    shard: usize,
    rowid: i64,
    rank: f64,
}

/// The FTS5 expression a query runs as (see [`Index::expression`]).
struct Expression {
    fts: String,
    /// How many phrases prefixes were spelled out as; `None`: left to FTS5's prefix syntax.
    spelled: Option<usize>,
    /// Every phrase of `fts`, in order, for the rank function.
    phrases: Vec<String>,
}

/// A query whose prefixes became more phrases than this is not ranked by BM25 (see
/// [`Index::search_items`]).
const RANKED_PHRASES: usize = 32;

/// Text written since a shard's segments were last merged that has them merged once nothing is
/// pending (see [`settle`]).
const MERGE_AFTER_BYTES: usize = TX_TEXT_BYTES;

/// Leaf pages (4 KB) one merge step writes at most: a step of a few tenths of a second.
const MERGE_STEP_PAGES: i64 = 4000;

/// A bound on merge steps (a 1 GB cache needs well under a hundred), so it can never spin.
const MAX_MERGE_STEPS: usize = 10_000;

/// Sessions each extractor holds ahead of its writer: bounds the memory the threads hold. One:
/// with two shards, two ahead each put the 1 GB corpus's peak at 146–157 MB, one at 133–137 MB,
/// for no change in time beyond the spread (`docs/performance.md`).
const EXTRACT_AHEAD: usize = 1;

/// A session whose text is to be indexed: its rowid, its `updated_at` when it was queued, its
/// metadata as stored (`None`: its row does not decode, see [`unreadable_row`]), and where its
/// last read said the next can start (see [`resume`]).
struct Queued {
    rowid: i64,
    updated: i64,
    meta: Option<SessionMeta>,
    resume: Option<resume::Stored>,
}

/// Reads and extracts one shard's pending sessions, in order, handing each to the shard's
/// writer in chunks; ends early when the writer stops. Each shard remembers its own terms, so a
/// term may be listed in two shards (a prefix is spelled out from their union).
fn extract_share(
    providers: &ProviderSet,
    share: Vec<Queued>,
    mut new_terms: Option<tokens::NewTerms>,
    send: std::sync::mpsc::SyncSender<Extracted>,
) {
    for queued in share {
        let from = queued.meta.as_ref().and_then(|meta| {
            providers
                .get(meta.provider)
                .filter(|p| p.reads_in_part(meta))
                .and(queued.resume.as_ref())
                .filter(|r| r.holds(&meta.source_path))
        });
        let mut first = true;
        let mut hand_over =
            |messages: Vec<text::Row>, from: u64, end: Option<Option<resume::Stored>>| {
                let mut terms = Vec::new();
                if let Some(new_terms) = &mut new_terms {
                    for row in &messages {
                        new_terms.add(&row.text, &mut terms);
                    }
                }
                let item = Extracted {
                    rowid: queued.rowid,
                    updated: queued.updated,
                    messages,
                    terms,
                    from,
                    based_on: std::mem::take(&mut first)
                        .then(|| queued.resume.clone())
                        .flatten(),
                    last: end.is_some(),
                    resume: end.flatten(),
                };
                send.send(item).is_ok()
            };
        let took = match &queued.meta {
            Some(meta) => extract(providers, meta, from, &mut hand_over),
            // Nothing to read: marked indexed, so it is not queued again at every pass.
            None => hand_over(Vec::new(), 0, Some(None)),
        };
        if !took {
            break; // the writer stopped
        }
    }
}

/// A chunk of one session's searchable text, extracted off the writing thread.
struct Extracted {
    rowid: i64,
    updated: i64,
    messages: Vec<text::Row>,
    /// The terms of `messages` not sent with an earlier chunk of this run.
    terms: Vec<String>,
    /// The first line read (1-based; 0: the read was whole): rows of earlier lines stay.
    from: u64,
    /// With a session's first chunk: the resume point stored when its read began, which must
    /// still be the stored one when a resumed read is written (another process may have
    /// indexed the session since).
    based_on: Option<resume::Stored>,
    /// The session's last chunk: a session is one chunk or more, one after the other.
    last: bool,
    /// With the last chunk: where the next read of the session can start.
    resume: Option<resume::Stored>,
}

/// The text a session's extraction hands its writer at a time, so a session of any size is
/// indexed with the memory of a few chunks: handed over whole, a 200 MB Claude session took
/// 208 MB at its peak (`docs/performance.md`).
const CHUNK_BYTES: usize = 4 << 20;

/// Hands `hand_over` the searchable text of a session's messages in chunks, read as the
/// transcript streams from `from` (none: from the start), each with the first line read (0: the
/// read is whole), the last one with where the next read can start (`false` from `hand_over`:
/// the writer stopped, and so does this). A resumed read that fails before it handed anything
/// over (its state unreadable, the file cut meanwhile) is done again whole. A session that
/// cannot be read (deleted meanwhile) keeps what was read, and its next read is whole; the next
/// refresh removes or re-queues it. A provider that panics on a session counts as a read that
/// failed there (the panic's message goes to stderr through the default hook): without that
/// the extractor's thread ended, the session stayed pending, and every later pass of its shard
/// stopped at it. Returns whether the writer took every chunk.
fn extract(
    providers: &ProviderSet,
    meta: &SessionMeta,
    mut from: Option<&resume::Stored>,
    hand_over: &mut dyn FnMut(Vec<text::Row>, u64, Option<Option<resume::Stored>>) -> bool,
) -> bool {
    let Some(provider) = providers.get(meta.provider) else {
        return hand_over(Vec::new(), 0, Some(None));
    };
    loop {
        let first = from.map_or(0, resume::Stored::first_line);
        let (mut chunk, mut bytes, mut open, mut handed) = (Vec::new(), 0, true, false);
        // Unwind safety: after a panic, `chunk` holds whole rows (each is pushed once made),
        // and nothing else the closure touches is read again but `open` and `handed`.
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            provider.load_each_from(meta, from.map(|r| &r.resume), &mut |m| {
                let Some(row) = text::Row::of(&m).filter(|_| open) else {
                    return;
                };
                bytes += row.text.len();
                chunk.push(row);
                if bytes >= CHUNK_BYTES {
                    open = hand_over(std::mem::take(&mut chunk), first, None);
                    handed = true;
                    bytes = 0;
                }
            })
        }));
        let read = read.ok().and_then(Result::ok);
        if read.is_none() && from.is_some() && !handed {
            from = None;
            continue;
        }
        let next = read.and_then(|(_, r)| resume::Stored::of(&meta.source_path, r?));
        return open && hand_over(chunk, first, Some(next));
    }
}

/// How a pass of [`write_shard`] ends: at `deadline` if any; `last`: its sessions are all that
/// is pending, so when it writes them all the shard settles what it owes (see [`settle`]).
/// `bulk`: its text comes without its terms (see [`extract_share`]).
#[derive(Clone, Copy)]
struct Ending {
    deadline: Option<std::time::Instant>,
    last: bool,
    bulk: bool,
}

impl Ending {
    fn passed(&self) -> bool {
        self.deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
    }
}

/// Writes one shard's extracted sessions as they arrive, committing per [`TX_TEXT_BYTES`] /
/// [`TX_TIME`], until they are all written or `ending` says stop. The (rowid, updated) of
/// each transaction's sessions go to `in_transaction` before it commits and to `committed`
/// after, to be marked indexed (see [`Index::index_text`]). A pass that writes the last pending
/// sessions merges the shard's segments when enough was written since they last were.
/// Returns how many sessions were written.
fn write_shard(
    conn: &mut Connection,
    received: impl Iterator<Item = Extracted>,
    ending: Ending,
    progress: &ScanProgress,
    in_transaction: &mut InTransaction<'_>,
    committed: &mut dyn FnMut(Vec<Written>),
) -> rusqlite::Result<usize> {
    let mut received = received.peekable();
    let mut done = 0;
    // Each pass writes one session at least, whatever its deadline: a step always progresses.
    // The session whose chunks are being written: a long one goes on over several transactions
    // (one as long as the whole session kept another process's writer waiting past its busy
    // timeout), marked indexed in the one that writes its last chunk. A pass ends between
    // sessions only.
    let mut open: Option<text::SessionRows> = None;
    // A resumed read of a session another process indexed since it began: its chunks are
    // dropped, and it stays pending for a whole read.
    let mut dropping = None;
    while received.peek().is_some() {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if let Some(rows) = &mut open {
            rows.reload(&tx)?;
        }
        let start = std::time::Instant::now();
        let mut bytes = 0;
        let mut sessions = Vec::new();
        for item in received.by_ref() {
            if dropping == Some(item.rowid) || begins_stale(&tx, &item, open.is_none())? {
                dropping = (!item.last).then_some(item.rowid);
                continue;
            }
            let rows = match &mut open {
                Some(rows) => rows,
                None => open.insert(text::SessionRows::begin(&tx, item.rowid, item.from)?),
            };
            bytes += rows.write(&tx, &item.messages)?;
            text::add_terms(&tx, &item.terms)?;
            let long = bytes >= TX_TEXT_BYTES || start.elapsed() >= TX_TIME;
            if !item.last {
                if long {
                    break;
                }
                continue;
            }
            if let Some(rows) = open.take() {
                rows.finish(&tx)?;
            }
            resume::save(&tx, item.rowid, item.resume.as_ref())?;
            sessions.push((item.rowid, item.updated));
            if long || ending.passed() {
                break;
            }
        }
        let n = sessions.len();
        owe(&tx, bytes, ending.bulk)?;
        in_transaction(&tx, &sessions)?;
        tx.commit()?;
        committed(sessions);
        // Another process waiting for the file (a list, a search's refresh) takes its turn here.
        std::thread::sleep(WRITER_PAUSE);
        progress.add_done(n as u64, 0);
        done += n;
        if ending.passed() && open.is_none() {
            break;
        }
    }
    if ending.last && received.peek().is_none() {
        settle(conn)?;
    }
    Ok(done)
}

/// Whether `item` is the first chunk of a resumed read whose resume point is no longer the one
/// stored (another process indexed the session since the read began): then the point is
/// forgotten, so the session's next read is whole.
fn begins_stale(tx: &Transaction<'_>, item: &Extracted, first: bool) -> rusqlite::Result<bool> {
    if !first || item.from == 0 || resume::load(tx, "main", item.rowid)? == item.based_on {
        return Ok(false);
    }
    resume::forget(tx, "main", item.rowid)?;
    Ok(true)
}

/// What a shard's file owes after passes that write in bulk (one row; in each shard, `{db}` as
/// in [`TEXT_SCHEMA`]). `unmerged`: text written since its segments were last
/// merged into one — a merge rewrites the shard's whole index, so an app indexing in steps
/// merges once its queue is empty, not after every step. `terms_missing`: text was written
/// without its terms in `terms` (see [`Ending::bulk`]); until they are listed from the index,
/// a prefix is spelled out from the index's vocabulary too (slower, the same terms).
const SHARD_STATE_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS {db}.shard_state (
  id INTEGER PRIMARY KEY CHECK (id = 0),
  unmerged INTEGER NOT NULL DEFAULT 0,
  terms_missing INTEGER NOT NULL DEFAULT 0
);
";

/// Notes in the shard's state what a transaction of `bytes` of text leaves to do.
fn owe(tx: &Transaction<'_>, bytes: usize, terms_missing: bool) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO shard_state (id, unmerged, terms_missing) VALUES (0, ?1, ?2)
         ON CONFLICT (id) DO UPDATE SET unmerged = unmerged + excluded.unmerged,
           terms_missing = max(terms_missing, excluded.terms_missing)",
    )?
    .execute(params![bytes as i64, terms_missing])
    .map(drop)
}

/// The shard's (unmerged bytes, terms missing).
fn owed(conn: &Connection) -> rusqlite::Result<(i64, bool)> {
    conn.query_row(
        "SELECT coalesce(sum(unmerged), 0), coalesce(max(terms_missing), 0) FROM shard_state",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// What a shard owes once nothing of it is pending: its segments merged into one when at least
/// [`MERGE_AFTER_BYTES`] were written since they last were (see [`merge_segments`]; a live
/// session's few new messages are not), then its terms listed from the index when a bulk pass
/// left them out.
fn settle(conn: &mut Connection) -> rusqlite::Result<()> {
    let (unmerged, terms_missing) = owed(conn)?;
    if unmerged >= MERGE_AFTER_BYTES as i64 {
        merge_segments(conn)?;
        // What another process wrote meanwhile stays owed. A kill before this only merges again.
        conn.execute(
            "UPDATE shard_state SET unmerged = max(0, unmerged - ?1)",
            [unmerged],
        )?;
    }
    if terms_missing {
        list_terms(conn)?;
    }
    Ok(())
}

/// Lists every term of the shard's index in `terms`, from FTS5's own vocabulary (one walk of
/// the index: at 300 MB ≈ 0.2 s a shard, against ≈ 0.7 s of looking up each token as it is
/// extracted), and clears `terms_missing` in the same transaction.
fn list_terms(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms USING fts5vocab(main, fts, row);",
    )?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute(
        "INSERT OR IGNORE INTO terms (term) SELECT term FROM temp.fts_terms",
        [],
    )?;
    tx.execute("UPDATE shard_state SET terms_missing = 0", [])?;
    tx.commit()
}

/// A session whose text a writer wrote: its rowid and its `updated_at` when it was queued.
type Written = (i64, i64);

/// What [`write_shard`] calls with a transaction's sessions before it commits.
type InTransaction<'a> = dyn FnMut(&Transaction<'_>, &[Written]) -> rusqlite::Result<()> + 'a;

/// Marks sessions indexed, unless one changed since it was queued (its `updated_at` differs).
fn mark_indexed(tx: &Transaction<'_>, sessions: &[Written]) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare_cached(
        "UPDATE sessions SET text_indexed = 1 WHERE rowid = ?1 AND coalesce(updated_at, 0) = ?2",
    )?;
    for (rowid, updated) in sessions {
        stmt.execute(params![rowid, updated])?;
    }
    Ok(())
}

/// Merges FTS5's segments into one, a bounded step per transaction (so a kill loses one step
/// and another process's writer waits for one step only). A bulk pass leaves a segment per
/// transaction, partly merged; a prefix spelled out as hundreds of terms looks each term up in
/// every segment: on the 300 MB corpus, 7 segments → 1 took 0.8 s of CPU and brought such a
/// query from 60–80 ms to 15–20 ms (`docs/performance.md`).
fn merge_segments(conn: &mut Connection) -> rusqlite::Result<()> {
    for _ in 0..MAX_MERGE_STEPS {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let before = tx.total_changes();
        // A negative page count merges segments of every level, as `optimize` does.
        tx.execute(
            "INSERT INTO fts (fts, rank) VALUES ('merge', ?1)",
            [-MERGE_STEP_PAGES],
        )?;
        let worked = tx.total_changes() - before >= 2;
        tx.commit()?;
        if !worked {
            break;
        }
    }
    Ok(())
}

/// The rank function's arguments for `phrases` (see `rank.rs`) in one shard, to be summed
/// over the shards: how many rows a window of its newest rows has, and in how many of them each
/// phrase is — the shard's whole index when it has up to [`SAMPLE_ROWS`] / [`SHARDS`] rows (then
/// the frequencies are exact, as FTS5's `bm25()` counts them over one table), else its newest
/// that many, so the work is bounded however long the history. Then the shard's rows and tokens
/// (summed, every shard is scored with the table sizes of them all: see `rank.rs`).
fn frequencies(conn: &Connection, shard: usize, phrases: &[String]) -> rusqlite::Result<Vec<i64>> {
    let count = |sql: &str, args: &[&dyn rusqlite::ToSql]| -> rusqlite::Result<Option<i64>> {
        conn.prepare_cached(sql)?.query_row(args, |r| r.get(0))
    };
    let db = shard_db(shard);
    let mut out = vec![0; phrases.len() + 1];
    let Some(high) = count(&format!("SELECT max(id) FROM {db}.fts_docsize"), &[])? else {
        out.extend([0, 0]);
        return Ok(out);
    };
    let start = high.saturating_sub(SAMPLE_ROWS / SHARDS as i64);
    out[0] = count(
        &format!("SELECT count(*) FROM {db}.fts_docsize WHERE id > ?1"),
        &[&start],
    )?
    .unwrap_or(0);
    for (n, phrase) in out[1..].iter_mut().zip(phrases) {
        *n = count(
            &format!("SELECT count(*) FROM {db}.fts WHERE fts MATCH ?1 AND rowid > ?2"),
            &[phrase, &start],
        )?
        .unwrap_or(0);
    }
    out.extend(table_size(conn, &db)?);
    Ok(out)
}

/// The rows and tokens of database `db`'s FTS5 table, as its rank function counts them
/// (`xRowCount`, `xColumnTotalSize`): FTS5 keeps them in its averages record, row 1 of
/// `fts_data` — SQLite varints, the row count then each column's tokens.
fn table_size(conn: &Connection, db: &str) -> rusqlite::Result<[i64; 2]> {
    let block: Option<Vec<u8>> = conn
        .prepare_cached(&format!("SELECT block FROM {db}.fts_data WHERE id = 1"))?
        .query_row([], |r| r.get(0))
        .optional()?;
    let mut values = varints(block.as_deref().unwrap_or_default());
    let rows = values.next().unwrap_or(0);
    Ok([rows, values.sum()])
}

/// SQLite's varints (1–9 bytes, big-endian, 7 bits a byte but all 8 of the ninth) in `bytes`,
/// up to the first one cut short.
fn varints(mut bytes: &[u8]) -> impl Iterator<Item = i64> + '_ {
    std::iter::from_fn(move || {
        let mut value: u64 = 0;
        for (i, &b) in bytes.iter().enumerate().take(9) {
            if i == 8 {
                value = (value << 8) | u64::from(b);
            } else {
                value = (value << 7) | u64::from(b & 0x7f);
            }
            if i == 8 || b & 0x80 == 0 {
                bytes = &bytes[i + 1..];
                return Some(value as i64);
            }
        }
        None
    })
}

/// A hit from a row of (session id, provider, message id, title, snippet, file); `None` for an
/// agent this build does not know (a cache shared with a newer build).
fn hit_of(r: &rusqlite::Row<'_>, score: f64) -> rusqlite::Result<Option<Hit>> {
    let provider: String = r.get(1)?;
    let Some(provider) = ProviderKind::parse(&provider) else {
        return Ok(None);
    };
    Ok(Some(Hit {
        session_id: r.get(0)?,
        provider,
        message_id: r.get(2)?,
        title: r.get(3)?,
        snippet: r.get(4)?,
        score,
        source_path: r.get::<_, stored_path::Read>(5)?.0,
    }))
}

/// A session row's metadata: its `meta` JSON with the path of its `source_path` column (the
/// JSON's is lossy where the name is not UTF-8: [`stored_path`]); `None` when the JSON does
/// not decode (a row written by a build that stored an empty one for such a name).
fn meta_of_row(meta: &str, source_path: PathBuf) -> Option<SessionMeta> {
    let mut meta: SessionMeta = serde_json::from_str(meta).ok()?;
    meta.source_path = source_path;
    Some(meta)
}

/// What a session row that does not decode is: one diagnostic, and the session left out of the
/// list and the search, where it used to make the whole cache "damaged" (and, rebuilt, damaged
/// again). A full scan writes it again; `cache clear` makes one.
fn unreadable_row(provider: ProviderKind, path: PathBuf) -> Diagnostic {
    Diagnostic {
        provider,
        path,
        line: None,
        reason: "its row in the session cache does not decode, so it is not listed; \
                 `agent-sessions cache clear` rebuilds the cache from the stores"
            .into(),
    }
}

/// The SQL conditions on `sessions` (and their arguments) for a filter's providers,
/// directory and dates.
fn session_conditions(filter: &SearchFilter) -> (Vec<String>, Vec<rusqlite::types::Value>) {
    let mut conditions = Vec::new();
    let mut args: Vec<rusqlite::types::Value> = Vec::new();
    if !filter.providers.is_empty() {
        conditions.push(format!(
            "provider IN ({})",
            vec!["?"; filter.providers.len()].join(",")
        ));
        args.extend(
            filter
                .providers
                .iter()
                .map(|p| p.as_str().to_owned().into()),
        );
    }
    if let Some(dir) = &filter.dir {
        let dir = dir.trim_end_matches('/').to_owned();
        let below = format!("{}/%", like_escape(&dir));
        conditions.push(
            "(cwd = ? OR cwd LIKE ? ESCAPE '\\' OR repo_root = ? OR repo_root LIKE ? ESCAPE '\\')"
                .into(),
        );
        args.extend([
            dir.clone().into(),
            below.clone().into(),
            dir.into(),
            below.into(),
        ]);
    }
    if let Some(since) = filter.since_ms {
        conditions.push("updated_at >= ?".into());
        args.push(since.into());
    }
    if let Some(until) = filter.until_ms {
        conditions.push("updated_at <= ?".into());
        args.push(until.into());
    }
    (conditions, args)
}

fn like_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// Creates the cache directory (and any missing parent) for its owner only; an existing
/// directory is left as it is.
pub(crate) fn create_private_dir(dir: &Path) -> Result<(), Error> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|e| Error::CacheUnwritable {
        path: dir.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Creates the cache file readable by its owner only, before SQLite opens it (SQLite gives
/// the `-wal` and `-shm` the same mode).
fn create_private(path: &Path) -> Result<(), Error> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
        .open(path)
        .map(|_| ())
        .map_err(|e| Error::CacheUnwritable {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
}

fn session_rowid(tx: &Transaction<'_>, key: &SessionKey) -> rusqlite::Result<Option<i64>> {
    tx.query_row(
        "SELECT rowid FROM sessions WHERE provider = ?1 AND id = ?2 AND source_path = ?3",
        params![key.provider.as_str(), key.id, Stored(&key.source_path)],
        |r| r.get(0),
    )
    .optional()
}

fn remove_session(tx: &Transaction<'_>, key: &SessionKey) -> rusqlite::Result<()> {
    if let Some(rowid) = session_rowid(tx, key)? {
        // Its rows in other shards went first (`Index::release_text`).
        text::remove(tx, "main", rowid)?;
        tx.execute("DELETE FROM sessions WHERE rowid = ?1", [rowid])?;
    }
    Ok(())
}

fn upsert_session(
    tx: &Transaction<'_>,
    meta: &SessionMeta,
    read_whole: bool,
    terms: &mut tokens::NewTerms,
) -> rusqlite::Result<()> {
    let json = serde_json::to_string(meta).unwrap_or_default();
    let updated = meta.updated_at.map(|t| t.timestamp_millis());
    let rowid: i64 = tx.query_row(
        "INSERT INTO sessions (provider, id, source_path, updated_at, cwd, repo_root, title, meta, text_indexed, read_whole)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9)
         ON CONFLICT (provider, id, source_path) DO UPDATE SET
           updated_at = excluded.updated_at, cwd = excluded.cwd, repo_root = excluded.repo_root,
           title = excluded.title, meta = excluded.meta, text_indexed = 0,
           read_whole = excluded.read_whole
         RETURNING rowid",
        params![
            meta.provider.as_str(),
            meta.id,
            Stored(&meta.source_path),
            updated,
            meta.cwd,
            meta.repo_root,
            meta.title,
            json,
            read_whole
        ],
        |r| r.get(0),
    )?;
    text::write_title(tx, rowid, meta.title.as_deref().unwrap_or(""), terms)
}

fn replace_diagnostics(
    tx: &Transaction<'_>,
    kind: ProviderKind,
    d: &Diagnostics,
) -> rusqlite::Result<()> {
    tx.execute(
        "DELETE FROM diagnostics WHERE provider = ?1",
        [kind.as_str()],
    )?;
    let mut stmt = tx.prepare(
        "INSERT INTO diagnostics (provider, path, line, reason) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for item in &d.items {
        stmt.execute(params![
            kind.as_str(),
            Stored(&item.path),
            item.line.map(|l| l as i64),
            item.reason
        ])?;
    }
    Ok(())
}

/// Format versions seen per provider, with how many sessions carry each.
pub fn format_versions(sessions: &[SessionMeta]) -> Vec<(ProviderKind, String, u64)> {
    let mut counts: HashMap<(ProviderKind, String), u64> = HashMap::new();
    for s in sessions {
        let v = s.format_version.clone().unwrap_or_else(|| "unknown".into());
        *counts.entry((s.provider, v)).or_default() += 1;
    }
    let mut out: Vec<_> = counts.into_iter().map(|((p, v), n)| (p, v, n)).collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(code: std::os::raw::c_int) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None)
    }

    /// A long session is written over several transactions, and reads its rows again at each:
    /// another process's writer may have written some in between, which must be replaced, not
    /// left beside ours as a second FTS row (a duplicate hit).
    #[test]
    fn a_session_over_several_transactions_reads_its_rows_again_at_each() {
        let mut conn = Connection::open_in_memory().unwrap();
        functions(&conn).unwrap();
        conn.execute_batch(&text_schema("main")).unwrap();
        let row = |id: &str, body: &str| text::Row {
            id: id.to_owned(),
            text: body.to_owned(),
            hash: text::hash(body),
            line: 0,
        };
        let tx = conn.transaction().unwrap();
        let mut ours = text::SessionRows::begin(&tx, 7, 0).unwrap();
        ours.write(&tx, &[row("a", "alpha"), row("b", "beta")])
            .unwrap();
        tx.commit().unwrap();
        // Another writer indexes the whole session meantime, its last message as it was then.
        let tx = conn.transaction().unwrap();
        let mut theirs = text::SessionRows::begin(&tx, 7, 0).unwrap();
        let all = [row("a", "alpha"), row("b", "beta"), row("c", "gamma")];
        theirs.write(&tx, &all).unwrap();
        theirs.finish(&tx).unwrap();
        tx.commit().unwrap();
        let tx = conn.transaction().unwrap();
        ours.reload(&tx).unwrap();
        ours.write(&tx, &[row("c", "gamma delta")]).unwrap();
        ours.finish(&tx).unwrap();
        tx.commit().unwrap();
        let mut stmt = conn
            .prepare("SELECT body FROM fts WHERE session = 7 ORDER BY body")
            .unwrap();
        let bodies: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(bodies, ["alpha", "beta", "gamma delta"]);
    }

    /// A Claude provider whose streamed reads panic after `after` messages, and only resumed
    /// ones when `resumed_only`; whose scans panic when `after` is 0 and not `resumed_only`.
    struct Panicky {
        inner: Box<dyn crate::provider::Provider>,
        after: usize,
        resumed_only: bool,
    }

    impl crate::provider::Provider for Panicky {
        fn kind(&self) -> ProviderKind {
            self.inner.kind()
        }
        fn roots(&self) -> &[std::path::PathBuf] {
            self.inner.roots()
        }
        fn detect(&self) -> bool {
            self.inner.detect()
        }
        fn scan(
            &self,
            prev: &crate::provider::ProviderState,
            progress: &ScanProgress,
        ) -> Result<crate::provider::ScanOutput, crate::provider::Error> {
            if self.after == 0 && !self.resumed_only {
                panic!("a scan defect (this test's)");
            }
            self.inner.scan(prev, progress)
        }
        fn load(
            &self,
            session: &SessionMeta,
        ) -> Result<crate::model::Transcript, crate::provider::Error> {
            self.inner.load(session)
        }
        fn reads_in_part(&self, session: &SessionMeta) -> bool {
            self.inner.reads_in_part(session)
        }
        fn load_each_from(
            &self,
            session: &SessionMeta,
            resume: Option<&crate::provider::tail::Resume>,
            each: &mut dyn FnMut(crate::model::Message),
        ) -> Result<
            (
                crate::model::Diagnostics,
                Option<crate::provider::tail::Resume>,
            ),
            crate::provider::Error,
        > {
            let mut n = 0;
            let armed = resume.is_some() || !self.resumed_only;
            self.inner.load_each_from(session, resume, &mut |m| {
                if armed && n == self.after {
                    panic!("a provider defect (this test's)");
                }
                n += 1;
                each(m);
            })
        }
        fn blob(
            &self,
            session: &SessionMeta,
            key: &str,
        ) -> Result<Vec<u8>, crate::provider::Error> {
            self.inner.blob(session, key)
        }
        fn watch_paths(&self) -> Vec<std::path::PathBuf> {
            self.inner.watch_paths()
        }
        fn resume_command(
            &self,
            session: &SessionMeta,
        ) -> Result<crate::model::ResumeCommand, crate::provider::Error> {
            self.inner.resume_command(session)
        }
    }

    /// A store file whose name is not UTF-8 is a session like any other: its path goes into
    /// the cache and out of it byte for byte (two names that read alike lossily stay two
    /// sessions), search hits name it, and the next run reads the same rows back, where the
    /// cache used to store an empty row for it and call itself damaged at every read.
    #[cfg(unix)]
    #[test]
    fn a_file_name_that_is_not_utf8_keeps_its_path_through_the_cache() {
        use std::os::unix::ffi::OsStrExt;
        let store = tempfile::tempdir().unwrap();
        let first = agent_sessions_test_support::long_claude_session(store.path(), "p1", 3);
        let dir = first.parent().unwrap();
        let bad = |b: &[u8]| dir.join(std::ffi::OsStr::from_bytes(b));
        let (ff, fe) = (bad(b"bad\xff.jsonl"), bad(b"bad\xfe.jsonl"));
        std::fs::rename(&first, &ff).unwrap();
        std::fs::copy(&ff, &fe).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let roots = Roots::default().with(ProviderKind::Claude, [store.path()]);
        let set = ProviderSet::new(&roots, &[]);
        let progress = ScanProgress::default();
        let listed = |index: &Index| {
            let mut paths: Vec<PathBuf> = (index.sessions(&[]).unwrap())
                .into_iter()
                .map(|s| s.source_path)
                .collect();
            paths.sort();
            paths
        };
        let mut index = Index::open(cache.path(), &roots).unwrap();
        index.refresh(&set, &progress).unwrap();
        assert_eq!(listed(&index), [fe.clone(), ff.clone()]);
        assert_eq!(index.diagnostics(&[]).unwrap(), Diagnostics::default());
        index.index_text(&set, None, &progress).unwrap();
        let filter = SearchFilter {
            limit: 100,
            ..SearchFilter::default()
        };
        let hits = index.search("question", &filter).unwrap();
        let mut hit_paths: Vec<PathBuf> = hits.into_iter().map(|h| h.source_path).collect();
        hit_paths.sort();
        hit_paths.dedup();
        assert_eq!(hit_paths, [fe.clone(), ff.clone()]);
        drop(index);

        // The next run: the state and the rows read back as written, nothing scanned again.
        let mut index = Index::open(cache.path(), &roots).unwrap();
        let report = index.refresh(&set, &progress).unwrap();
        assert_eq!((report.changed, report.removed), (0, 0));
        assert_eq!(listed(&index), [fe.clone(), ff.clone()]);
        // One of them gone: exactly its row goes.
        std::fs::remove_file(&fe).unwrap();
        let report = index.refresh(&set, &progress).unwrap();
        assert_eq!((report.changed, report.removed), (0, 1));
        assert_eq!(listed(&index), [ff]);
    }

    /// Roots whose names differ only in bytes that are not UTF-8 get caches of their own; a
    /// UTF-8 root keeps the file it always had.
    #[cfg(unix)]
    #[test]
    fn roots_named_in_other_bytes_get_other_caches() {
        use std::os::unix::ffi::OsStrExt;
        let root = |b: &[u8]| {
            Roots::default().with(
                ProviderKind::Claude,
                [Path::new(std::ffi::OsStr::from_bytes(b))],
            )
        };
        let dir = Path::new("/c");
        assert_ne!(
            index_path(dir, &root(b"/s\xff")),
            index_path(dir, &root(b"/s\xfe"))
        );
        let utf8 = fnv1a(b"claude=/s\xc3\xa9\n");
        let want = format!("index-v{SCHEMA_VERSION}-{utf8:016x}.db");
        assert_eq!(index_path(dir, &root("/sé".as_bytes())), dir.join(want));
    }

    /// A session row whose metadata does not decode (an older build stored an empty one for
    /// a name that is not UTF-8) is left out with a diagnostic saying how to rebuild, and
    /// indexing passes it once: the other rows are listed and searched as ever, where the
    /// whole cache was "damaged" (and refilled, and damaged again by the same store).
    #[test]
    fn a_session_row_that_does_not_decode_is_a_diagnostic_not_a_damaged_cache() {
        let store = tempfile::tempdir().unwrap();
        agent_sessions_test_support::long_claude_session(store.path(), "p1", 3);
        agent_sessions_test_support::long_claude_session(store.path(), "p2", 3);
        let cache = tempfile::tempdir().unwrap();
        let roots = Roots::default().with(ProviderKind::Claude, [store.path()]);
        let set = ProviderSet::new(&roots, &[]);
        let progress = ScanProgress::default();
        let mut index = Index::open(cache.path(), &roots).unwrap();
        index.refresh(&set, &progress).unwrap();
        open_file(index.path())
            .unwrap()
            .execute("UPDATE sessions SET meta = '' WHERE id = 'p1'", [])
            .unwrap();

        let ids =
            |sessions: Vec<SessionMeta>| sessions.into_iter().map(|s| s.id).collect::<Vec<_>>();
        assert_eq!(ids(index.sessions(&[]).unwrap()), ["p2"]);
        let (sessions, diagnostics) = index.listing(&[]).unwrap();
        assert_eq!(ids(sessions), ["p2"]);
        let [d] = &diagnostics.items[..] else {
            panic!("{diagnostics:?}");
        };
        assert!(d.path.ends_with("p1.jsonl"), "{d:?}");
        assert!(d.reason.contains("cache clear"), "{d:?}");
        assert_eq!(index.index_text(&set, None, &progress).unwrap(), 2);
        assert_eq!(index.index_text(&set, None, &progress).unwrap(), 0);
        let filter = SearchFilter {
            limit: 100,
            ..SearchFilter::default()
        };
        let hits = index.search("question", &filter).unwrap();
        // Its messages are not read (its title, a column of its row, is still found).
        let read = |id: &str| {
            hits.iter()
                .filter(|h| h.session_id == id && !h.message_id.is_empty())
                .count()
        };
        assert_eq!((read("p1"), read("p2")), (0, 3), "{hits:?}");
    }

    /// A long Claude session, listed by a provider that panics as `Panicky` says.
    fn panicky(
        root: &std::path::Path,
        after: usize,
        resumed_only: bool,
    ) -> (ProviderSet, SessionMeta) {
        agent_sessions_test_support::long_claude_session(root, "p1", 50);
        let claude = crate::provider::registry::agent(ProviderKind::Claude);
        let inner = (claude.provider)(vec![root.to_path_buf()]);
        let scan = inner.scan(&Vec::new(), &ScanProgress::default()).unwrap();
        let meta = scan.changed.into_iter().next().unwrap();
        let set = ProviderSet::of(vec![Box::new(Panicky {
            inner,
            after,
            resumed_only,
        })]);
        (set, meta)
    }

    /// A chunk `extract` handed over: its messages' ids, its first line, and with the last
    /// chunk where the next read can start.
    type Chunk = (Vec<String>, u64, Option<Option<resume::Stored>>);

    /// Whether the writer took every chunk `extract` handed over for `meta`, and those chunks.
    fn extracted(
        set: &ProviderSet,
        meta: &SessionMeta,
        from: Option<&resume::Stored>,
    ) -> (bool, Vec<Chunk>) {
        let mut got = Vec::new();
        let took = extract(set, meta, from, &mut |rows, first, end| {
            got.push((rows.into_iter().map(|r| r.id).collect(), first, end));
            true
        });
        (took, got)
    }

    /// A provider that panics on a session counts as a read that failed there: what was read
    /// before is handed over as the session's last chunk, with no resume point (the next read
    /// is whole), and the extraction goes on, where the panic used to end the extractor's
    /// thread and leave the session pending for every later pass.
    #[test]
    fn a_provider_panic_is_a_failed_read_not_a_stalled_queue() {
        let dir = tempfile::tempdir().unwrap();
        let (set, meta) = panicky(dir.path(), 30, false);
        let (took, got) = extracted(&set, &meta, None);
        assert!(took);
        assert_eq!(got.len(), 1, "{got:?}");
        let (ids, first, end) = &got[0];
        assert_eq!(ids.len(), 30);
        assert_eq!(*first, 0);
        assert!(matches!(end, Some(None)), "{end:?}");
    }

    /// A provider whose scan panics lands as a scan that found nothing, with one diagnostic
    /// saying so and its state as it was; the other providers' scans land as usual.
    #[test]
    fn a_scan_that_panics_lands_as_a_diagnostic() {
        let dir = tempfile::tempdir().unwrap();
        let (claude, _) = panicky(dir.path(), 0, false);
        let codex_store = agent_sessions_test_support::fixture(ProviderKind::Codex, "0.171.0");
        let codex = crate::provider::registry::agent(ProviderKind::Codex);
        let mut set = claude.into_vec();
        set.push((codex.provider)(vec![codex_store]));
        let set = ProviderSet::of(set);
        let before = b"the state before".to_vec();
        let mut landed = Vec::new();
        set.scan_each::<crate::provider::Error>(
            &[before.clone(), Vec::new()],
            &ScanProgress::default(),
            &mut |kind, output| {
                landed.push((kind, output));
                Ok(())
            },
        )
        .unwrap();
        landed.sort_by_key(|(k, _)| *k);
        let [(ProviderKind::Claude, claude), (ProviderKind::Codex, codex)] = &landed[..] else {
            panic!("{landed:?}");
        };
        assert!(claude.changed.is_empty() && claude.removed.is_empty());
        assert_eq!(claude.state, before);
        assert_eq!(claude.diagnostics.parse_errors, 1);
        let reason = &claude.diagnostics.items[0].reason;
        assert!(reason.contains("a scan defect (this test's)"), "{reason}");
        assert!(!codex.changed.is_empty());
    }

    /// A resumed read that panics before it handed anything over is done again whole, as a
    /// resumed read that fails is.
    #[test]
    fn a_resumed_read_that_panics_is_done_again_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (set, meta) = panicky(dir.path(), 0, true);
        let (_, whole) = extracted(&set, &meta, None);
        let Some(Some(point)) = whole.last().unwrap().2.clone() else {
            panic!("a whole read of a Claude file says where to resume: {whole:?}");
        };
        let (took, again) = extracted(&set, &meta, Some(&point));
        assert!(took);
        assert_eq!(again, whole, "read again whole, from line 0");
    }

    /// A resumed read is written only over the resume point it began from: when another
    /// process indexed the session meanwhile (the stored point changed), its chunks are dropped
    /// (that process's rows stay), the session is not marked indexed, and the point is
    /// forgotten so its next read is whole; a pass out of time still writes the next session.
    #[test]
    fn a_resumed_read_of_a_session_indexed_meanwhile_is_dropped() {
        use crate::provider::tail::{LineStart, Resume};
        let mut conn = Connection::open_in_memory().unwrap();
        functions(&conn).unwrap();
        conn.execute_batch(&text_schema("main")).unwrap();
        let point = |line: u64| resume::Stored {
            resume: Resume {
                from: LineStart {
                    offset: line * 100,
                    line,
                },
                state: Vec::new(),
            },
            check: 1,
        };
        let row = |id: &str| text::Row {
            id: id.to_owned(),
            text: format!("{id} text"),
            hash: 1,
            line: 50,
        };
        // What the other process wrote: its rows and its point.
        let tx = conn.transaction().unwrap();
        let mut theirs = text::SessionRows::begin(&tx, 7, 0).unwrap();
        theirs.write(&tx, &[row("x"), row("y")]).unwrap();
        theirs.finish(&tx).unwrap();
        resume::save(&tx, 7, Some(&point(40))).unwrap();
        tx.commit().unwrap();
        let chunk = |rowid, based_on, last, id: &str| Extracted {
            rowid,
            updated: 0,
            messages: vec![row(id)],
            terms: Vec::new(),
            from: 21,
            based_on,
            last,
            resume: last.then(|| point(60)),
        };
        let items = vec![
            // Begun from line 20's point; line 40's is stored now.
            chunk(7, Some(point(20)), false, "a"),
            chunk(7, None, true, "b"),
            chunk(9, None, true, "c"),
            chunk(11, None, true, "d"),
        ];
        // The pass's time is up from the start: it still writes one session, the first it
        // does not drop, and ends there.
        let ending = Ending {
            deadline: Some(std::time::Instant::now()),
            last: false,
            bulk: false,
        };
        let mut committed = Vec::new();
        write_shard(
            &mut conn,
            items.into_iter(),
            ending,
            &ScanProgress::default(),
            &mut |_, _| Ok(()),
            &mut |done| committed.extend(done),
        )
        .unwrap();
        assert_eq!(committed, [(9, 0)]);
        let ids: Vec<String> = conn
            .prepare("SELECT message_id FROM indexed_messages ORDER BY 1")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(ids, ["c", "x", "y"]);
        assert_eq!(resume::load(&conn, "main", 7).unwrap(), None);
        assert_eq!(resume::load(&conn, "main", 11).unwrap(), None);
        assert_eq!(resume::load(&conn, "main", 9).unwrap(), Some(point(60)));
    }

    /// The table size read from FTS5's averages record is the one its rank function sees:
    /// given it, `as_bm25` scores as it does with the table's own (rows and tokens past one
    /// varint byte).
    #[test]
    fn table_size_is_what_fts5_counts() {
        let conn = Connection::open_in_memory().unwrap();
        functions(&conn).unwrap();
        conn.execute_batch(&text_schema("main")).unwrap();
        let long = "word ".repeat(300);
        for (i, body) in (0..200).map(|i| (i, if i % 2 == 0 { "alpha beta" } else { &long })) {
            conn.execute(
                "INSERT INTO fts (title, body, session, message_id) VALUES ('t', ?1, ?2, 'm')",
                params![body, i],
            )
            .unwrap();
        }
        let [rows, tokens] = table_size(&conn, "main").unwrap();
        assert_eq!((rows, tokens), (200, 200 + 100 * 2 + 100 * 300));
        let scores = |extra: &str| -> Vec<f64> {
            let sql = format!(
                "SELECT {}(fts, 200, 100{extra}) FROM fts WHERE fts MATCH 'beta' ORDER BY rowid",
                rank::FUNCTION
            );
            let mut stmt = conn.prepare(&sql).unwrap();
            let rows = stmt.query_map([], |r| r.get(0)).unwrap();
            rows.map(Result::unwrap).collect()
        };
        assert_eq!(scores(""), scores(&format!(", {rows}, {tokens}")));
        assert_ne!(scores(""), scores(&format!(", {rows}, {}", tokens * 2)));
    }

    /// Only a damaged cache is worth deleting; a busy one needs a moment, an unwritable one
    /// another place.
    #[test]
    fn each_cache_failure_gets_its_own_advice() {
        let p = Path::new("/c/index.db");
        let busy = cache_error(p, failure(rusqlite::ffi::SQLITE_BUSY)).to_string();
        assert!(busy.contains("another agent-sessions process"), "{busy}");
        assert!(!busy.contains("delete"), "{busy}");
        let corrupt = cache_error(p, failure(rusqlite::ffi::SQLITE_CORRUPT)).to_string();
        assert!(corrupt.contains("delete the file /c/index.db"), "{corrupt}");
        let not_a_db = cache_error(p, failure(rusqlite::ffi::SQLITE_NOTADB));
        assert!(matches!(not_a_db, Error::CacheCorrupt { .. }), "{not_a_db}");
        let read_only = cache_error(p, failure(rusqlite::ffi::SQLITE_READONLY)).to_string();
        assert!(
            read_only.starts_with("cannot write the cache at /c/index.db")
                && read_only.contains("AGENT_SESSIONS_CACHE_DIR"),
            "{read_only}"
        );
        let other = cache_error(p, failure(rusqlite::ffi::SQLITE_IOERR)).to_string();
        assert!(!other.contains("delete"), "{other}");
    }
}
