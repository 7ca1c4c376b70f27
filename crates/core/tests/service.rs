//! The running service without any front end: its loop refreshes copies of fixture stores,
//! reports changes with the sessions they name, indexes text behind the list, starts over on
//! new roots, and stops.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

mod common;

use agent_sessions_core::index::SearchFilter;
use agent_sessions_core::provider::SessionKey;
use agent_sessions_core::service::{index_process, Changed, Event, IndexProcess, Service};
use agent_sessions_core::{Catalog, ProviderKind, Roots, ScanProgress};

/// Generous: the machine is shared, and a wait that passes returns as soon as it can.
const WAIT: Duration = Duration::from_secs(120);

const SESSION: &str = "289ec80f-2fef-473d-9b5b-54a4657fd742";

/// The next event `pick` accepts (skipping the others), or a failure naming what never came.
fn wait_for<T>(rx: &Receiver<Event>, what: &str, mut pick: impl FnMut(Event) -> Option<T>) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(event) => {
                if let Some(found) = pick(event) {
                    return found;
                }
            }
            Err(e) => panic!("{what}: none within {WAIT:?} ({e:?})"),
        }
    }
}

/// The first complete refresh on the current roots.
fn first_refresh(rx: &Receiver<Event>, what: &str) -> Changed {
    wait_for(rx, what, |e| match e {
        Event::Changed(c) if c.first && c.done => Some(c),
        _ => None,
    })
}

/// A running service on the Claude store at `store`, its first refresh and text indexing
/// done, and the events it sends from then on.
fn indexed_service(store: &Path, cache: &Path) -> (Service, Receiver<Event>) {
    let service = Service::new(
        common::roots(ProviderKind::Claude, store),
        Some(cache.to_path_buf()),
    );
    let rx = started(&service);
    first_refresh(&rx, "the first refresh");
    wait_for(&rx, "indexing to finish", |e| match e {
        Event::Indexing { pending: 0 } => Some(()),
        _ => None,
    });
    (service, rx)
}

/// (provider, id) of every session a direct scan of `roots` finds, without any cache.
fn scanned(roots: &Roots) -> BTreeSet<(ProviderKind, String)> {
    let report = Catalog::new(roots, &[])
        .scan(&ScanProgress::default())
        .unwrap();
    report
        .sessions
        .into_iter()
        .map(|s| (s.provider, s.id))
        .collect()
}

fn listed(service: &Service) -> BTreeSet<(ProviderKind, String)> {
    service
        .list()
        .unwrap()
        .sessions
        .into_iter()
        .map(|s| (s.provider, s.id))
        .collect()
}

