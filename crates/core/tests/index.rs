//! The cache: it lists exactly what a direct scan lists, follows appends and deletions, keeps
//! its text index in step, searches with the syntax users type, and stays private.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use agent_sessions_core::index::{self, Index, SearchFilter};
use agent_sessions_core::{
    Catalog, Error, Library, ProviderKind, ProviderSet, Roots, ScanProgress,
};

fn all_roots(claude: &Path, codex: &Path, opencode: &Path) -> Roots {
    Roots::default()
        .with(ProviderKind::Claude, [claude])
        .with(ProviderKind::Codex, [codex])
        .with(ProviderKind::Opencode, [opencode])
}

fn filter(limit: usize) -> SearchFilter {
    SearchFilter {
        limit,
        ..SearchFilter::default()
    }
}

#[test]
fn the_cache_lists_what_a_direct_scan_lists() {
    let cache = tempfile::tempdir().unwrap();
    let roots = common::three_fixtures();
    let direct = Catalog::new(&roots, &[])
        .scan(&ScanProgress::default())
        .unwrap();
    let mut lib = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
    assert!(lib.warnings().is_empty(), "{:?}", lib.warnings());
    let cold = lib.sessions(&ScanProgress::default()).unwrap();
    let warm = lib.sessions(&ScanProgress::default()).unwrap();
    assert_eq!(cold.sessions, direct.sessions);
    assert_eq!(warm.sessions, direct.sessions);
    assert_eq!(cold.sessions.len(), 27 + 6 + 7);
}

#[test]
fn appends_and_deletions_reach_the_list_and_the_text_index() {
    let cache = tempfile::tempdir().unwrap();
    let store = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let roots = common::roots(ProviderKind::Claude, store.path());
    let providers = ProviderSet::new(&roots, &[]);
    let mut index = Index::open(cache.path(), &roots).unwrap();
    let p = ScanProgress::default();
    assert_eq!(index.refresh(&providers, &p).unwrap().changed, 7);
    assert_eq!(
        index.refresh(&providers, &p).unwrap(),
        index::RefreshReport::default()
    );
    assert_eq!(index.pending_text().unwrap(), 7);
    // In batches, as the app indexes.
    assert_eq!(index.index_text(&providers, Some(2), &p).unwrap(), 2);
    assert_eq!(index.pending_text().unwrap(), 5);
    assert_eq!(index.index_text(&providers, None, &p).unwrap(), 5);
    assert!(index.search("zanzibar", &filter(5)).unwrap().is_empty());

    let file = store
        .path()
        .join("projects/-home-bob-projects-demo/289ec80f-2fef-473d-9b5b-54a4657fd742.jsonl");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    writeln!(f, r#"{{"type":"user","uuid":"u-new","sessionId":"289ec80f-2fef-473d-9b5b-54a4657fd742","timestamp":"2026-12-01T00:00:00Z","message":{{"role":"user","content":"please book a trip to Zanzibar"}}}}"#).unwrap();
    drop(f);
    assert_eq!(index.refresh(&providers, &p).unwrap().changed, 1);
    assert_eq!(index.index_text(&providers, None, &p).unwrap(), 1);
    let hits = index.search("zanzibar", &filter(5)).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].session_id, "289ec80f-2fef-473d-9b5b-54a4657fd742");
    assert_eq!(
        hits[0].message_id, "u-new",
        "a hit names the message to open"
    );
    assert!(
        hits[0].snippet.contains("«Zanzibar»"),
        "{}",
        hits[0].snippet
    );

    std::fs::remove_file(&file).unwrap();
    assert_eq!(index.refresh(&providers, &p).unwrap().removed, 1);
    assert!(index.search("zanzibar", &filter(5)).unwrap().is_empty());
    assert_eq!(index.sessions(&[]).unwrap().len(), 6);
}

