//! Full-text search over what the worker has indexed.

use agent_sessions_core::index::{Hit, SearchFilter};
use agent_sessions_core::ProviderKind;
use tauri::State;

use super::{to_ui, CmdResult};
use crate::state::AppState;

#[tauri::command]
pub fn search(
    state: State<'_, AppState>,
    query: String,
    providers: Vec<ProviderKind>,
    limit: usize,
) -> CmdResult<Vec<Hit>> {
    let lib = state.library.lock().map_err(to_ui)?;
    let filter = SearchFilter {
        providers,
        limit,
        ..SearchFilter::default()
    };
    lib.search_indexed(&query, &filter).map_err(to_ui)
}
