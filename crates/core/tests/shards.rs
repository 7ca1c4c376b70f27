//! The message text split over several files ("shards", `index/mod.rs`): what the files hold
//! when one writer's transaction lands without the other's — a kill between two files' commits,
//! a writer of another connection finishing after a removal, a cache cleared under a running
//! process — never shows as a hit of the wrong session or takes a real hit's place.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_sessions_core::index::{self, Index, SearchFilter};
use agent_sessions_core::provider::SessionKey;
use agent_sessions_core::{ProviderKind, ProviderSet, Roots, ScanProgress};

fn filter(limit: usize) -> SearchFilter {
    SearchFilter {
        limit,
        ..SearchFilter::default()
    }
}

/// A cache in `dir` of `roots`, listed and text-indexed.
fn indexed(dir: &Path, roots: &Roots) -> Index {
    common::indexed(dir, roots).0
}

/// The message rows (not titles) of one of the cache's files: (session rowid, row key).
fn message_rows(file: &Path) -> Vec<(i64, String)> {
    let conn = rusqlite::Connection::open(file).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT session, message_id FROM indexed_messages WHERE message_id != '' ORDER BY 1, 2",
        )
        .unwrap();
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

const WORDS: &[&str] = &["hello", "the", "file", "read*", "error OR tool"];

/// A removed session's rows in a shard's file can outlive it: its writer (another connection:
/// the app's indexer while its window trashes the session) commits after the removal deleted
/// them. Those rows name a session that is gone and must not take the place of a real hit.
#[test]
fn rows_left_for_a_removed_session_take_no_real_hits_place() {
    let roots = common::three_fixtures();
    let providers = ProviderSet::new(&roots, &[]);
    let cache = tempfile::tempdir().unwrap();
    let mut index = indexed(cache.path(), &roots);
    let shard = index::cache_files(index.path()).pop().unwrap();
    // A session of the second shard (odd rowid), removed as a trash removes it.
    let (rowid, key) = rusqlite::Connection::open(index.path())
        .unwrap()
        .query_row(
            "SELECT rowid, provider, id, source_path FROM sessions WHERE rowid % 2 = 1 ORDER BY rowid LIMIT 1",
            [],
            |r| {
                let provider: String = r.get(1)?;
                Ok((
                    r.get::<_, i64>(0)?,
                    SessionKey {
                        provider: ProviderKind::parse(&provider).unwrap(),
                        id: r.get(2)?,
                        source_path: PathBuf::from(r.get::<_, String>(3)?),
                    },
                ))
            },
        )
        .unwrap();
    index.forget(std::slice::from_ref(&key)).unwrap();
    let limits = [1, 3];
    let before: Vec<usize> = limits
        .iter()
        .map(|&n| index.search("file", &filter(n)).unwrap().len())
        .collect();
    assert_eq!(before, limits, "enough hits to fill each limit");
    // The late writer's row: newest in its file, and the best match there is.
    index::open_file(&shard)
        .unwrap()
        .execute(
            "INSERT INTO fts (title, body, session, message_id) VALUES ('', 'file file file', ?1, 'late')",
            [rowid],
        )
        .unwrap();
    for (n, want) in limits.iter().zip(&before) {
        let hits = index.search("file", &filter(*n)).unwrap();
        assert_eq!(hits.len(), *want, "limit {n}: {hits:?}");
        assert!(hits.iter().all(|h| h.session_id != key.id), "{hits:?}");
        let all = index.search_all("file", &filter(*n), &providers).unwrap();
        assert_eq!(all.hits.len(), *want, "limit {n}: {all:?}");
    }
}

