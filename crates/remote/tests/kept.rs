//! The server keeps its listing for the connection's life: a second `list`, and the `show` and
//! `log` naming a session after it, refresh what changed instead of scanning every store again
//! (with a cache and, where it matters most, without one), and an append between calls is
//! still seen. Over the in-memory transport and a copy of the Claude fixture store.
//!
//! How a scan is told from a refresh: a session file is rewritten in place to the same size and
//! its modification time put back. A refresh trusts (size, mtime) and keeps what it listed; a
//! scan reads the file and lists the new title (the test checks that a new connection does).

mod common;

use std::fs;
use std::path::Path;
use std::time::SystemTime;

use agent_sessions_core::live::follow::WINDOW;
use agent_sessions_core::model::SessionMeta;
use agent_sessions_remote::protocol::*;
use agent_sessions_remote::Client;
use agent_sessions_test_support::long_claude_session;

use common::*;

const TODO: &str = "67e40764-2970-47cf-8c8e-1638ddecc58d";
const BEFORE: &str = "TODO plan the work";
const AFTER: &str = "DONE plan the work";

fn session<'a>(sessions: &'a [SessionMeta], id: &str) -> &'a SessionMeta {
    sessions.iter().find(|s| s.id == id).unwrap()
}

/// Rewrites `path` with "TODO plan" made "DONE plan" (same length), its mtime put back.
fn rewrite_in_place(path: &Path) {
    let mtime: SystemTime = fs::metadata(path).unwrap().modified().unwrap();
    let text = fs::read_to_string(path).unwrap();
    assert!(text.contains("TODO plan"));
    fs::write(path, text.replace("TODO plan", "DONE plan")).unwrap();
    let file = fs::File::options().write(true).open(path).unwrap();
    file.set_modified(mtime).unwrap();
}

fn list(client: &mut Client) -> Vec<SessionMeta> {
    client.list(&ListParams::default()).unwrap().sessions
}

fn a_second_call_refreshes(cached: bool) {
    let store = claude_copy();
    let scratch = tempfile::tempdir().unwrap();
    let cache = if cached {
        scratch.path().join("cache")
    } else {
        unopenable(scratch.path())
    };
    let transport = memory(claude_roots(store.path()), &cache);
    let mut client = Client::connect(Box::new(transport.clone())).unwrap();

    let first = list(&mut client);
    let todo = session(&first, TODO).clone();
    assert_eq!(todo.title.as_deref(), Some(BEFORE));
    let live_users = session(&first, LIVE_SESSION).counts.user;

    rewrite_in_place(&todo.source_path);
    append_prompt(store.path(), 1);

    // Not scanned again: the rewritten file looks unchanged and keeps its listing...
    let second = list(&mut client);
    assert_eq!(session(&second, TODO).title.as_deref(), Some(BEFORE));
    // ...and the appended one was refreshed.
    assert_eq!(session(&second, LIVE_SESSION).counts.user, live_users + 1);

    // `show`, `log` and `session` find the session in the kept listing too (by a prefix).
    let named = SessionRef::named(&TODO[..8]);
    let shown = client
        .show(&ShowParams {
            session: named.clone(),
            offset: 0,
            limit: 1,
        })
        .unwrap();
    assert_eq!(shown.session.title.as_deref(), Some(BEFORE));
    let log = client.log(&named).unwrap();
    assert_eq!(log.session.title.as_deref(), Some(BEFORE));
    assert!(!log.truncated);

    append_prompt(store.path(), 2);
    let live = client.log(&SessionRef::named(LIVE_SESSION)).unwrap();
    assert_eq!(live.session.counts.user, live_users + 2);

    if !cached {
        // A scan (a new server, nothing kept) reads the rewritten file: the check above can
        // fail.
        let mut fresh = Client::connect(Box::new(transport)).unwrap();
        assert_eq!(
            session(&list(&mut fresh), TODO).title.as_deref(),
            Some(AFTER)
        );
    }
}

#[test]
fn without_a_cache_a_second_call_refreshes_instead_of_scanning() {
    a_second_call_refreshes(false);
}

#[test]
fn with_a_cache_a_second_call_refreshes_too() {
    a_second_call_refreshes(true);
}

/// A `log` whose events are more than a follower's window says so (`truncated`), as a local
/// timeline of the same session does; a short one does not.
#[test]
fn log_says_when_older_events_fell_out_of_the_window() {
    let store = tempfile::tempdir().unwrap();
    let long = "0f0f0f0f-0000-4000-8000-000000000001";
    let short = "0f0f0f0f-0000-4000-8000-000000000002";
    long_claude_session(store.path(), long, WINDOW);
    long_claude_session(store.path(), short, 3);
    let roots = claude_roots(store.path());
    let scratch = tempfile::tempdir().unwrap();
    let mut client = Client::connect(Box::new(memory(roots.clone(), scratch.path()))).unwrap();
    let remote = client.log(&SessionRef::named(long)).unwrap();

    let (lib, sessions) = scanned(&roots);
    let mut timelines = agent_sessions_core::live::timeline::Timelines::default();
    let local = timelines
        .read(lib.catalog(), session(&sessions, long))
        .unwrap();
    assert!(local.truncated);
    assert_eq!(
        (remote.truncated, remote.events.len(), remote.cursor),
        (true, local.events.len(), local.cursor)
    );
    assert_eq!(remote.events.len(), WINDOW);

    let short = client.log(&SessionRef::named(short)).unwrap();
    assert_eq!(
        (short.truncated, short.events.len() < WINDOW),
        (false, true)
    );
}
