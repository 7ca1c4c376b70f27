//! The typed calls of a `Client` (`calls.rs`) against a real server on a thread reading the
//! Claude, Codex and OpenCode fixture stores: each answer, read as the protocol's type, equals
//! what the core gives locally for the same store; a transcript read page by page is the
//! local one, however many pages it takes.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::ops::ControlFlow;

use agent_sessions_core::index::{self, SearchFilter};
use agent_sessions_core::{Library, ProviderKind, ScanProgress, SessionMeta};
use agent_sessions_remote::protocol::*;
use agent_sessions_remote::server::{serve, Options};
use agent_sessions_remote::transport::{pipe, Memory};
use agent_sessions_remote::Client;
use serde_json::{json, Value};

use common::*;

/// A client of a server over every agent's fixture, and a library reading the same stores
/// here with a cache of its own (a search needs one).
fn both(cache: &std::path::Path) -> (Client, Library, Vec<SessionMeta>) {
    let roots = every_agent_roots();
    let client = Client::connect(Box::new(memory(roots.clone(), &cache.join("there")))).unwrap();
    let mut lib = Library::open(&roots, &[], Some(cache.join("here")));
    let sessions = lib.sessions(&ScanProgress::default()).unwrap().sessions;
    (client, lib, sessions)
}

fn exact(s: &SessionMeta) -> SessionRef {
    SessionRef {
        id: s.id.clone(),
        provider: Some(s.provider),
        source_path: None,
    }
}

/// `resume` and the first `show` page's `resume_command` give the local command of every
/// session, or the local refusal's code.
#[test]
fn resume_commands_are_the_local_ones() {
    let cache = tempfile::tempdir().unwrap();
    let (mut client, lib, sessions) = both(cache.path());
    let mut commands = 0;
    for session in &sessions {
        let local = lib.catalog().resume_command(session);
        let remote = client.resume(&exact(session));
        let page = client
            .call::<ShowResult>(
                method::SHOW,
                ShowParams {
                    session: exact(session),
                    limit: 1,
                    ..ShowParams::default()
                },
            )
            .unwrap();
        match local {
            Ok(want) => {
                assert_eq!(remote.unwrap(), want, "{}", session.id);
                assert_eq!(page.resume().unwrap(), want, "{}", session.id);
                commands += 1;
            }
            Err(e) => {
                assert_eq!(remote.unwrap_err().code(), e.code(), "{}", session.id);
                assert_eq!(page.resume().unwrap_err().code, e.code());
            }
        }
    }
    assert!(commands >= 3, "{commands} sessions with a resume command");
}

/// A search's hits and counts, and diagnostics' counts, records and format versions, are the
/// local core's.
#[test]
fn search_and_diagnostics_are_the_local_ones() {
    let cache = tempfile::tempdir().unwrap();
    let (mut client, mut lib, sessions) = both(cache.path());
    for query in ["the", "files", "\"no such phrase anywhere\""] {
        let params = SearchParams {
            query: query.into(),
            limit: 20,
            ..SearchParams::default()
        };
        let filter = SearchFilter {
            limit: 20,
            ..SearchFilter::default()
        };
        let want = lib
            .search(query, &filter, &ScanProgress::default())
            .unwrap();
        let got = client.search(&params).unwrap();
        assert_eq!(index::SearchResults::from(got.results), want, "{query}");
    }

    let got = client.diagnostics(&DiagnosticsParams::default()).unwrap();
    let report = lib.sessions(&ScanProgress::default()).unwrap();
    assert_eq!(got.parse_errors, report.diagnostics.parse_errors);
    assert_eq!(got.items, report.diagnostics.items);
    let versions: Vec<_> = got
        .format_versions
        .into_iter()
        .map(|v| (v.provider, v.format_version, v.sessions))
        .collect();
    assert_eq!(versions, index::format_versions(&sessions));
    let kinds: Vec<ProviderKind> = got.places.roots.iter().map(|r| r.provider).collect();
    assert_eq!(
        kinds,
        [
            ProviderKind::Claude,
            ProviderKind::Codex,
            ProviderKind::Opencode
        ]
    );
}

/// Every session of every agent read page by page equals the local load; a session grown past
/// two pages comes whole, in order, and its last message is found with its index.
#[test]
fn transcripts_read_page_by_page_are_the_local_ones() {
    let cache = tempfile::tempdir().unwrap();
    let (mut client, lib, sessions) = both(cache.path());
    for session in &sessions {
        let want = lib.catalog().load(session).unwrap();
        let got = client.transcript(exact(session)).unwrap();
        // The session as listed there (the listing's enrichments: its directory, …).
        assert_eq!(json!(got.session), json!(session), "{}", session.id);
        assert_eq!(json!(got.messages), json!(want.messages), "{}", session.id);
        assert_eq!(got.diagnostics, want.diagnostics, "{}", session.id);
    }

    let store = claude_copy();
    for n in 0..2 * PAGE_MESSAGES + 50 {
        append_prompt(store.path(), n);
    }
    let roots = claude_roots(store.path());
    let mut client = Client::connect(Box::new(memory(roots.clone(), cache.path()))).unwrap();
    let (lib, sessions) = scanned(&roots);
    let long = sessions.iter().find(|s| s.id == LIVE_SESSION).unwrap();
    let want = lib.catalog().load(long).unwrap();
    assert!(want.messages.len() > 2 * PAGE_MESSAGES);
    // Named by a prefix, as `show --host` is.
    let prefix = SessionRef {
        id: LIVE_SESSION[..8].to_owned(),
        provider: None,
        source_path: None,
    };
    let got = client.transcript(prefix.clone()).unwrap();
    assert_eq!(got.session.id, LIVE_SESSION);
    assert_eq!(json!(got.messages), json!(want.messages));
    let last = want.messages.last().unwrap();
    let (index, found) = client.find(prefix.clone(), &last.id).unwrap().unwrap();
    assert_eq!((index, &found.id), (want.messages.len() - 1, &last.id));
    assert!(client.find(prefix, "no-such-message").unwrap().is_none());
}

/// A server whose page names an earlier one as the next would be read forever: the read stops
/// with a protocol error instead.
#[test]
fn pages_that_do_not_move_on_are_a_protocol_error() {
    let memory = Memory::new(|input, output| {
        let (to_client, from_server) = pipe();
        std::thread::spawn(move || {
            let options = Options {
                roots: claude_roots(&claude_fixture()),
                cache_dir: None,
                resolve: Box::new(|r| Ok(r.clone())),
            };
            let _ = serve(input, to_client, options);
        });
        let mut output = output;
        for line in BufReader::new(from_server).lines().map_while(Result::ok) {
            let mut reply: Value = serde_json::from_str(&line).unwrap();
            if let Some(next) = reply.pointer_mut("/result/next").filter(|n| !n.is_null()) {
                *next = json!(0);
            }
            if writeln!(output, "{reply}").is_err() {
                return;
            }
        }
    });
    let mut client = Client::connect(Box::new(memory)).unwrap();
    let (_, sessions) = scanned(&claude_roots(&claude_fixture()));
    let session = sessions
        .iter()
        .find(|s| s.counts.user + s.counts.assistant > 1)
        .unwrap();
    let params = ShowParams {
        session: exact(session),
        offset: 0,
        limit: 1,
    };
    let first = client.show(&params).unwrap();
    assert_eq!(first.next, Some(0));
    let err = client
        .each_message(first, &mut |_| ControlFlow::Continue(()))
        .unwrap_err();
    assert_eq!(err.code(), "protocol", "{err}");
}