/// The same for a prefix spelled out as more terms than BM25 is worth, answered newest first:
/// left-over rows, newer than every real match, took every place of the second shard's share.
#[test]
fn rows_left_for_a_removed_session_take_no_newest_hits_place() {
    let roots = common::three_fixtures();
    let cache = tempfile::tempdir().unwrap();
    let index = indexed(cache.path(), &roots);
    // A prefix answered newest first (unranked: every score 0), with the most hits: in both
    // files.
    let newest = ["1*", "2*", "3*", "4*", "5*"]
        .into_iter()
        .map(|q| (q, index.search(q, &filter(1000)).unwrap()))
        .filter(|(_, hits)| hits.iter().all(|h| h.score == 0.0))
        .max_by_key(|(_, hits)| hits.len());
    let (query, want) = newest.expect("a prefix answered newest first");
    assert!(want.len() > 10, "{query}: {}", want.len());
    let term: String = rusqlite::Connection::open(index.path())
        .unwrap()
        .query_row(
            "SELECT term FROM terms WHERE term >= ?1 ORDER BY term LIMIT 1",
            [query.trim_end_matches('*')],
            |r| r.get(0),
        )
        .unwrap();
    let shard = index::cache_files(index.path()).pop().unwrap();
    let late = index::open_file(&shard).unwrap();
    for _ in 0..want.len() {
        late.execute(
            "INSERT INTO fts (title, body, session, message_id) VALUES ('', ?1, 1000000, 'late')",
            [&term],
        )
        .unwrap();
    }
    let hits = index.search(query, &filter(want.len())).unwrap();
    assert_eq!(hits.len(), want.len(), "{query}");
}

/// SQLite commits a transaction's attached files one after the other: a kill while a cache
/// file created anew (deleted by hand) was set up can leave its schema committed and its
/// shard's emptying not. The shard's rows name the old file's sessions by rowid, and the new
/// file gives those rowids to other sessions: they are emptied on the next open.
#[test]
fn a_new_cache_file_empties_the_shards_a_kill_left_full() {
    let roots = common::three_fixtures();
    let providers = ProviderSet::new(&roots, &[]);
    let p = ScanProgress::default();
    let (old, fresh) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let path = indexed(old.path(), &roots).path().to_path_buf();
    let shard = index::cache_files(&path).pop().unwrap();
    assert!(!message_rows(&shard).is_empty());
    // The state the kill leaves: a new cache file with its schema and no sessions (the same
    // name: the same roots), beside the old shard.
    let new_file = Index::open(fresh.path(), &roots)
        .unwrap()
        .path()
        .to_path_buf();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    std::fs::copy(&new_file, &path).unwrap();

    let mut index = Index::open(old.path(), &roots).unwrap();
    assert_eq!(message_rows(&shard), [], "the old shard is emptied");
    index.refresh(&providers, &p).unwrap();
    assert_eq!(index.pending_text().unwrap(), 40);
    for word in WORDS {
        let hits = index.search(word, &filter(1000)).unwrap();
        assert!(
            hits.iter().all(|h| h.message_id.is_empty()),
            "{word}: nothing is indexed, only titles match: {hits:?}"
        );
    }
}

/// Every search of these words: each hit, scores and snippets too.
fn answers(index: &Index) -> Vec<Vec<index::Hit>> {
    let search = |w: &&str| index.search(w, &filter(1000)).unwrap();
    WORDS.iter().map(search).collect()
}