#[test]
fn search_syntax_and_filters() {
    let cache = tempfile::tempdir().unwrap();
    let roots = all_roots(
        &common::fixture(ProviderKind::Claude, "2.1.332"),
        &common::fixture(ProviderKind::Codex, "0.171.0"),
        &common::fixture(ProviderKind::Opencode, "1.18.33"),
    );
    let mut lib = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
    let p = ScanProgress::default();
    let search = |lib: &mut Library, q: &str, f: &SearchFilter| lib.search(q, f, &p).unwrap().hits;

    // Tool commands and their output are searchable.
    let hits = search(&mut lib, "hello-from-tool", &filter(50));
    let providers: std::collections::BTreeSet<_> = hits.iter().map(|h| h.provider).collect();
    assert_eq!(providers.len(), 3, "{hits:?}");
    // A phrase matches words in order only.
    assert!(!search(&mut lib, r#""main.py prints""#, &filter(5)).is_empty());
    assert!(search(&mut lib, r#""prints main.py""#, &filter(5)).is_empty());
    // Prefixes.
    assert!(!search(&mut lib, "compac*", &filter(5)).is_empty());
    // Titles are searchable, and renames too.
    let hits = search(&mut lib, "my-demo-session", &filter(5));
    assert_eq!(hits[0].session_id, "ceefe47d-84be-4483-8ce5-5f829cfd22c9");
    assert_eq!(hits[0].message_id, "");
    // Filters.
    let only_codex = SearchFilter {
        providers: vec![ProviderKind::Codex],
        ..filter(50)
    };
    assert!(search(&mut lib, "hello-from-tool", &only_codex)
        .iter()
        .all(|h| h.provider == ProviderKind::Codex));
    let elsewhere = SearchFilter {
        dir: Some("/somewhere/else".into()),
        ..filter(50)
    };
    assert!(search(&mut lib, "hello-from-tool", &elsewhere).is_empty());
    let bob = SearchFilter {
        dir: Some("/home/bob".into()),
        ..filter(50)
    };
    let hits = search(&mut lib, "hello-from-tool", &bob);
    assert!(!hits.is_empty() && hits.iter().all(|h| h.provider == ProviderKind::Claude));
    let future = SearchFilter {
        since_ms: Some(4_000_000_000_000),
        ..filter(50)
    };
    assert!(search(&mut lib, "hello-from-tool", &future).is_empty());
    // Operators users did not mean are text, and bad syntax is a clear error.
    assert!(lib.search("NEAR(main", &filter(5), &p).is_ok());
    match lib.search(r#""unclosed"#, &filter(5), &p) {
        Err(Error::BadQuery(m)) => assert!(m.contains("not closed")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_cache_file_is_private_and_keyed_by_version_and_roots() {
    let cache = tempfile::tempdir().unwrap();
    let a = common::roots(
        ProviderKind::Claude,
        &common::fixture(ProviderKind::Claude, "2.1.9"),
    );
    let b = common::roots(
        ProviderKind::Claude,
        &common::fixture(ProviderKind::Claude, "2.0.50"),
    );
    let other_version = cache.path().join("index-v0-0000000000000000.db");
    std::fs::write(&other_version, b"an older cache").unwrap();
    let ia = Index::open(cache.path(), &a).unwrap();
    let ib = Index::open(cache.path(), &b).unwrap();
    assert_ne!(ia.path(), ib.path());
    let name = ia
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        name.starts_with(&format!("index-v{}-", index::SCHEMA_VERSION)) && name.ends_with(".db"),
        "{name}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(ia.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    // A new cache has 32 KB pages (set before WAL mode fixes the size; docs/performance.md),
    // its shards' files too, and they are private like it.
    let files = index::cache_files(ia.path());
    assert!(files.len() >= 2, "the text is split over files: {files:?}");
    for file in &files {
        let page_size: i64 = rusqlite::Connection::open(file)
            .unwrap()
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap();
        assert_eq!(page_size, 32768, "{}", file.display());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(file).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", file.display());
        }
    }
    assert_eq!(
        std::fs::read(&other_version).unwrap(),
        b"an older cache",
        "never touched"
    );
    drop((ia, ib));
    let removed = index::clear(cache.path()).unwrap();
    assert!(removed.len() >= 3);
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
}

#[test]
fn an_unusable_cache_costs_speed_not_the_list() {
    let blocked = tempfile::tempdir().unwrap();
    let file_not_dir = blocked.path().join("cache");
    std::fs::write(&file_not_dir, b"x").unwrap();
    let roots = common::roots(
        ProviderKind::Claude,
        &common::fixture(ProviderKind::Claude, "2.1.9"),
    );
    let mut lib = Library::open(&roots, &[], Some(file_not_dir));
    assert_eq!(lib.warnings().len(), 1);
    assert_eq!(
        lib.sessions(&ScanProgress::default())
            .unwrap()
            .sessions
            .len(),
        7
    );
}

/// A second writer waits for the first (busy timeout) instead of failing at once with
/// "database is locked": text indexing reads before it writes, and a read transaction that
/// upgrades to a write skips SQLite's busy handler unless the transaction began IMMEDIATE.
#[test]
fn a_writer_waits_for_another_process_writing_the_cache() {
    let cache = tempfile::tempdir().unwrap();
    let roots = common::roots(
        ProviderKind::Claude,
        &common::fixture(ProviderKind::Claude, "2.1.9"),
    );
    let providers = ProviderSet::new(&roots, &[]);
    let p = ScanProgress::default();
    let mut index = Index::open(cache.path(), &roots).unwrap();
    index.refresh(&providers, &p).unwrap();
    assert_eq!(index.pending_text().unwrap(), 7);

    let other = rusqlite::Connection::open(index.path()).unwrap();
    let (locked, go) = std::sync::mpsc::channel();
    let holder = std::thread::spawn(move || {
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        other
            .execute("UPDATE provider_state SET problems = problems", [])
            .unwrap();
        locked.send(()).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        other.execute_batch("COMMIT").unwrap();
    });
    go.recv().unwrap();
    let indexed = index.index_text(&providers, None, &p);
    holder.join().unwrap();
    assert_eq!(indexed.unwrap(), 7);
    assert!(!index.search("hello", &filter(5)).unwrap().is_empty());
}

#[test]
fn several_processes_filling_one_new_cache_at_once_all_succeed() {
    let cache = tempfile::tempdir().unwrap();
    let roots = all_roots(
        &common::fixture(ProviderKind::Claude, "2.1.332"),
        &common::fixture(ProviderKind::Codex, "0.171.0"),
        &common::fixture(ProviderKind::Opencode, "1.18.33"),
    );
    let start = std::sync::Barrier::new(4);
    let results: Vec<Result<usize, Error>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    start.wait();
                    let mut lib = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
                    assert!(lib.warnings().is_empty(), "{:?}", lib.warnings());
                    let p = ScanProgress::default();
                    lib.index_text(&p)?;
                    let hits = lib.search("hello-from-tool", &filter(50), &p)?.hits;
                    Ok(hits.len())
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    for r in &results {
        assert!(matches!(r, Ok(n) if *n > 0), "{results:?}");
    }
}

/// Overwrites the middle third of a file, leaving its header (and first page) intact.
fn damage_middle(file: &Path) {
    let mut bytes = std::fs::read(file).unwrap();
    let len = bytes.len();
    assert!(len > 3 * 4096, "a cache of a few pages at least: {len}");
    for b in &mut bytes[len / 3..2 * len / 3] {
        *b = 0xa5;
    }
    std::fs::write(file, bytes).unwrap();
}

#[test]
fn a_damaged_cache_is_rebuilt_and_lists_what_a_direct_scan_lists() {
    let roots = common::three_fixtures();
    let direct = Catalog::new(&roots, &[])
        .scan(&ScanProgress::default())
        .unwrap();
    let p = ScanProgress::default();
    for damage in ["middle pages", "header", "a shard's file"] {
        let cache = tempfile::tempdir().unwrap();
        let path = {
            let mut lib = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
            lib.refresh(&p).unwrap();
            lib.index_text(&p).unwrap();
            lib.index().unwrap().path().to_path_buf()
        };
        // Closed: the WAL is checkpointed into the file and removed.
        assert!(!PathBuf::from(format!("{}-wal", path.display())).exists());
        let shard = index::cache_files(&path).pop().unwrap();
        assert_ne!(shard, path);
        match damage {
            "middle pages" => damage_middle(&path),
            "header" => std::fs::write(&path, vec![0x5a; 64 << 10]).unwrap(),
            _ => std::fs::write(&shard, vec![0x5a; 64 << 10]).unwrap(),
        }
        let mut lib = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
        let listed = lib.sessions(&p).unwrap();
        assert_eq!(listed.sessions, direct.sessions, "{damage}");
        let warned = lib.warnings().iter().any(|w| w.contains("rebuilt"));
        assert!(warned, "{damage}: {:?}", lib.warnings());
        assert!(
            !lib.search("hello-from-tool", &filter(5), &p)
                .unwrap()
                .hits
                .is_empty(),
            "{damage}: found after the rebuild"
        );
        // Rebuilt in place: the next process finds a sound cache.
        let mut again = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
        assert_eq!(again.sessions(&p).unwrap().sessions, direct.sessions);
        assert!(again.warnings().is_empty(), "{:?}", again.warnings());
    }
}

#[test]
fn an_unwritable_cache_location_is_named_with_what_to_do() {
    let blocked = tempfile::tempdir().unwrap();
    let file = blocked.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    // A cache directory below a regular file cannot be created, even by root.
    let dir = file.join("cache");
    let roots = common::roots(
        ProviderKind::Claude,
        &common::fixture(ProviderKind::Claude, "2.1.9"),
    );
    let mut lib = Library::open(&roots, &[], Some(dir.clone()));
    let expected = format!("cannot write the cache at {}", dir.display());
    assert_eq!(lib.warnings().len(), 1);
    assert!(
        lib.warnings()[0].contains(&expected),
        "{:?}",
        lib.warnings()
    );
    assert!(lib.warnings()[0].contains("AGENT_SESSIONS_CACHE_DIR"));
    let e = lib
        .search("x", &filter(5), &ScanProgress::default())
        .unwrap_err();
    assert!(e.to_string().contains(&expected), "{e}");
    assert!(!e.to_string().contains("cannot read"), "{e}");

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let read_only = blocked.path().join("read-only");
        std::fs::create_dir(&read_only).unwrap();
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o500)).unwrap();
        // Root ignores permission bits: only check where they bind.
        let binds = std::fs::write(read_only.join("probe"), b"").is_err();
        if binds {
            let lib = Library::open(&roots, &[], Some(read_only.clone()));
            let path = index::index_path(&read_only, &roots);
            let expected = format!("cannot write the cache at {}", path.display());
            assert!(
                lib.warnings()[0].contains(&expected),
                "{:?}",
                lib.warnings()
            );
        }
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
}

#[cfg(unix)]
#[test]
fn a_new_cache_directory_is_private_and_so_are_the_side_files() {
    use std::os::unix::fs::PermissionsExt;
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("new/agent-sessions");
    let roots = common::roots(
        ProviderKind::Claude,
        &common::fixture(ProviderKind::Claude, "2.1.9"),
    );
    let mut index = Index::open(&dir, &roots).unwrap();
    index
        .refresh(&ProviderSet::new(&roots, &[]), &ScanProgress::default())
        .unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    for path in index::cache_files(index.path()) {
        for suffix in ["", "-wal", "-shm"] {
            let file = PathBuf::from(format!("{}{suffix}", path.display()));
            assert_eq!(mode(&file), 0o600, "{}", file.display());
        }
    }
}

#[test]
fn a_query_of_thousands_of_terms_is_refused_with_the_limit() {
    let cache = tempfile::tempdir().unwrap();
    let roots = common::roots(
        ProviderKind::Claude,
        &common::fixture(ProviderKind::Claude, "2.1.9"),
    );
    let mut lib = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
    let p = ScanProgress::default();
    let terms: Vec<String> = (0..10_000).map(|i| format!("t{i}*")).collect();
    // One term over the cap, well under the length bound: the term cap answers.
    match lib.search(&terms[..index::MAX_TERMS + 1].join(" "), &filter(5), &p) {
        Err(Error::BadQuery(m)) => {
            assert!(m.contains(&format!("at most {}", index::MAX_TERMS)), "{m}")
        }
        other => panic!("{other:?}"),
    }
    // All 10,000 (69 KB): refused before any parsing by the length bound.
    match lib.search(&terms.join(" "), &filter(5), &p) {
        Err(Error::BadQuery(m)) => assert!(
            m.contains(&format!("at most {}", index::MAX_QUERY_CHARS)),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
    let at_cap = terms[..index::MAX_TERMS].join(" OR ");
    assert!(lib.search(&at_cap, &filter(5), &p).is_ok());
}

/// The message rows of each shard's file: (session rowid, row key) pairs.
fn shard_rows(file: &Path) -> Vec<(i64, String)> {
    let conn = rusqlite::Connection::open(file).unwrap();
    let mut stmt = conn
        .prepare("SELECT session, message_id FROM indexed_messages ORDER BY 1, 2")
        .unwrap();
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

/// Every search of these words, as (session, message) sets, to compare two caches by.
fn answers(index: &Index, words: &[&str]) -> Vec<Vec<(String, String)>> {
    words
        .iter()
        .map(|w| {
            let mut found: Vec<_> = index
                .search(w, &filter(1000))
                .unwrap()
                .into_iter()
                .map(|h| (h.session_id, h.message_id))
                .collect();
            found.sort();
            found
        })
        .collect()
}

const WORDS: &[&str] = &[
    "hello",
    "the",
    "file",
    "read*",
    "\"hello world\"",
    "error OR tool",
];

/// The text is split over several files by session: every file gets some, a session's
/// messages are all in one, and a search finds in all of them what one file found before
/// (the answers equal those of sessions read directly, `search_unindexed.rs`).
#[test]
fn the_text_is_split_over_the_shards_and_searched_in_all() {
    let roots = common::three_fixtures();
    let providers = ProviderSet::new(&roots, &[]);
    let p = ScanProgress::default();
    let cache = tempfile::tempdir().unwrap();
    let (index, written) = common::indexed(cache.path(), &roots);
    assert_eq!(written, 40);
    assert_eq!(index.pending_text().unwrap(), 0);
    let files = index::cache_files(index.path());
    let mut owner = std::collections::HashMap::new();
    for (k, file) in files.iter().enumerate() {
        let rows = shard_rows(file);
        let messages: Vec<_> = rows.iter().filter(|(_, key)| !key.is_empty()).collect();
        assert!(
            messages.len() > 20,
            "shard {k} holds messages: {}",
            messages.len()
        );
        for (session, _) in messages {
            assert_eq!(
                *owner.entry(*session).or_insert(k),
                k,
                "one shard per session"
            );
        }
    }
    // Every answer found once, whatever shard holds it: the same as a search that reads every
    // session directly finds (a cache with nothing indexed).
    let unindexed_dir = tempfile::tempdir().unwrap();
    let mut unindexed = Index::open(unindexed_dir.path(), &roots).unwrap();
    unindexed.refresh(&providers, &p).unwrap();
    let all = answers(&index, WORDS);
    assert!(all.iter().all(|a| !a.is_empty()), "{all:?}");
    for (word, found) in WORDS.iter().zip(&all) {
        let mut unique = found.clone();
        unique.dedup();
        assert_eq!(&unique, found, "{word}: a hit twice");
        let direct = unindexed
            .search_all(word, &filter(1000), &providers)
            .unwrap();
        assert_eq!(direct.read_directly, 40);
        let mut read: Vec<_> = direct
            .hits
            .into_iter()
            .map(|h| (h.session_id, h.message_id))
            .collect();
        read.sort();
        assert_eq!(&read, found, "{word}");
    }
}

/// The files of one cache belong together: a shard's file deleted by hand gets its sessions
/// indexed again; a cache file deleted by hand takes its shards' rows with it (they name
/// sessions by rowid, and the new file's rowids are other sessions').
#[test]
fn a_cache_file_or_a_shard_lost_by_hand_is_filled_again() {
    let roots = common::three_fixtures();
    let providers = ProviderSet::new(&roots, &[]);
    let p = ScanProgress::default();
    let cache = tempfile::tempdir().unwrap();
    let (path, want) = {
        let (index, _) = common::indexed(cache.path(), &roots);
        (index.path().to_path_buf(), answers(&index, WORDS))
    };
    let remove = |file: &Path| {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
        }
    };
    let shard = index::cache_files(&path).pop().unwrap();
    remove(&shard);
    let mut index = Index::open(cache.path(), &roots).unwrap();
    assert!(
        index.pending_text().unwrap() > 5,
        "the lost shard's sessions are pending"
    );
    assert!(
        answers(&index, WORDS) != want,
        "the lost shard's hits are gone"
    );
    index.index_text(&providers, None, &p).unwrap();
    assert_eq!(answers(&index, WORDS), want);
    drop(index);

    remove(&path);
    let mut index = Index::open(cache.path(), &roots).unwrap();
    assert!(shard_rows(&shard).is_empty(), "the old shard is emptied");
    assert!(answers(&index, WORDS).iter().all(Vec::is_empty));
    index.refresh(&providers, &p).unwrap();
    index.index_text(&providers, None, &p).unwrap();
    assert_eq!(answers(&index, WORDS), want);
}

/// A deleted session's rows go from every file (a shard's before the cache file's, so a kill
/// between leaves it listed and pending, never listed as indexed without its text).
#[test]
fn deleted_sessions_leave_no_rows_in_any_shard() {
    let store = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let roots = common::roots(ProviderKind::Claude, store.path());
    let providers = ProviderSet::new(&roots, &[]);
    let p = ScanProgress::default();
    let cache = tempfile::tempdir().unwrap();
    let (mut index, _) = common::indexed(cache.path(), &roots);
    let files = index::cache_files(index.path());
    assert!(files.iter().all(|f| !shard_rows(f).is_empty()));
    let sessions = index.sessions(&[]).unwrap();
    let gone = &sessions[..3];
    for meta in gone {
        std::fs::remove_file(&meta.source_path).unwrap();
    }
    assert_eq!(index.refresh(&providers, &p).unwrap().removed, 3);
    let left: std::collections::BTreeSet<i64> = files
        .iter()
        .flat_map(|f| shard_rows(f))
        .map(|(session, _)| session)
        .collect();
    assert_eq!(left.len(), sessions.len() - 3, "{left:?}");
    let keys: Vec<_> = index
        .sessions(&[])
        .unwrap()
        .iter()
        .map(agent_sessions_core::provider::SessionKey::of)
        .collect();
    index.forget(&keys).unwrap();
    assert!(files.iter().all(|f| shard_rows(f).is_empty()));
    assert!(answers(&index, WORDS).iter().all(Vec::is_empty));
}

/// A session's text reaches its writer in chunks of a few MB (so a session of any size is
/// indexed in bounded memory), all in one transaction: every message of every chunk has its
/// row, and an append rewrites only the new message's.
#[test]
fn a_session_of_several_chunks_is_indexed_whole_and_an_append_rewrites_only_its_message() {
    let store = tempfile::tempdir().unwrap();
    let dir = store.path().join("projects/-work-big");
    std::fs::create_dir_all(&dir).unwrap();
    let id = "00000000-0000-4000-8000-00000000c4c4";
    let file = dir.join(format!("{id}.jsonl"));
    let line = |i: usize| {
        // About 1 MB of text a message: twelve make three chunks.
        let words = format!("filler{} ", i % 7).repeat(120_000);
        format!(
            r#"{{"type":"user","uuid":"u{i}","sessionId":"{id}","cwd":"/work/big","timestamp":"2026-11-30T10:00:{i:02}.000Z","message":{{"role":"user","content":"marker{i} {words}"}}}}"#
        )
    };
    let lines: Vec<String> = (0..12).map(line).collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let roots = common::roots(ProviderKind::Claude, store.path());
    let cache = tempfile::tempdir().unwrap();
    let (mut index, written) = common::indexed(cache.path(), &roots);
    assert_eq!(written, 1);
    // The message rows of every file of the cache (the session's are in its shard's).
    let rows = |index: &Index| -> Vec<(String, i64)> {
        let mut out = Vec::new();
        for file in index::cache_files(index.path()) {
            let conn = rusqlite::Connection::open(file).unwrap();
            let sql = "SELECT message_id, fts_rowid FROM indexed_messages WHERE message_id != ''";
            let mut stmt = conn.prepare(sql).unwrap();
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
            out.extend(rows.map(Result::unwrap));
        }
        out
    };
    let before = rows(&index);
    assert_eq!(before.len(), 12, "{before:?}");
    for i in [0, 5, 11] {
        let hits = index.search(&format!("marker{i}"), &filter(5)).unwrap();
        // (The first prompt is the session's title too: a hit of its own, with no message.)
        let messages: Vec<_> = hits.iter().filter(|h| !h.message_id.is_empty()).collect();
        assert_eq!(messages.len(), 1, "marker{i}");
        assert_eq!(messages[0].message_id, format!("u{i}"));
    }

    common::append_line(&file, &line(12));
    let providers = ProviderSet::new(&roots, &[]);
    let p = ScanProgress::default();
    assert_eq!(index.refresh(&providers, &p).unwrap().changed, 1);
    assert_eq!(index.index_text(&providers, None, &p).unwrap(), 1);
    let after = rows(&index);
    assert_eq!(after.len(), 13);
    assert!(
        before.iter().all(|row| after.contains(row)),
        "old rows kept"
    );
    assert_eq!(index.search("marker12", &filter(5)).unwrap().len(), 1);
}

/// The app's cached library finds an Aider run in a directory only a restore remembered (no
/// root, no other agent's session there): the index looks in the directories recorded beside
/// it (`near`), at every refresh, and stops listing it once its history file is gone.
#[test]
fn the_cache_lists_runs_in_directories_a_restore_remembered() {
    let cache = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let history = project.path().join(".aider.chat.history.md");
    let run = "\n# aider chat started at 2026-01-02 10:00:00\n\n#### hello  \n\nhi there\n\n";
    std::fs::write(&history, run).unwrap();
    let roots = Roots::default();
    let mut lib = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
    let cwd = |lib: &mut Library| -> Vec<Option<String>> {
        let report = lib.sessions(&ScanProgress::default()).unwrap();
        report.sessions.into_iter().map(|s| s.cwd).collect()
    };
    assert!(cwd(&mut lib).is_empty());
    agent_sessions_core::near::remember(cache.path(), project.path(), &history).unwrap();
    let dir = project.path().to_string_lossy().into_owned();
    assert_eq!(cwd(&mut lib), [Some(dir)]);
    std::fs::remove_file(&history).unwrap();
    assert!(cwd(&mut lib).is_empty());
}

/// Issue 36: an idle app's cache connections give their page caches back, and a connection
/// that has read nothing since is not emptied again (the loop asks at every tick: each ask
/// that shrinks is followed by a `malloc_trim`).
#[test]
fn the_page_caches_are_emptied_once_per_read() {
    let cache = tempfile::tempdir().unwrap();
    let (index, written) = common::indexed(cache.path(), &common::three_fixtures());
    assert!(written > 0);
    let search = || index.search("the", &filter(50)).unwrap();
    assert!(!search().is_empty());
    let used = index.cache_used();
    assert!(index.shrink_caches(), "{used} bytes held after a search");
    let left = index.cache_used();
    assert!(left <= used / 4, "{left} of {used} bytes left");
    // Nothing read since: nothing to empty.
    assert!(!index.shrink_caches());
    assert!(!index.shrink_caches());
    assert!(!search().is_empty());
    assert!(index.cache_used() > left);
    assert!(index.shrink_caches());
    assert_eq!(index.cache_used(), left);
}
