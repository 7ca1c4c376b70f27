//! A host whose cache cannot be opened (its `AGENT_SESSIONS_CACHE_DIR` below a file): `changes`
//! and `watch` still hear an append to a session, and a session going live and back, over the
//! in-memory transport and a copy of the Claude fixture store.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use agent_sessions_core::model::SessionMeta;
use agent_sessions_remote::protocol::*;
use agent_sessions_remote::Client;

use common::*;

/// Generous: the machine is shared, and a wait that passes returns as soon as it can.
const WAIT: Duration = Duration::from_secs(60);

/// Asks `changes` from `cursor` until `done` holds for the sessions it named since; the new
/// cursor and those sessions (as listed when last named).
fn changes_until(
    client: &mut Client,
    mut cursor: u64,
    what: &str,
    done: impl Fn(&[SessionMeta]) -> bool,
) -> (u64, Vec<SessionMeta>) {
    let until = Instant::now() + WAIT;
    let mut named: Vec<SessionMeta> = Vec::new();
    loop {
        let delta: WatchEvent = client
            .call(method::CHANGES, ChangesParams { cursor })
            .unwrap();
        assert!(
            !delta.reset && delta.removed.is_empty(),
            "{what}: {delta:?}"
        );
        cursor = delta.seq;
        for s in delta.changed {
            named.retain(|n| n.id != s.id);
            named.push(s);
        }
        if done(&named) {
            return (cursor, named);
        }
        assert!(Instant::now() < until, "{what}: not within {WAIT:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn changes_and_watch_hear_appends_and_live_flags_without_a_cache() {
    let store = claude_copy();
    let scratch = tempfile::tempdir().unwrap();
    let transport = memory(claude_roots(store.path()), &unopenable(scratch.path()));
    let mut client = Client::connect(Box::new(transport)).unwrap();
    let listed: ListResult = client.call(method::LIST, ListParams::default()).unwrap();
    assert!(
        listed
            .warnings
            .iter()
            .any(|w| w.contains("without the cache")),
        "{:?}",
        listed.warnings
    );
    let all: BTreeSet<String> = listed.sessions.iter().map(|s| s.id.clone()).collect();
    assert!(all.contains(LIVE_SESSION));

    // The first call starts the server's loop. The listing's refresh was the feed's (the loop
    // shares what it kept), so nothing is named again: no session the list already holds.
    let quiet = client.changes(listed.seq).unwrap();
    assert!(!quiet.reset && quiet.changed.is_empty(), "{quiet:?}");
    let cursor = quiet.seq;
    let users = listed
        .sessions
        .iter()
        .find(|s| s.id == LIVE_SESSION)
        .unwrap()
        .counts
        .user;

    // `changes`: the append, and only it (a loop that scanned again would name every session).
    append_prompt(store.path(), 1);
    let (cursor, named) = changes_until(&mut client, cursor, "the append", |s| !s.is_empty());
    let ids: Vec<&str> = named.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, [LIVE_SESSION]);
    assert_eq!(named[0].counts.user, users + 1, "listed as it is now");

    // `watch`: the next append pushed without asking.
    let root = store.path().to_path_buf();
    let writer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(1));
        append_prompt(&root, 2);
    });
    let started = Instant::now();
    let mut pushed = Vec::new();
    let cursor = client
        .watch(cursor, &mut |event| {
            assert!(!event.reset && event.removed.is_empty(), "{event:?}");
            pushed.extend(event.changed.iter().cloned());
            pushed.is_empty() && started.elapsed() < WAIT
        })
        .unwrap();
    writer.join().unwrap();
    let ids: Vec<&str> = pushed.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, [LIVE_SESSION], "pushed within {WAIT:?}");
    assert_eq!(pushed[0].counts.user, users + 2);

    // The Live dot: the session claimed by a running process, then let go.
    let claim = claim_live(store.path());
    let live =
        |on: bool| move |s: &[SessionMeta]| s.iter().any(|s| s.id == LIVE_SESSION && s.live == on);
    let (cursor, _) = changes_until(&mut client, cursor, "the session going live", live(true));
    std::fs::remove_file(claim).unwrap();
    changes_until(
        &mut client,
        cursor,
        "the session no longer live",
        live(false),
    );
}