fn append_user_line(file: &Path, uuid: &str, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    writeln!(f, r#"{{"type":"user","uuid":"{uuid}","sessionId":"{SESSION}","timestamp":"2026-12-01T00:00:00Z","message":{{"role":"user","content":"{text}"}}}}"#).unwrap();
}

/// The file of [`SESSION`] in a copy of the Claude 2.1.9 fixture.
fn session_file(store: &Path) -> std::path::PathBuf {
    store
        .join("projects/-home-bob-projects-demo")
        .join(format!("{SESSION}.jsonl"))
}

/// The sequence of the next complete refresh that changed something after `cursor`.
fn changed_after(rx: &Receiver<Event>, cursor: u64) -> u64 {
    wait_for(rx, "a change event after the append", |e| match e {
        Event::Changed(c) if c.done && c.changed > 0 && c.seq > cursor => Some(c.seq),
        _ => None,
    })
}

fn messages(service: &Service) -> usize {
    service
        .with_transcript(ProviderKind::Claude, SESSION, |t| t.messages.len())
        .unwrap()
}

#[test]
fn the_service_refreshes_reports_changes_indexes_switches_and_stops() {
    let claude = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let codex = common::fixture_copy(ProviderKind::Codex, "0.140.0");
    let cache = tempfile::tempdir().unwrap();
    let claude_roots = common::roots(ProviderKind::Claude, claude.path());
    let codex_roots = common::roots(ProviderKind::Codex, codex.path());

    let service = Service::new(claude_roots.clone(), Some(cache.path().to_path_buf()));
    let (tx, rx) = mpsc::channel();
    service.start(move |e| {
        let _ = tx.send(e);
    });

    // The first refresh lists the fixture's sessions, as a scan without the cache finds them.
    let first = first_refresh(&rx, "the first refresh");
    let expected = scanned(&claude_roots);
    assert!(expected.len() >= 6, "{expected:?}");
    assert_eq!(first.changed, expected.len());
    assert_eq!(listed(&service), expected);
    assert!(expected.contains(&(ProviderKind::Claude, SESSION.to_string())));
    let before = messages(&service);

    // An appended line: a change event whose sequence names that session.
    let file = session_file(claude.path());
    let cursor = service.seq();
    append_user_line(&file, "svc-new-1", "please check the quokkalantern");
    let seq = changed_after(&rx, cursor);
    let changes = service.changes_since(cursor);
    assert!(!changes.reset);
    assert_eq!(changes.seq, seq);
    let key = SessionKey {
        provider: ProviderKind::Claude,
        id: SESSION.into(),
        source_path: file.clone(),
    };
    assert_eq!(changes.changed, vec![key], "{changes:?}");
    assert!(changes.removed.is_empty());
    assert!(service.changes_since(seq).changed.is_empty());

    // The transcript cache reads the session again now that its file grew.
    assert_eq!(messages(&service), before + 1);

    // Indexing completes: the index alone (no direct read) finds the appended word.
    wait_for(&rx, "indexing to finish", |e| match e {
        Event::Indexing { pending: 0 } => Some(()),
        _ => None,
    });
    let filter = SearchFilter {
        limit: 10,
        ..SearchFilter::default()
    };
    let hits = service
        .library()
        .index()
        .expect("the cache is open")
        .search("quokkalantern", &filter)
        .unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].session_id, SESSION);
    assert_eq!(hits[0].message_id, "svc-new-1");

    // New roots: the loop starts over on them, the old cursor is stale.
    service.switch(codex_roots.clone());
    assert!(service.changes_since(seq).reset);
    let first = first_refresh(&rx, "the first refresh on the new roots");
    let expected = scanned(&codex_roots);
    assert!(!expected.is_empty());
    assert!(expected.iter().all(|(p, _)| *p == ProviderKind::Codex));
    assert_eq!(listed(&service), expected);
    assert_eq!(first.changed, expected.len());
    let after_switch = service.changes_since(first.seq - 1);
    assert!(!after_switch.reset);
    assert_eq!(after_switch.changed.len(), expected.len());
    assert!(service.resolve(ProviderKind::Claude, SESSION).is_err());

    // Stopped: the loop ends, and with it every sender of events.
    service.stop();
    let deadline = Instant::now() + WAIT;
    loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(_) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => panic!("the loop still holds its events after stop"),
        }
    }

    // The calls still work without the loop; a refresh asked for (after an action wrote a
    // store) lists the result at once and puts it in the change sequence.
    let gone = service
        .list()
        .unwrap()
        .sessions
        .into_iter()
        .find(|s| s.source_path.extension().is_some_and(|e| e == "jsonl"))
        .expect("a Codex rollout");
    let cursor = service.seq();
    std::fs::remove_file(&gone.source_path).unwrap();
    let now = service.refresh().unwrap();
    assert!(now.sessions.iter().all(|s| s.id != gone.id));
    let changes = service.changes_since(cursor);
    assert_eq!(changes.removed, vec![SessionKey::of(&gone)], "{changes:?}");
    assert!(service.resolve(ProviderKind::Codex, &gone.id).is_err());
}

/// A search asked for right after a cold start waits for the first list (not for the text
/// index), then answers every match, read directly from the sessions not indexed yet: asked
/// before the list, it found nothing and said nothing of it. Also after a switch of roots.
#[test]
fn a_first_search_waits_for_the_list_and_finds_every_match() {
    let store = tempfile::tempdir().unwrap();
    let root = store.path().join("claude");
    // Enough sessions that the first scan takes a while.
    for i in 0..400 {
        let id = format!("00000000-0000-4000-8000-{i:012}");
        agent_sessions_test_support::long_claude_session(&root, &id, 5);
    }
    let roots = common::roots(ProviderKind::Claude, &root);
    let cache = tempfile::tempdir().unwrap();
    let service = Service::new(roots.clone(), Some(cache.path().to_path_buf()));
    service.start(|_| {});
    assert!(
        !service.wait_listed(Duration::ZERO),
        "the first list cannot be done yet"
    );
    assert!(service.wait_listed(WAIT));
    let filter = SearchFilter {
        limit: 500,
        ..SearchFilter::default()
    };
    let found = service
        .library()
        .search_now("\"question 3\"", &filter)
        .unwrap();
    let sessions: BTreeSet<String> = found.hits.iter().map(|h| h.session_id.clone()).collect();
    assert_eq!(sessions.len(), 400, "{} sessions", sessions.len());
    assert!(!found.partial);

    service.switch(common::roots(
        ProviderKind::Claude,
        &store.path().join("none"),
    ));
    assert!(service.wait_listed(WAIT));
    let found = service.library().search_now("question", &filter).unwrap();
    assert!(found.hits.is_empty());
    service.stop();
}

