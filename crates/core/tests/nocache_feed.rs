//! Without a cache (no cache folder set, or one that cannot be opened) the library keeps its
//! scans in memory, so a refresh finds only what changed, and the service's change feed hears
//! an append, a new session and a removal exactly as it does with a cache, over a copy of a real
//! fixture store.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

mod common;

use agent_sessions_core::provider::SessionKey;
use agent_sessions_core::service::{Event, Service};
use agent_sessions_core::{Catalog, Library, ProviderKind, ScanProgress};

/// Generous: the machine is shared, and a wait that passes returns as soon as it can.
const WAIT: Duration = Duration::from_secs(120);
const DEMO: &str = "projects/-home-bob-projects-demo";
/// A session of the Claude 2.1.9 fixture.
const SESSION: &str = "289ec80f-2fef-473d-9b5b-54a4657fd742";
/// The session the tests add.
const NEW: &str = "7d0c9a52-3b1e-4f6a-8c2d-5e4f3a2b1c0d";

#[derive(Debug, Clone, Copy, PartialEq)]
enum Cache {
    Usable,
    /// No cache folder known (no `HOME`, no XDG folders).
    Unset,
    /// `AGENT_SESSIONS_CACHE_DIR` naming a place no folder can be made (below a file).
    Unopenable,
}

