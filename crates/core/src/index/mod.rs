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

mod direct;
mod query;
mod rank;
mod text;
mod tokens;

pub use query::{MAX_QUERY_CHARS, MAX_TERMS};

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::config::DbConfig;
use rusqlite::{
    params, Connection, ErrorCode, OptionalExtension, Transaction, TransactionBehavior,
};
use serde::Serialize;

use crate::error::Error;
use crate::model::{Diagnostic, Diagnostics, ProviderKind, SessionMeta};
use crate::provider::files::fnv1a;
use crate::provider::{ProviderSet, Roots, ScanProgress, SessionKey};

/// Bump when the schema or the meaning of stored data changes; older files are left alone.
pub const SCHEMA_VERSION: u32 = 4;

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
CREATE TABLE IF NOT EXISTS sessions (
  rowid INTEGER PRIMARY KEY,
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
CREATE TABLE IF NOT EXISTS indexed_messages (
  session INTEGER NOT NULL,
  message_id TEXT NOT NULL,
  hash INTEGER NOT NULL,
  fts_rowid INTEGER NOT NULL,
  PRIMARY KEY (session, message_id)
) WITHOUT ROWID;
-- No prefix indexes: they were 60% of the indexing time. A prefix query is answered by an OR
-- of the terms that start with it, from `terms`: every term of the indexed text, written in
-- the transaction that indexes it (a term whose rows are gone later stays, matching nothing).
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
  title, body, session UNINDEXED, message_id UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS terms (term TEXT PRIMARY KEY) WITHOUT ROWID;
";

/// The FTS5 tokenizer of the index (in [`SCHEMA`]), also used to match sessions read directly.
const TOKENIZER: &str = "unicode61 remove_diacritics 2";

/// FTS5's settings, stored in the table (set once, when it is created). `hashsize`: the terms
/// of a transaction are gathered in memory up to this size before FTS5 writes them out as a
/// segment. The default, 1 MiB, cut a 32 MB transaction into dozens of small segments to merge
/// again (text indexing took 29 s of CPU instead of 17 s on the 300 MB corpus); 64 MiB cost
/// 40 MB more peak memory and saved nothing measurable (`docs/performance.md`).
const FTS_SETTINGS: &str = "
INSERT INTO fts (fts, rank) VALUES ('hashsize', 33554432);
";

/// How long a writer waits for another process's write transaction before giving up.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

pub struct Index {
    conn: Connection,
    path: PathBuf,
    /// What opening did that the user should hear about (a damaged cache rebuilt).
    warnings: Vec<String>,
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
    /// itself), and a hit opens its own. Empty from a remote server that predates it.
    #[serde(default)]
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
    let mut key = String::new();
    for kind in ProviderKind::ALL {
        for r in roots.for_kind(kind) {
            key.push_str(kind.as_str());
            key.push('=');
            key.push_str(&r.to_string_lossy());
            key.push('\n');
        }
    }
    dir.join(format!(
        "index-v{SCHEMA_VERSION}-{:016x}.db",
        fnv1a(key.as_bytes())
    ))
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
                reason: format!("cannot delete it: {err}"),
            })?;
            removed.push(e.path());
        }
    }
    removed.sort();
    Ok(removed)
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

/// Opens the cache file with its busy timeout; the schema comes with [`setup`].
fn connect(path: &Path) -> Result<Connection, Error> {
    let conn = Connection::open(path).map_err(|e| cache_error(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| cache_error(path, e))?;
    Ok(conn)
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
    conn.pragma_update(None, "page_size", 32768).map_err(err)?;
    conn.pragma_update(None, "journal_mode", "wal")
        .map_err(err)?;
    conn.pragma_update(None, "synchronous", "normal")
        .map_err(err)?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(err)?;
    tx.execute_batch(SCHEMA).map_err(err)?;
    let tuned: bool = tx
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM fts_config WHERE k = 'hashsize')",
            [],
            |r| r.get(0),
        )
        .map_err(err)?;
    if !tuned {
        tx.execute_batch(FTS_SETTINGS).map_err(err)?;
    }
    tx.commit().map_err(err)?;
    // Searches rank with it (after the schema: FTS5 is reached through a statement, which a
    // damaged file would fail first).
    rank::register(conn).map_err(err)
}

