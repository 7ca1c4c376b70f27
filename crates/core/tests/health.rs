//! The diagnostics panel's data: a store with a broken line shows that file and line under its
//! root, files read and tool versions per root, how the loop watches, the cache's place and
//! size, and clearing the cache (ours only) then filling it again from the stores.

use std::io::Write;
use std::time::{Duration, Instant};

mod common;

use agent_sessions_core::health::{self, CacheInfo};
use agent_sessions_core::service::{Event, Service, WatcherState};
use agent_sessions_core::ProviderKind;
use common::{fixture_copy, roots, snapshot};

const SESSION: &str = "9d22e384-6685-4b75-ac35-088162e4c4a9";

fn until(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !ok() {
        assert!(Instant::now() < deadline, "{what}: not within 120 s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_broken_line_shows_with_its_file_and_line_and_the_cache_clears_and_refills() {
    let store = fixture_copy(ProviderKind::Claude, "2.1.332");
    let file = store
        .path()
        .join(format!("projects/-home-bob-projects-demo/{SESSION}.jsonl"));
    let lines = std::fs::read_to_string(&file).unwrap().lines().count() as u64;
    writeln!(
        std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .unwrap(),
        "{{this is not json"
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let roots = roots(ProviderKind::Claude, store.path());
    let service = Service::new(roots.clone(), Some(cache.path().to_path_buf()));
    assert_eq!(service.watcher_state(), WatcherState::NotStarted);
    let listing = service.refresh().unwrap();
    let cache_info = CacheInfo::of(service.cache_dir().as_deref(), &roots);
    let h = health::report(&roots, &listing, service.watcher_state(), cache_info);

    assert_eq!(h.roots.len(), 1);
    let r = &h.roots[0];
    assert_eq!(
        (r.provider, r.root.as_path()),
        (ProviderKind::Claude, store.path())
    );
    assert!(r.exists);
    assert_eq!(r.sessions, listing.sessions.len() as u64);
    // Every session of this store is a file of its own, subagents included.
    assert_eq!(r.files_read, r.sessions);
    let broken: Vec<_> = r.skipped.iter().filter(|d| d.path == file).collect();
    assert_eq!(broken.len(), 1, "{:?}", r.skipped);
    assert_eq!(broken[0].line, Some(lines + 1));
    assert!(!broken[0].reason.is_empty());
    assert_eq!(h.parse_errors, r.skipped.len() as u64);
    assert_eq!(h.unlisted, 0);
    let versions: u64 = r.format_versions.iter().map(|(_, n)| n).sum();
    assert_eq!(versions, r.sessions);
    assert!(
        r.format_versions.iter().any(|(v, _)| v == "2.1.332"),
        "{:?}",
        r.format_versions
    );
    let path = h.cache.path.clone().unwrap();
    assert!(path.starts_with(cache.path()) && path.exists());
    assert!(h.cache.bytes >= std::fs::metadata(&path).unwrap().len() && h.cache.bytes > 0);

    // Clearing empties our cache and touches no store; the loop fills it again.
    let before = snapshot(store.path());
    let count = listing.sessions.len();
    service.clear_cache().unwrap();
    assert_eq!(snapshot(store.path()), before);
    assert_eq!(service.list().unwrap().sessions.len(), 0);
    let (tx, rx) = std::sync::mpsc::channel();
    service.start(move |e: Event| {
        let _ = tx.send(e);
    });
    until("the cache refilled", || {
        service.list().map(|l| l.sessions.len()).unwrap_or(0) == count
    });
    // The loop says how it watches.
    let WatcherState::Watching { paths } = service.watcher_state() else {
        panic!("{:?}", service.watcher_state())
    };
    assert!(
        paths.iter().any(|(p, _)| p.starts_with(store.path())),
        "{paths:?}"
    );
    // Cleared while the loop runs: the loop empties it between its own steps, and the first
    // complete refresh after lists every session again (a scan in flight must not leave
    // provider states behind that make the next scan list nothing).
    while rx.try_recv().is_ok() {}
    service.clear_cache().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx
            .recv_timeout(left)
            .expect("a first refresh after clearing")
        {
            Event::Changed(c) if c.first && c.done => break,
            _ => {}
        }
    }
    assert_eq!(service.list().unwrap().sessions.len(), count);
    let again = service.list().unwrap();
    assert_eq!(again.diagnostics.parse_errors, h.parse_errors);
    service.stop();
    assert_eq!(service.watcher_state(), WatcherState::Stopped);
}

#[test]
fn a_missing_root_and_no_cache_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone");
    let roots = roots(ProviderKind::Codex, &gone);
    let service = Service::new(roots.clone(), None);
    let listing = service.list().unwrap();
    let cache = CacheInfo::of(None, &roots);
    let h = health::report(&roots, &listing, service.watcher_state(), cache);
    assert_eq!(h.roots.len(), 1);
    assert!(!h.roots[0].exists && h.roots[0].sessions == 0 && h.roots[0].files_read == 0);
    assert_eq!((h.cache.path.clone(), h.cache.bytes), (None, 0));
}