fn append_user_line(store: &Path, session: &str, uuid: &str) {
    let file = store.join(DEMO).join(format!("{session}.jsonl"));
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    writeln!(f, r#"{{"type":"user","uuid":"{uuid}","sessionId":"{session}","cwd":"/home/bob/projects/demo","timestamp":"2026-12-01T00:00:00Z","message":{{"role":"user","content":"one more thing"}}}}"#).unwrap();
}

/// A new session file, as Claude Code starts one: a prompt and an answer.
fn add_session(store: &Path) -> PathBuf {
    let file = store.join(DEMO).join(format!("{NEW}.jsonl"));
    let mut f = std::fs::File::create(&file).unwrap();
    writeln!(f, r#"{{"type":"user","uuid":"new-u1","parentUuid":null,"sessionId":"{NEW}","cwd":"/home/bob/projects/demo","version":"2.1.9","timestamp":"2026-12-01T00:00:01Z","message":{{"role":"user","content":"start a new thing"}}}}"#).unwrap();
    writeln!(f, r#"{{"type":"assistant","uuid":"new-a1","parentUuid":"new-u1","sessionId":"{NEW}","cwd":"/home/bob/projects/demo","version":"2.1.9","timestamp":"2026-12-01T00:00:02Z","message":{{"id":"msg_new1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{{"type":"text","text":"Started."}}]}}}}"#).unwrap();
    file
}

/// The cache folder a run is given; `scratch` holds it (or the file that makes it unopenable).
fn cache_dir(cache: Cache, scratch: &Path) -> Option<PathBuf> {
    match cache {
        Cache::Usable => Some(scratch.to_path_buf()),
        Cache::Unset => None,
        Cache::Unopenable => {
            let file = scratch.join("a-file");
            std::fs::write(&file, b"not a folder").unwrap();
            Some(file.join("cache"))
        }
    }
}

/// Sessions as (id, path inside the store).
type Named = BTreeSet<(String, PathBuf)>;

/// (id, path inside the store) of sessions: what two runs over two copies can compare.
fn named(keys: &[SessionKey], store: &Path) -> Named {
    keys.iter()
        .map(|k| {
            let rel = k.source_path.strip_prefix(store).unwrap().to_path_buf();
            (k.id.clone(), rel)
        })
        .collect()
}

fn key(id: &str) -> (String, PathBuf) {
    (id.to_string(), Path::new(DEMO).join(format!("{id}.jsonl")))
}

/// Waits for change events until `done` holds (checked after each complete refresh).
fn wait_until(rx: &Receiver<Event>, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !done() {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(_) => {}
            Err(e) => panic!("{what}: not within {WAIT:?} ({e:?})"),
        }
    }
}

/// What the feed said about each step.
#[derive(Debug, PartialEq)]
struct Heard {
    /// Changed and removed after the append and the new session.
    written: (Named, Named),
    /// The delta's sessions as listed then: (id, user messages, assistant messages).
    delta: BTreeSet<(String, u64, u64)>,
    /// Changed and removed after the new session's file was deleted.
    deleted: (Named, Named),
}

/// Starts a service over a copy of the Claude fixture, appends to a session, adds one and
/// deletes it, and notes what the change feed said after each step.
fn run(cache: Cache) -> Heard {
    let store = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let root = store.path();
    let scratch = tempfile::tempdir().unwrap();
    let roots = common::roots(ProviderKind::Claude, root);
    let service = Service::new(roots.clone(), cache_dir(cache, scratch.path()));
    assert_eq!(
        service.library().index().is_some(),
        cache == Cache::Usable,
        "{cache:?}"
    );
    let (tx, rx) = mpsc::channel();
    service.start(move |e| {
        let _ = tx.send(e);
    });
    // The first refresh records every session of the store.
    let all = Catalog::new(&roots, &[])
        .scan(&ScanProgress::default())
        .unwrap()
        .sessions
        .len();
    wait_until(&rx, "the first refresh to list every session", || {
        service.changes_since(0).changed.len() == all
    });

    let cursor = service.seq();
    append_user_line(root, SESSION, "nocache-1");
    add_session(root);
    let expected = BTreeSet::from([key(SESSION), key(NEW)]);
    wait_until(&rx, "the append and the new session in the feed", || {
        named(&service.changes_since(cursor).changed, root) == expected
    });
    let changes = service.changes_since(cursor);
    let written = (named(&changes.changed, root), named(&changes.removed, root));
    let delta = service.delta(cursor).unwrap();
    assert!(!delta.reset && delta.removed.is_empty(), "{delta:?}");
    let delta: BTreeSet<(String, u64, u64)> = delta
        .changed
        .iter()
        .map(|s| (s.id.clone(), s.counts.user, s.counts.assistant))
        .collect();

    // The calls' own refresh (after an action) finds nothing new: it shares the loop's scans.
    let settled = service.seq();
    service.refresh().unwrap();
    let again = service.changes_since(settled);
    assert!(
        again.changed.is_empty() && again.removed.is_empty(),
        "{again:?}"
    );

    let cursor = service.seq();
    std::fs::remove_file(root.join(DEMO).join(format!("{NEW}.jsonl"))).unwrap();
    wait_until(&rx, "the deletion in the feed", || {
        !service.changes_since(cursor).removed.is_empty()
    });
    let changes = service.changes_since(cursor);
    let deleted = (named(&changes.changed, root), named(&changes.removed, root));
    let listed = service.list().unwrap().sessions;
    assert!(listed.iter().all(|s| s.id != NEW));
    assert_eq!(listed.len(), all);
    service.stop();
    Heard {
        written,
        delta,
        deleted,
    }
}

#[test]
fn without_a_cache_the_feed_hears_what_it_hears_with_one() {
    let with_cache = run(Cache::Usable);
    assert_eq!(
        with_cache.written,
        (BTreeSet::from([key(SESSION), key(NEW)]), BTreeSet::new())
    );
    assert_eq!(
        with_cache.deleted,
        (BTreeSet::new(), BTreeSet::from([key(NEW)]))
    );
    assert!(with_cache.delta.contains(&(NEW.to_string(), 1, 1)));
    for cache in [Cache::Unset, Cache::Unopenable] {
        assert_eq!(run(cache), with_cache, "{cache:?}");
    }
}

/// The library alone, no service: a refresh without a cache reports everything once, then only
/// the session an append grew, and lists it as it is now.
#[test]
fn a_library_without_a_cache_refreshes_only_what_changed() {
    let store = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let root = store.path();
    let roots = common::roots(ProviderKind::Claude, root);
    let mut lib = Library::open(&roots, &[], None);
    let progress = ScanProgress::default();
    let scan = Catalog::new(&roots, &[]).scan(&progress).unwrap();
    let ids = |s: &[agent_sessions_core::model::SessionMeta]| -> Vec<String> {
        s.iter().map(|m| m.id.clone()).collect()
    };

    let first = lib.refresh(&progress).unwrap();
    assert_eq!((first.changed, first.removed), (scan.sessions.len(), 0));
    let listed = lib.listed(&progress).unwrap();
    assert_eq!(
        ids(&listed.sessions),
        ids(&scan.sessions),
        "newest first, as a scan"
    );
    assert_eq!(listed.diagnostics, scan.diagnostics);
    let idle = lib.refresh(&progress).unwrap();
    assert_eq!((idle.changed, idle.removed), (0, 0));

    append_user_line(root, SESSION, "nocache-lib-1");
    let mut landed = Vec::new();
    let grown = lib
        .refresh_with(&progress, &mut |_, out| {
            landed.extend(out.changed.iter().map(SessionKey::of));
            landed.extend(out.removed.iter().cloned());
        })
        .unwrap();
    assert_eq!((grown.changed, grown.removed), (1, 0));
    assert_eq!(named(&landed, root), BTreeSet::from([key(SESSION)]));
    let before = scan.sessions.iter().find(|s| s.id == SESSION).unwrap();
    let now = lib.listed(&progress).unwrap();
    let after = now.sessions.iter().find(|s| s.id == SESSION).unwrap();
    assert_eq!(after.counts.user, before.counts.user + 1);

    // Emptied (Clear cache): the next refresh scans every store whole again.
    lib.clear_cache().unwrap();
    let again = lib.refresh(&progress).unwrap();
    assert_eq!(again.changed, scan.sessions.len());
}
