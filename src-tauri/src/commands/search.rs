//! Full-text search over what the worker has indexed.

use agent_sessions_core::index::{Hit, SearchFilter};
use agent_sessions_core::ProviderKind;
use tauri::AppHandle;

use super::{off_main, CmdResult};

/// Most hits one search returns.
const MAX_LIMIT: usize = 500;

#[tauri::command]
pub async fn search(
    app: AppHandle,
    query: String,
    providers: Vec<ProviderKind>,
    limit: usize,
) -> CmdResult<Vec<Hit>> {
    off_main(app, move |state| {
        if let Some(host) = state.remote.current() {
            return host.search(&query, providers, limit.min(MAX_LIMIT));
        }
        let filter = SearchFilter {
            providers,
            limit: limit.min(MAX_LIMIT),
            ..SearchFilter::default()
        };
        Ok(state.service.library().search_indexed(&query, &filter)?)
    })
    .await
}
