//! Full-text search: over what the worker has indexed, and the sessions it has not indexed yet
//! read directly, once the first list of sessions is made.

use std::time::Duration;

use agent_sessions_core::index::{Hit, SearchFilter, SearchResults};
use agent_sessions_core::ProviderKind;
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
        let results = state.service.library().search_now(&query, &filter)?;
        Ok(Found::of(results, listed))
    })
    .await
}
