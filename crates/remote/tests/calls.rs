//! The typed calls of a `Client` (`calls.rs`) against a real server on a thread reading the
//! Claude, Codex and OpenCode fixture stores: each answer, read as the protocol's type, equals
//! what the core gives locally for the same store.

mod common;

use agent_sessions_core::index::{self, SearchFilter};
use agent_sessions_core::{Library, ProviderKind, ScanProgress, SessionMeta};
use agent_sessions_remote::protocol::*;
use agent_sessions_remote::Client;

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