/// A process keeps its cache's files open; `cache clear` in another process deletes them, and
/// that process (or the next) creates new ones. The first process's text writers and search
/// readers open the files by name: they must never write the old cache's sessions (rowids that
/// name other sessions there) into the new cache's files, nor read them as its own. Its next
/// refresh or index follows the new files, as a new process would.
#[test]
#[cfg_attr(
    windows,
    ignore = "Windows deletes no file another process holds open: see the next test"
)]
fn a_process_whose_cache_was_cleared_follows_the_new_one() {
    let roots = common::three_fixtures();
    let providers = ProviderSet::new(&roots, &[]);
    let p = ScanProgress::default();
    let half_indexed = |dir: &Path| {
        let mut index = Index::open(dir, &roots).unwrap();
        index.refresh(&providers, &p).unwrap();
        assert_eq!(index.index_text(&providers, Some(20), &p).unwrap(), 20);
        index
    };
    let cache = tempfile::tempdir().unwrap();
    let mut stale = half_indexed(cache.path());
    // Its answers, as another connection to its files finds them (it has not searched yet: its
    // own search readers open at its first search).
    let want = answers(&Index::open(cache.path(), &roots).unwrap());
    index::clear(cache.path()).unwrap();

    assert_eq!(answers(&stale), want, "it searches the files it opened");
    // The cache it follows is the new, empty one: nothing to index, and its files are made as
    // a new cache's are (private, with their schema).
    assert_eq!(stale.index_text(&providers, None, &p).unwrap(), 0);
    for file in index::cache_files(stale.path()) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", file.display());
        }
        assert_eq!(message_rows(&file), [], "{}", file.display());
    }
    assert!(answers(&stale).iter().all(Vec::is_empty));

    // Cleared again, and another process lists the new cache: the first one indexes the new
    // cache's sessions by the new cache's rowids, so every answer names its own session (the
    // same hits as a cache indexed whole from the start).
    let whole = tempfile::tempdir().unwrap();
    let mut fresh = Index::open(whole.path(), &roots).unwrap();
    fresh.refresh(&providers, &p).unwrap();
    fresh.index_text(&providers, None, &p).unwrap();
    let keys = |index: &Index| -> Vec<Vec<(String, String, std::path::PathBuf)>> {
        answers(index)
            .into_iter()
            .map(|hits| {
                let mut keys: Vec<_> = hits
                    .into_iter()
                    .map(|h| (h.session_id, h.message_id, h.source_path))
                    .collect();
                keys.sort();
                keys
            })
            .collect()
    };
    let want = keys(&fresh);
    assert!(want.iter().all(|k| !k.is_empty()));
    drop(stale);
    let mut stale = half_indexed(cache.path());
    index::clear(cache.path()).unwrap();
    let mut other = Index::open(cache.path(), &roots).unwrap();
    other.refresh(&providers, &p).unwrap();
    assert_eq!(other.pending_text().unwrap(), 40);
    assert_eq!(stale.index_text(&providers, None, &p).unwrap(), 40);
    assert_eq!(other.pending_text().unwrap(), 0);
    assert_eq!(keys(&other), want);
    assert_eq!(keys(&stale), want);
}

/// On Windows a cache another process holds open cannot be deleted: `cache clear` says so
/// and which file, and the cache stays whole for the process that holds it.
#[cfg(windows)]
#[test]
fn clearing_a_cache_another_process_holds_says_so_and_keeps_it() {
    let roots = common::three_fixtures();
    let providers = ProviderSet::new(&roots, &[]);
    let p = ScanProgress::default();
    let cache = tempfile::tempdir().unwrap();
    let mut held = Index::open(cache.path(), &roots).unwrap();
    held.refresh(&providers, &p).unwrap();
    held.index_text(&providers, None, &p).unwrap();
    let want = answers(&held);
    let err = index::clear(cache.path()).unwrap_err();
    assert!(
        err.to_string().contains("another program has it open"),
        "{err}"
    );
    assert_eq!(answers(&held), want);
    drop(held);
    assert!(!index::clear(cache.path()).unwrap().is_empty());
}

/// A copy of a Claude fixture store and a cache of it, listed (both removed when dropped).
struct Listed {
    store: tempfile::TempDir,
    cache: tempfile::TempDir,
    providers: ProviderSet,
    index: Index,
}

fn listed_claude_copy() -> Listed {
    let store = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let roots = common::roots(ProviderKind::Claude, store.path());
    let providers = ProviderSet::new(&roots, &[]);
    let cache = tempfile::tempdir().unwrap();
    let mut index = Index::open(cache.path(), &roots).unwrap();
    index.refresh(&providers, &ScanProgress::default()).unwrap();
    Listed {
        store,
        cache,
        providers,
        index,
    }
}