/// Set by the tests below for the child they start: the file the child writes what it did to.
const CHILD_MARK: &str = "AGENT_SESSIONS_TEST_INDEX_PASS_MARK";
/// Set with [`CHILD_MARK`]: the child fails at once, indexing nothing.
const CHILD_FAILS: &str = "AGENT_SESSIONS_TEST_INDEX_PASS_FAILS";

/// Not a test of its own: the indexing pass the tests below start, this test binary run again
/// with this test's name (as the app runs itself with `--index-pass`). It writes its process
/// id, its exit code and how many sessions it indexed to the file [`CHILD_MARK`] names.
#[test]
#[ignore = "the child process the index_process tests start; does nothing when run by itself"]
fn index_pass_child() {
    let Some(mark) = std::env::var_os(CHILD_MARK) else {
        return;
    };
    let (code, indexed) = match std::env::var_os(CHILD_FAILS) {
        Some(_) => (3, 0),
        None => match index_process::run() {
            Ok(n) => (0, n),
            Err(_) => (1, 0),
        },
    };
    std::fs::write(mark, format!("{} {code} {indexed}", std::process::id())).unwrap();
    std::process::exit(code);
}

/// A service whose long indexing passes run in [`index_pass_child`] (from one pending
/// session), told to fail when `fails`; with the file the child writes to.
fn service_indexing_elsewhere(
    roots: Roots,
    cache: &Path,
    fails: bool,
) -> (Service, tempfile::TempDir) {
    let mark = tempfile::tempdir().unwrap();
    let mut process = IndexProcess::new(
        std::env::current_exe().unwrap(),
        ["index_pass_child", "--exact", "--ignored", "--nocapture"]
            .map(Into::into)
            .to_vec(),
    );
    process.at_least = 1;
    process
        .env
        .push((CHILD_MARK.into(), mark.path().join("child").into()));
    if fails {
        process.env.push((CHILD_FAILS.into(), "1".into()));
    }
    let service = Service::new(roots, Some(cache.to_path_buf()));
    service.index_elsewhere(process);
    (service, mark)
}

/// `"question 3"` in every session of a store of `n` generated Claude sessions.
fn generated_store(dir: &Path, n: usize) -> Roots {
    let root = dir.join("claude");
    for i in 0..n {
        let id = format!("00000000-0000-4000-8000-{i:012}");
        agent_sessions_test_support::long_claude_session(&root, &id, 5);
    }
    common::roots(ProviderKind::Claude, &root)
}

/// The sessions a search of the service's cache finds without reading any directly (the
/// index holds them all).
fn found_in_index(service: &Service, query: &str) -> BTreeSet<String> {
    let filter = SearchFilter {
        limit: 500,
        ..SearchFilter::default()
    };
    let found = service.library().search_now(query, &filter).unwrap();
    assert_eq!(found.read_directly, 0, "every session is in the index");
    assert!(!found.partial);
    found.hits.into_iter().map(|h| h.session_id).collect()
}

/// Issue 36: the first indexing of a big store runs in a child process, whose churned memory
/// leaves with it; the loop reports the pending count going down meanwhile, and the index the
/// child wrote answers the service's searches in full.
#[test]
fn a_long_indexing_pass_runs_in_a_child_process() {
    let store = tempfile::tempdir().unwrap();
    let roots = generated_store(store.path(), 60);
    let cache = tempfile::tempdir().unwrap();
    let (service, mark) = service_indexing_elsewhere(roots, cache.path(), false);
    let rx = started(&service);
    first_refresh(&rx, "the first refresh");
    wait_for(&rx, "indexing to finish", |e| match e {
        Event::Indexing { pending: 0 } => Some(()),
        _ => None,
    });
    let said = child_said(&mark.path().join("child"));
    let [pid, code, indexed] = said.split(' ').collect::<Vec<_>>()[..] else {
        panic!("{said}");
    };
    assert_ne!(pid, std::process::id().to_string());
    assert_eq!(
        (code, indexed),
        ("0", "60"),
        "the child indexed every session"
    );
    let locks = std::fs::read_dir(cache.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".lock"))
        .count();
    assert_eq!(locks, 0, "the child released the cache's indexing lock");
    assert_eq!(found_in_index(&service, "\"question 3\"").len(), 60);
    service.stop();
}

