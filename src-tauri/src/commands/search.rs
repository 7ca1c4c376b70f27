//! Full-text search: over what the worker has indexed, and the sessions it has not indexed yet
//! read directly, once the first list of sessions is made.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use agent_sessions_core::index::{Hit, SearchFilter, SearchResults};
use agent_sessions_core::service::Service;
use agent_sessions_core::{Error, Library, ProviderKind, Roots};
use serde::Serialize;
use tauri::AppHandle;
use ts_rs::TS;

use super::{off_main, CmdResult};

/// Most hits one search returns.
const MAX_LIMIT: usize = 500;

/// How long a search waits for the first list of sessions (a cold start's scan) before it
/// answers with what is listed so far, saying so.
const LISTING_WAIT: Duration = Duration::from_secs(30);

/// What a search found, and how complete that is.
#[derive(Debug, Serialize, TS)]
pub struct Found {
    pub hits: Vec<Hit>,
    /// Sessions whose text was not indexed yet, searched by reading them: their hits are all
    /// there, ranked by how recent they are until the index has them.
    pub read_directly: usize,
    /// Matches may be missing: some sessions could not be read, or the first list of sessions
    /// was not done yet (`listing`).
    pub partial: bool,
    /// The first list of sessions was still being made: sessions not listed yet were not
    /// searched.
    pub listing: bool,
}

impl Found {
    fn of(r: SearchResults, listed: bool) -> Found {
        Found {
            hits: r.hits,
            read_directly: r.read_directly,
            partial: r.partial || !listed,
            listing: !listed,
        }
    }
}

/// The library searches run on: their own, with its own connection to the cache (as another
/// process's would be). A first search on a big history reads every session not indexed yet
/// (a minute in a debug build on a busy machine at 300 MB); on the calls' library it held that
/// library all the while, so opening a session, the list and every action waited for it.
/// Opened again when the roots change; searches wait only for one another.
#[derive(Default)]
pub struct Searches(Mutex<Option<(RootsKey, Library)>>);

/// Roots as comparable data (`Roots` has no equality).
type RootsKey = Vec<(ProviderKind, Vec<PathBuf>)>;

impl Searches {
    pub fn search(
        &self,
        service: &Service,
        query: &str,
        filter: &SearchFilter,
    ) -> Result<SearchResults, Error> {
        let roots = service.roots();
        let key: RootsKey = roots.iter().map(|(k, dirs)| (k, dirs.to_vec())).collect();
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let library = match slot.take() {
            Some((was, library)) if was == key => library,
            _ => open(&roots, service),
        };
        let results = library.search_now(query, filter);
        *slot = Some((key, library));
        results
    }
}

fn open(roots: &Roots, service: &Service) -> Library {
    Library::open(roots, &[], service.cache_dir())
}

#[tauri::command]
pub async fn search(
    app: AppHandle,
    query: String,
    providers: Vec<ProviderKind>,
    limit: usize,
) -> CmdResult<Found> {
    off_main(app, move |state| {
        if let Some(host) = state.remote.current() {
            let results = host.search(&query, providers, limit.min(MAX_LIMIT))?;
            return Ok(Found::of(results, true));
        }
        let filter = SearchFilter {
            providers,
            limit: limit.min(MAX_LIMIT),
            ..SearchFilter::default()
        };
        let listed = state.service.wait_listed(LISTING_WAIT);
        let results = state.searches.search(&state.service, &query, &filter)?;
        Ok(Found::of(results, listed))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// A search answers while the calls' library is held (by a transcript being read, an
    /// action…), and the other way round: a long first search held it, and opening a session
    /// waited for the search to end.
    #[test]
    fn a_search_does_not_wait_for_the_calls_library() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut roots = Roots::default();
        roots.set(
            ProviderKind::Claude,
            [repo.join("testdata/claude/2.1.332/dot-claude")],
        );
        let cache = tempfile::tempdir().unwrap();
        let service = std::sync::Arc::new(Service::new(roots, Some(cache.path().to_path_buf())));
        service.refresh().unwrap();
        let held = service.library();
        let (tx, rx) = mpsc::channel();
        let searching = service.clone();
        std::thread::spawn(move || {
            let filter = SearchFilter {
                limit: 50,
                ..SearchFilter::default()
            };
            let found = Searches::default().search(&searching, "drwxr", &filter);
            let _ = tx.send(found.map(|r| (r.hits.len(), r.read_directly)));
        });
        let answer = rx.recv_timeout(Duration::from_secs(60));
        drop(held);
        let (hits, read_directly) = answer
            .expect("the search waited for the calls' library")
            .unwrap();
        // The fixture's `ls -la` output, found by reading the session (nothing indexed yet).
        assert!(
            hits >= 1 && read_directly >= 1,
            "{hits} hits, {read_directly} read"
        );
    }
}