/// Each shard is an FTS5 table of its own, with its own row count and mean row length (the
/// cache file also holds every title, short rows): scored with its own, the same message
/// ranked differently by the shard its session fell in. The same transcript in two files, one
/// in each shard, gets the same score for each message.
#[test]
fn the_same_message_scores_the_same_in_either_shard() {
    let Listed {
        store: _store,
        cache: _cache,
        providers,
        mut index,
    } = listed_claude_copy();
    let p = ScanProgress::default();
    let path = index.path().to_path_buf();
    let rowid = |file: &Path| -> i64 {
        rusqlite::Connection::open(&path)
            .unwrap()
            .query_row(
                "SELECT rowid FROM sessions WHERE source_path = ?1",
                [file.to_string_lossy()],
                |r| r.get(0),
            )
            .unwrap()
    };
    let original = index.sessions(&[]).unwrap()[0].source_path.clone();
    // Copies beside it until one falls in the other shard (rowids are handed out in turn).
    let mut copy = PathBuf::new();
    for n in 1..=2 {
        copy = original.with_file_name(format!("00000000-0000-4000-8000-00000000000{n}.jsonl"));
        std::fs::copy(&original, &copy).unwrap();
        index.refresh(&providers, &p).unwrap();
        if rowid(&copy) % 2 != rowid(&original) % 2 {
            break;
        }
    }
    assert_ne!(rowid(&copy) % 2, rowid(&original) % 2);
    index.index_text(&providers, None, &p).unwrap();

    let mut pairs = 0;
    for word in ["the", "file", "hello", "error OR tool"] {
        let hits = index.search(word, &filter(1000)).unwrap();
        let of = |file: &Path| -> Vec<(String, f64)> {
            let mine = hits.iter().filter(|h| h.source_path == file);
            mine.map(|h| (h.message_id.clone(), h.score)).collect()
        };
        let (a, b) = (of(&original), of(&copy));
        for (message, score) in &a {
            let other = b.iter().find(|(m, _)| m == message);
            let (_, other) = other.unwrap_or_else(|| panic!("{word}: {message} in one copy only"));
            assert!(
                (score - other).abs() < 1e-9,
                "{word}: {message} scores {score} and {other}"
            );
            pairs += 1;
        }
    }
    assert!(pairs >= 3, "messages found in both copies: {pairs}");
}

/// Holds `file`'s write lock from another connection (another process's text writer) until
/// the returned sender is dropped or sent to.
fn hold_write_lock(file: &Path) -> std::sync::mpsc::Sender<()> {
    let (release, released) = std::sync::mpsc::channel::<()>();
    let (locked, is_locked) = std::sync::mpsc::channel();
    let file = file.to_path_buf();
    std::thread::spawn(move || {
        let conn = rusqlite::Connection::open(&file).unwrap();
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        locked.send(()).unwrap();
        let _ = released.recv_timeout(std::time::Duration::from_secs(30));
        conn.execute_batch("COMMIT").unwrap();
    });
    is_locked.recv().unwrap();
    release
}

/// Another process indexing holds one file or the other most of the time: opening a cache in
/// use takes no write lock, and the list's writes lock the cache file alone, so a list beside
/// the shard's writer neither waits for it nor fails "busy" (the lock below is held past the
/// 5 s busy timeout: a write that needed it would fail).
#[test]
fn the_list_neither_opens_nor_writes_through_the_shards_lock() {
    let store = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let roots = common::roots(ProviderKind::Claude, store.path());
    let providers = ProviderSet::new(&roots, &[]);
    let p = ScanProgress::default();
    let cache = tempfile::tempdir().unwrap();
    let path = indexed(cache.path(), &roots).path().to_path_buf();
    let shard = index::cache_files(&path).pop().unwrap();

    let release = hold_write_lock(&shard);
    let start = std::time::Instant::now();
    let mut index = Index::open(cache.path(), &roots).unwrap();
    // Changes to commit: every session grew (whichever shard holds its text).
    let sessions = index.sessions(&[]).unwrap();
    for meta in &sessions {
        common::append_line(
            &meta.source_path,
            r#"{"type":"user","uuid":"u-grown","timestamp":"2026-12-01T00:00:00Z","message":{"role":"user","content":"grown"}}"#,
        );
    }
    let report = index.refresh(&providers, &p);
    let waited = start.elapsed();
    drop(release);
    assert_eq!(report.unwrap().changed, sessions.len());
    assert!(
        waited < std::time::Duration::from_secs(4),
        "the list waited {waited:?} for the shard's writer"
    );
}

/// One number a query over a cache file answers.
fn number(file: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(file).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// How many segments FTS5's index in a cache file has: a segment's pages are rows of
/// `fts_data` whose rowid holds the segment's number from bit 37 up (FTS5's `fts5_dri`).
fn segments(file: &Path) -> i64 {
    let sql = "SELECT count(DISTINCT id >> 37) FROM fts_data WHERE id >> 37 > 0";
    number(file, sql)
}

/// The text a cache file had written since its segments were last merged.
fn unmerged(file: &Path) -> i64 {
    number(file, "SELECT coalesce(sum(unmerged), 0) FROM shard_state")
}

/// Sessions of shard `k` whose text is pending (the session with rowid `r` is in shard `r % 2`).
fn pending_in(cache_file: &Path, k: i64) -> i64 {
    rusqlite::Connection::open(cache_file)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM sessions WHERE text_indexed = 0 AND rowid % 2 = ?1",
            [k],
            |r| r.get(0),
        )
        .unwrap()
}