/// Empties a damaged database in place (SQLite's documented reset: works on a corrupt file, and
/// other connections to the file see the empty database rather than a deleted file).
fn reset(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_RESET_DATABASE, true)?;
    let vacuumed = conn.execute_batch("VACUUM");
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
            path,
            warnings: Vec::new(),
        };
        match setup(&mut index.conn, &index.path) {
            Err(Error::CacheCorrupt { reason, .. }) => {
                index.rebuild()?;
                index.warnings.push(rebuilt_warning(&index.path, &reason));
            }
            other => other?,
        }
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
        self.conn.flush_prepared_statement_cache();
        if reset(&self.conn).is_ok() && setup(&mut self.conn, &self.path).is_ok() {
            return Ok(());
        }
        let placeholder = Connection::open_in_memory().map_err(|e| cache_error(&self.path, e))?;
        drop(std::mem::replace(&mut self.conn, placeholder));
        for suffix in ["-wal", "-shm", ""] {
            let file = PathBuf::from(format!("{}{suffix}", self.path.display()));
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
        create_private(&self.path)?;
        self.conn = connect(&self.path)?;
        setup(&mut self.conn, &self.path)
    }

    fn err(&self, e: rusqlite::Error) -> Error {
        cache_error(&self.path, e)
    }

    /// Our own data that does not decode: the file is damaged.
    fn damaged(&self, e: impl std::fmt::Display) -> Error {
        Error::CacheCorrupt {
            path: self.path.clone(),
            reason: e.to_string(),
        }
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
        let mut report = RefreshReport::default();
        let states: Vec<Vec<u8>> = set
            .iter()
            .map(|p| self.state(p.kind()))
            .collect::<Result<_, _>>()?;
        // Commit each provider as its scan finishes.
        set.scan_each(&states, progress, &mut |kind,
                                               output|
         -> Result<(), Error> {
            let read_whole =
                |meta: &SessionMeta| set.get(kind).is_none_or(|p| !p.reads_in_part(meta));
            self.commit(kind, &output, &read_whole)?;
            report.changed += output.changed.len();
            report.removed += output.removed.len();
            on_commit(kind, &output);
            Ok(())
        })?;
        Ok(report)
    }

    /// One provider's scan result, with its new state, in one transaction.
    fn commit(
        &mut self,
        kind: ProviderKind,
        output: &crate::provider::ScanOutput,
        read_whole: &dyn Fn(&SessionMeta) -> bool,
    ) -> Result<(), Error> {
        let path = self.path.clone();
        let err = |e: rusqlite::Error| cache_error(&path, e);
        let mut terms = tokens::NewTerms::new().map_err(err)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        for key in &output.removed {
            remove_session(&tx, key).map_err(err)?;
        }
        for meta in &output.changed {
            upsert_session(&tx, meta, read_whole(meta), &mut terms).map_err(err)?;
        }
        replace_diagnostics(&tx, kind, &output.diagnostics).map_err(err)?;
        tx.execute(
            "INSERT INTO provider_state (provider, state, problems) VALUES (?1, ?2, ?3)
             ON CONFLICT (provider) DO UPDATE SET state = excluded.state, problems = excluded.problems",
            params![kind.as_str(), output.state, output.diagnostics.parse_errors as i64],
        )
        .map_err(err)?;
        tx.commit().map_err(err)
    }

    /// Drops sessions from the cache at once (their text too), as a trash or delete leaves
    /// them: the list stops showing them before the next refresh notices the files are gone.
    pub fn forget(&mut self, keys: &[SessionKey]) -> Result<(), Error> {
        let path = self.path.clone();
        let err = |e: rusqlite::Error| cache_error(&path, e);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        for key in keys {
            remove_session(&tx, key).map_err(err)?;
        }
        tx.commit().map_err(err)
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

    /// Every session in the cache for these providers (all when empty), newest first.
    pub fn sessions(&self, providers: &[ProviderKind]) -> Result<Vec<SessionMeta>, Error> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT provider, meta FROM sessions")
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let provider: String = row.get(0).map_err(|e| self.err(e))?;
            let wanted = ProviderKind::parse(&provider)
                .is_some_and(|k| providers.is_empty() || providers.contains(&k));
            if !wanted {
                continue;
            }
            let meta: String = row.get(1).map_err(|e| self.err(e))?;
            out.push(serde_json::from_str(&meta).map_err(|e| self.damaged(e))?);
        }
        out.sort_by(SessionMeta::newest_first);
        Ok(out)
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
                path: PathBuf::from(row.get::<_, String>(1).map_err(|e| self.err(e))?),
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

    /// Indexes the message text of up to `max` pending sessions (all when `None`): first those
    /// a search can only read by parsing them whole (OpenCode's rows), then the others, each
    /// newest first — a search reads unindexed one-file sessions at the speed of reading.
    /// [`EXTRACTORS`] threads read and extract the sessions' text, in turn, while this one writes
    /// it in transactions of up to [`TX_TEXT_BYTES`] or [`TX_TIME`], so a kill loses at most the
    /// transaction in progress (its sessions stay pending) and another process's writer waits
    /// at most about [`TX_TIME`]. Only messages whose text changed are rewritten, so a grown
    /// live session costs its new messages.
    pub fn index_text(
        &mut self,
        providers: &ProviderSet,
        max: Option<usize>,
        progress: &ScanProgress,
    ) -> Result<usize, Error> {
        // Only the batch asked for is read: an app indexing 20 at a time over 50,000 pending
        // sessions would otherwise decode all of them for every batch.
        let limit = max.and_then(|m| i64::try_from(m).ok()).unwrap_or(-1);
        let pending: Vec<(i64, i64, String)> = {
            let mut stmt = self
                .conn
                .prepare("SELECT rowid, coalesce(updated_at, 0), meta FROM sessions WHERE text_indexed = 0 ORDER BY read_whole DESC, updated_at DESC LIMIT ?1")
                .map_err(|e| self.err(e))?;
            let rows = stmt
                .query_map([limit], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .map_err(|e| self.err(e))?;
            rows.collect::<Result<_, _>>().map_err(|e| self.err(e))?
        };
        progress.add_total(pending.len() as u64, 0);
        let mut shares: Vec<Vec<_>> = (0..EXTRACTORS).map(|_| Vec::new()).collect();
        for (i, item) in pending.into_iter().enumerate() {
            shares[i % EXTRACTORS].push(item);
        }
        let mut terms = Vec::new();
        for _ in 0..EXTRACTORS {
            terms.push(tokens::NewTerms::new().map_err(|e| self.err(e))?);
        }
        let path = self.path.clone();
        let conn = &mut self.conn;
        let (done, extracted) = std::thread::scope(|s| {
            let mut extractors = Vec::new();
            let mut receivers = Vec::new();
            for (share, new_terms) in shares.into_iter().zip(terms) {
                let (send, received) = std::sync::mpsc::sync_channel(EXTRACT_AHEAD);
                extractors.push(s.spawn(move || extract_share(providers, share, new_terms, send)));
                receivers.push(received);
            }
            let written =
                write_texts(conn, in_turn(receivers), progress).and_then(|(sessions, bytes)| {
                    if bytes >= MERGE_AFTER_BYTES {
                        merge_segments(conn)?;
                    }
                    Ok(sessions)
                });
            // The receivers are gone once `write_texts` returns, so the extractors end too.
            let extracted: Result<(), serde_json::Error> = extractors
                .into_iter()
                .try_for_each(|e| e.join().unwrap_or(Ok(())));
            (written, extracted)
        });
        extracted.map_err(|e| self.damaged(e))?;
        done.map_err(|e| cache_error(&path, e))
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
        let mut known = |prefix: &str| -> rusqlite::Result<Option<Vec<String>>> {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT term FROM terms WHERE term >= ?1 ORDER BY term")?;
            let rows = stmt.query_map([prefix], |r| r.get::<_, String>(0))?;
            // Stops at the first term past the prefix, or one past the cap.
            let mut error = None;
            let terms = rows.map_while(|r| r.map_err(|e| error = Some(e)).ok());
            let found = query::starting_with(terms, prefix);
            error.map_or(Ok(found), Err)
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
                " AND session IN (SELECT rowid FROM sessions WHERE {})",
                conditions.join(" AND ")
            )
        };
        let limit = filter.limit.max(1);
        // Each phrase's document frequency is counted in the newest rows: for a prefix spelled
        // out as dozens of terms that costs more than the search; those come newest first.
        let hits = if expression.spelled.is_none_or(|n| n <= RANKED_PHRASES) {
            let best = self.best_ranked(&expression, &restrict, &session_args, limit)?;
            self.hits_at(&expression.fts, &best)?
        } else {
            self.newest(&expression.fts, &restrict, session_args, limit)?
        };
        Ok((hits, spelled))
    }

    /// The best `limit` of the newest [`RANKED_CANDIDATES`] matches by BM25, best first, as
    /// (rowid, rank; lower is better). One walk of the index backwards scores each candidate
    /// as it is found (`rank.rs`), with the phrases' document frequencies counted first.
    fn best_ranked(
        &self,
        expression: &Expression,
        restrict: &str,
        session_args: &[rusqlite::types::Value],
        limit: usize,
    ) -> Result<Vec<(i64, f64)>, Error> {
        let frequencies = self.frequencies(&expression.phrases)?;
        let slots = vec!["?"; frequencies.len()].join(", ");
        let sql = format!(
            "SELECT rowid, {}(fts, {slots}) FROM fts WHERE fts MATCH ?{restrict}
             ORDER BY rowid DESC LIMIT {RANKED_CANDIDATES}",
            rank::FUNCTION
        );
        let mut args: Vec<rusqlite::types::Value> =
            frequencies.into_iter().map(Into::into).collect();
        args.push(expression.fts.clone().into());
        args.extend(session_args.iter().cloned());
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args), |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?))
            })
            .map_err(|e| self.err(e))?;
        let mut scored = rows
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        // Best first; among equals, newest first.
        scored.sort_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        scored.truncate(limit);
        Ok(scored)
    }

    /// The hits of rows chosen by [`Index::best_ranked`], in that order, with their snippets
    /// (made for these rows only: FTS5 finds each by its rowid).
    fn hits_at(&self, fts: &str, rows: &[(i64, f64)]) -> Result<Vec<Hit>, Error> {
        let sql = format!(
            "SELECT s.id, s.provider, fts.message_id, s.title,
                    snippet(fts, -1, '{MARK_START}', '{MARK_END}', '…', 12), s.source_path
             FROM fts JOIN sessions s ON s.rowid = fts.session
             WHERE fts MATCH ?1 AND fts.rowid = ?2"
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let mut hits = Vec::with_capacity(rows.len());
        for &(rowid, rank) in rows {
            let found = stmt
                .query_row(params![fts, rowid], |r| hit_of(r, 0.0 - rank))
                .optional()
                .map_err(|e| self.err(e))?;
            hits.extend(found.flatten());
        }
        Ok(hits)
    }

    /// The newest `limit` matches with their snippets, unranked (a prefix spelled out as more
    /// phrases than BM25 is worth, see [`RANKED_PHRASES`]).
    fn newest(
        &self,
        fts: &str,
        restrict: &str,
        session_args: Vec<rusqlite::types::Value>,
        limit: usize,
    ) -> Result<Vec<Hit>, Error> {
        let sql = format!(
            "SELECT s.id, s.provider, h.message_id, s.title, h.snip, s.source_path
             FROM (SELECT rowid AS row, session, message_id,
                          snippet(fts, -1, '{MARK_START}', '{MARK_END}', '…', 12) AS snip
                   FROM fts WHERE fts MATCH ?{restrict}
                   ORDER BY rowid DESC LIMIT ?) h
             JOIN sessions s ON s.rowid = h.session
             ORDER BY h.row DESC"
        );
        let mut args: Vec<rusqlite::types::Value> = vec![fts.to_owned().into()];
        args.extend(session_args);
        args.push((limit as i64).into());
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args), |r| hit_of(r, 0.0))
            .map_err(|e| self.err(e))?;
        let mut hits = Vec::new();
        for hit in rows {
            hits.extend(hit.map_err(|e| self.err(e))?);
        }
        Ok(hits)
    }

    /// The rank function's arguments for `phrases` (see `rank.rs`): how many rows a window of
    /// the newest rows has, and in how many of them each phrase is — the whole index when it
    /// has up to [`SAMPLE_ROWS`] rows (then the ranking is exactly FTS5's `bm25()`), else the
    /// newest [`SAMPLE_ROWS`], so the work is bounded however long the history.
    fn frequencies(&self, phrases: &[String]) -> Result<Vec<i64>, Error> {
        let count = |sql: &str, args: &[&dyn rusqlite::ToSql]| -> Result<Option<i64>, Error> {
            self.conn
                .prepare_cached(sql)
                .and_then(|mut s| s.query_row(args, |r| r.get(0)))
                .map_err(|e| self.err(e))
        };
        let Some(high) = count("SELECT max(id) FROM fts_docsize", &[])? else {
            return Ok(vec![0; phrases.len() + 1]);
        };
        let start = high.saturating_sub(SAMPLE_ROWS);
        let mut out = Vec::with_capacity(phrases.len() + 1);
        out.push(count("SELECT count(*) FROM fts_docsize WHERE id > ?1", &[&start])?.unwrap_or(0));
        for phrase in phrases {
            out.push(
                count(
                    "SELECT count(*) FROM fts WHERE fts MATCH ?1 AND rowid > ?2",
                    &[phrase, &start],
                )?
                .unwrap_or(0),
            );
        }
        Ok(out)
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
            "SELECT meta FROM sessions WHERE {} ORDER BY updated_at DESC",
            conditions.join(" AND ")
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(0))
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for meta in rows {
            let meta = meta.map_err(|e| self.err(e))?;
            out.push(serde_json::from_str(&meta).map_err(|e| self.damaged(e))?);
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

/// The newest rows the rank function's document frequencies are counted in (see
/// [`Index::frequencies`]): an index this small is counted whole.
const SAMPLE_ROWS: i64 = 10_000;

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

/// A pass that wrote this much text merges the index's segments after it (see
/// [`merge_segments`]); a live session's few new messages do not.
const MERGE_AFTER_BYTES: usize = TX_TEXT_BYTES;

/// Leaf pages (4 KB) one merge step writes at most: a step of a few tenths of a second.
const MERGE_STEP_PAGES: i64 = 4000;

/// A bound on merge steps (a 1 GB cache needs well under a hundred), so it can never spin.
const MAX_MERGE_STEPS: usize = 10_000;

/// Sessions each extractor holds ahead of the writer: bounds the memory the threads hold.
const EXTRACT_AHEAD: usize = 2;

/// Threads reading and extracting text for the one writer. Two: where parsing is the slow part
/// (OpenCode's rows, indexed first) one extractor left the writer waiting 1.0 of its 8.5 s at
/// 300 MB; where writing is, the second one waits and costs nothing (`docs/performance.md`).
const EXTRACTORS: usize = 2;

/// Reads and extracts one extractor's share of the pending sessions (every
/// [`EXTRACTORS`]th, in order), handing each to the writer; ends early when the writer stops.
/// Each extractor remembers its own terms, so a term may be sent twice (the writer keeps it
/// once: `INSERT OR IGNORE`).
fn extract_share(
    providers: &ProviderSet,
    share: Vec<(i64, i64, String)>,
    mut new_terms: tokens::NewTerms,
    send: std::sync::mpsc::SyncSender<Extracted>,
) -> Result<(), serde_json::Error> {
    for (rowid, updated, meta) in share {
        let meta: SessionMeta = serde_json::from_str(&meta)?;
        let messages = extract(providers, &meta);
        let mut terms = Vec::new();
        for row in &messages {
            new_terms.add(&row.text, &mut terms);
        }
        let item = Extracted {
            rowid,
            updated,
            messages,
            terms,
        };
        if send.send(item).is_err() {
            break; // the writer stopped
        }
    }
    Ok(())
}

/// The extractors' sessions in the order they were queued: the pending list was dealt to them
/// in turn, so it is taken back in turn. Ends at the first extractor with nothing more (its
/// share done, or failed: then the others' later sessions wait for the next pass).
fn in_turn(
    receivers: Vec<std::sync::mpsc::Receiver<Extracted>>,
) -> impl Iterator<Item = Extracted> {
    let mut turn = 0;
    std::iter::from_fn(move || {
        let item = receivers[turn % receivers.len()].recv().ok();
        turn += 1;
        item
    })
}

/// One session's searchable text, extracted off the writing thread.
struct Extracted {
    rowid: i64,
    updated: i64,
    messages: Vec<text::Row>,
    /// The terms of `messages` not sent with an earlier session of this run.
    terms: Vec<String>,
}

/// The searchable text of a session's messages, read as the transcript streams. A session that
/// cannot be read (deleted meanwhile) keeps what was read; the next refresh removes or
/// re-queues it.
fn extract(providers: &ProviderSet, meta: &SessionMeta) -> Vec<text::Row> {
    let mut messages = Vec::new();
    if let Some(provider) = providers.get(meta.provider) {
        let _ = provider.load_each(meta, &mut |m| {
            messages.extend(text::searchable(&m).map(text::Row::new))
        });
    }
    messages
}

/// Writes extracted sessions as they arrive, committing per [`TX_TEXT_BYTES`] / [`TX_TIME`];
/// each session is marked indexed in the transaction that holds its text, unless it changed
/// since it was queued. Returns how many sessions were written, and the bytes of their text.
fn write_texts(
    conn: &mut Connection,
    received: impl Iterator<Item = Extracted>,
    progress: &ScanProgress,
) -> rusqlite::Result<(usize, usize)> {
    let mut received = received.peekable();
    let (mut done, mut written) = (0, 0);
    while received.peek().is_some() {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let start = std::time::Instant::now();
        let (mut bytes, mut sessions) = (0, 0);
        for item in received.by_ref() {
            bytes += text::write(&tx, item.rowid, &item.messages)?;
            text::add_terms(&tx, &item.terms)?;
            tx.prepare_cached(
                "UPDATE sessions SET text_indexed = 1 WHERE rowid = ?1 AND coalesce(updated_at, 0) = ?2",
            )?
            .execute(params![item.rowid, item.updated])?;
            sessions += 1;
            if bytes >= TX_TEXT_BYTES || start.elapsed() >= TX_TIME {
                break;
            }
        }
        tx.commit()?;
        progress.add_done(sessions as u64, 0);
        done += sessions;
        written += bytes;
    }
    Ok((done, written))
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
        source_path: PathBuf::from(r.get::<_, String>(5)?),
    }))
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
fn create_private_dir(dir: &Path) -> Result<(), Error> {
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
        params![
            key.provider.as_str(),
            key.id,
            key.source_path.to_string_lossy()
        ],
        |r| r.get(0),
    )
    .optional()
}

fn remove_session(tx: &Transaction<'_>, key: &SessionKey) -> rusqlite::Result<()> {
    if let Some(rowid) = session_rowid(tx, key)? {
        text::remove(tx, rowid)?;
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
            meta.source_path.to_string_lossy(),
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
            item.path.to_string_lossy(),
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