/// A pass that fails (or cannot start) leaves its sessions pending, and the loop indexes them
/// itself: search finds every one all the same.
#[test]
fn a_failed_or_missing_indexing_process_leaves_the_work_to_the_loop() {
    let store = tempfile::tempdir().unwrap();
    let roots = generated_store(store.path(), 30);
    for case in ["fails", "missing"] {
        let cache = tempfile::tempdir().unwrap();
        let (service, mark) = service_indexing_elsewhere(roots.clone(), cache.path(), true);
        if case == "missing" {
            let mut process = IndexProcess::new(store.path().join("no-such-program"), Vec::new());
            process.at_least = 1;
            service.index_elsewhere(process);
        }
        let rx = started(&service);
        first_refresh(&rx, case);
        wait_for(&rx, "indexing to finish", |e| match e {
            Event::Indexing { pending: 0 } => Some(()),
            _ => None,
        });
        let said = std::fs::read_to_string(mark.path().join("child")).ok();
        match case {
            "fails" => assert!(
                said.is_some_and(|s| s.ends_with(" 3 0")),
                "the child ran and failed"
            ),
            _ => assert_eq!(said, None),
        }
        assert_eq!(
            found_in_index(&service, "\"question 3\"").len(),
            30,
            "{case}"
        );
        service.stop();
    }
}

/// What the child wrote to `mark` before it exited: the count can reach 0 with its last
/// commit, a moment before it writes.
fn child_said(mark: &Path) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        match std::fs::read_to_string(mark) {
            Ok(said) if !said.is_empty() => return said,
            _ if Instant::now() > deadline => panic!("the child wrote nothing within {WAIT:?}"),
            _ => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// Starts `service`, with the events it sends.
fn started(service: &Service) -> Receiver<Event> {
    let (tx, rx) = mpsc::channel();
    service.start(move |e| {
        let _ = tx.send(e);
    });
    rx
}

/// Once listed and indexed, a loop that finds nothing new says nothing: each tick (every 5 s)
/// sent a `Changed` event and a scan progress report all the same, and each event woke the
/// window, which then asked across the IPC what changed — the app's idle CPU. A change is
/// still reported at once.
#[test]
fn an_idle_loop_sends_nothing_until_something_changes() {
    let claude = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let cache = tempfile::tempdir().unwrap();
    let (service, rx) = indexed_service(claude.path(), cache.path());

    // Two ticks and a bit (with nothing live, the loop re-reads the stores every 10 s when
    // nothing wakes it).
    let quiet_until = Instant::now() + Duration::from_secs(21);
    let mut said = Vec::new();
    while let Ok(e) = rx.recv_timeout(quiet_until.saturating_duration_since(Instant::now())) {
        said.push(e);
    }
    assert!(said.is_empty(), "idle, the loop said {said:?}");

    let cursor = service.seq();
    append_user_line(
        &session_file(claude.path()),
        "svc-idle-1",
        "after the quiet",
    );
    changed_after(&rx, cursor);
    service.stop();
}

/// Issue 36: SQLite keeps each connection's last pages (up to 2 MB per file and connection)
/// until it next reads, and an app idle after indexing has no next read coming. The loop
/// empties the page caches of the calls' connections too when it goes to sleep.
#[test]
fn an_idle_loop_gives_the_page_caches_back() {
    let claude = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let cache = tempfile::tempdir().unwrap();
    let (service, _events) = indexed_service(claude.path(), cache.path());

    // A list and a search, as the window makes them, read pages into the calls' connections
    // (held under the library's lock, so the loop cannot empty them before they are counted).
    let used = {
        let lib = service.library();
        lib.listed(&ScanProgress::default()).unwrap();
        let index = lib.index().unwrap();
        let hits = index.search("the", &SearchFilter::default()).unwrap();
        assert!(!hits.is_empty());
        index.cache_used()
    };
    assert!(used > 0, "a list and a search read no page");

    // The loop sleeps between ticks (10 s with nothing live): by two ticks it has emptied them,
    // down to what a connection keeps however empty (a scratch page per file: 4 of the 21
    // pages read here).
    let deadline = Instant::now() + Duration::from_secs(25);
    let mut left = used;
    while left > used / 4 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        left = service.library().index().unwrap().cache_used();
    }
    assert!(
        left <= used / 4,
        "idle, the calls' connections still hold {left} of {used} bytes"
    );
    service.stop();
}