/// One step of no time left (the app's worker steps by time: `service::INDEX_STEP`).
fn step(index: &mut Index, providers: &ProviderSet) -> usize {
    index
        .index_text_within(
            providers,
            Some(1000),
            Some(Duration::ZERO),
            &ScanProgress::default(),
        )
        .unwrap()
}

/// A cache in `dir` of the three fixtures, listed, with its first step taken.
fn stepped_once(dir: &Path, providers: &ProviderSet) -> Index {
    let mut index = Index::open(dir, &common::three_fixtures()).unwrap();
    index.refresh(providers, &ScanProgress::default()).unwrap();
    step(&mut index, providers);
    index
}

/// The app's worker indexes in steps of about a second (`service::INDEX_STEP`). A step with
/// no time left still writes a session of each shard, and the steps end where one pass ends.
#[test]
fn steps_of_no_time_progress_and_end_with_what_one_pass_makes() {
    let roots = common::three_fixtures();
    let providers = ProviderSet::new(&roots, &[]);
    let cache = tempfile::tempdir().unwrap();
    let mut index = Index::open(cache.path(), &roots).unwrap();
    index.refresh(&providers, &ScanProgress::default()).unwrap();
    let total = index.pending_text().unwrap();
    let mut steps = 0;
    while index.pending_text().unwrap() > 0 {
        let done = step(&mut index, &providers);
        assert!((1..=2).contains(&done), "one session per shard: {done}");
        steps += 1;
    }
    assert!(steps >= total / 2, "{steps} steps for {total} sessions");
    let whole = tempfile::tempdir().unwrap();
    let whole = indexed(whole.path(), &roots);
    // Two caches may number sessions of equal times in another order, which orders their
    // equally scored hits; the hits and their scores are the same.
    let by_score = |index: &Index| -> Vec<Vec<_>> {
        let tied = |h: &index::Hit| (-h.score, h.session_id.clone(), h.message_id.clone());
        let sorted = |mut hits: Vec<index::Hit>| {
            hits.sort_by(|a, b| tied(a).partial_cmp(&tied(b)).unwrap());
            hits
        };
        answers(index).into_iter().map(sorted).collect()
    };
    assert_eq!(by_score(&index), by_score(&whole));
}

/// Merging a shard's segments rewrites its whole index, so it waits until nothing is pending
/// and enough text was written since they last were merged (by one pass or many steps): not
/// after every step of a cold start, nor after a live session's new message.
#[test]
fn segments_are_merged_once_the_queue_empties_and_enough_was_written() {
    let Listed {
        store,
        cache: _cache,
        providers,
        mut index,
    } = listed_claude_copy();
    let p = ScanProgress::default();
    let files = index::cache_files(index.path());
    assert_eq!(step(&mut index, &providers), 2);
    // As if earlier steps had written much (the fixture's text is far from the threshold).
    for file in &files {
        let seeded = rusqlite::Connection::open(file)
            .unwrap()
            .execute("UPDATE shard_state SET unmerged = unmerged + (1 << 30)", [])
            .unwrap();
        assert_eq!(seeded, 1, "{}", file.display());
    }
    while index.pending_text().unwrap() > 1 {
        step(&mut index, &providers);
        // A shard with sessions still pending is not merged (FTS5's own automerge may have
        // merged these few small segments meanwhile, so the count says nothing here).
        for (k, file) in files.iter().enumerate() {
            if pending_in(index.path(), k as i64) > 0 {
                assert!(unmerged(file) >= 1 << 30, "merged before its queue emptied");
            }
        }
    }
    // The last session: each shard is merged once its own queue is empty.
    assert_eq!(step(&mut index, &providers), 1);
    for file in &files {
        assert_eq!(segments(file), 1, "{}", file.display());
        assert_eq!(unmerged(file), 0, "{}", file.display());
    }

    let id = "289ec80f-2fef-473d-9b5b-54a4657fd742";
    common::append_line(
        &store
            .path()
            .join(format!("projects/-home-bob-projects-demo/{id}.jsonl")),
        &format!(
            r#"{{"type":"user","uuid":"u-new","sessionId":"{id}","timestamp":"2026-12-01T00:00:00Z","message":{{"role":"user","content":"please book a trip to Zanzibar"}}}}"#
        ),
    );
    index.refresh(&providers, &p).unwrap();
    assert_eq!(step(&mut index, &providers), 1);
    let grown: Vec<_> = files
        .iter()
        .map(|f| (segments(f), unmerged(f) > 0))
        .collect();
    assert!(
        grown.contains(&(2, true)),
        "the new message's segment stays: {grown:?}"
    );
    assert_eq!(index.search("zanzibar", &filter(5)).unwrap().len(), 1);
}

/// The terms of a cache file: those listed for spelling prefixes out, and those of its index
/// (FTS5's own vocabulary), with whether the file says terms are missing.
fn terms_of(file: &Path) -> (Vec<String>, Vec<String>, bool) {
    let conn = rusqlite::Connection::open(file).unwrap();
    conn.execute_batch("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, fts, row);")
        .unwrap();
    let column = |sql: &str| -> Vec<String> {
        let mut stmt = conn.prepare(sql).unwrap();
        let rows = stmt.query_map([], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    let missing = conn
        .query_row("SELECT max(terms_missing) FROM shard_state", [], |r| {
            r.get(0)
        })
        .unwrap();
    (
        column("SELECT term FROM terms ORDER BY term"),
        column("SELECT term FROM temp.v ORDER BY term"),
        missing,
    )
}

/// A cold start writes the text without looking each token up for `terms`: while its queue
/// lasts a file says its terms are missing (a prefix is then spelled out from FTS5's
/// vocabulary too: `search_unindexed.rs` checks those answers), and once it is done every term
/// of the index is listed, exactly.
#[test]
fn a_cold_start_lists_the_terms_of_its_index_once_its_queue_is_done() {
    let providers = ProviderSet::new(&common::three_fixtures(), &[]);
    let cache = tempfile::tempdir().unwrap();
    let mut index = stepped_once(cache.path(), &providers);
    let files = index::cache_files(index.path());
    for file in &files {
        let (_, _, missing) = terms_of(file);
        assert!(missing, "{}", file.display());
    }
    while index.pending_text().unwrap() > 0 {
        step(&mut index, &providers);
    }
    for file in &files {
        let (listed, of_index, missing) = terms_of(file);
        assert!(!missing, "{}", file.display());
        assert!(of_index.len() > 100, "{}", of_index.len());
        assert_eq!(listed, of_index, "{}", file.display());
    }
}

/// A queue that empties without a last step (its pending sessions removed, as a trash or a
/// store's deletion removes them) still settles what its steps owe, at the next call.
#[test]
fn a_queue_emptied_by_removals_settles_at_the_next_call() {
    let providers = ProviderSet::new(&common::three_fixtures(), &[]);
    let cache = tempfile::tempdir().unwrap();
    let mut index = stepped_once(cache.path(), &providers);
    let pending: Vec<SessionKey> = {
        let conn = rusqlite::Connection::open(index.path()).unwrap();
        let mut stmt = conn
            .prepare("SELECT provider, id, source_path FROM sessions WHERE text_indexed = 0")
            .unwrap();
        let rows = stmt.query_map([], |r| {
            let provider: String = r.get(0)?;
            Ok(SessionKey {
                provider: ProviderKind::parse(&provider).unwrap(),
                id: r.get(1)?,
                source_path: PathBuf::from(r.get::<_, String>(2)?),
            })
        });
        rows.unwrap().map(Result::unwrap).collect()
    };
    assert!(pending.len() > 2, "{}", pending.len());
    index.forget(&pending).unwrap();
    assert_eq!(index.pending_text().unwrap(), 0);
    let files = index::cache_files(index.path());
    assert!(
        files.iter().any(|f| terms_of(f).2),
        "the step left terms to list"
    );
    let p = ScanProgress::default();
    assert_eq!(index.index_text(&providers, None, &p).unwrap(), 0);
    for file in &files {
        let (listed, of_index, missing) = terms_of(file);
        assert!(!missing, "{}", file.display());
        assert!(of_index.iter().all(|t| listed.binary_search(t).is_ok()));
    }
}
