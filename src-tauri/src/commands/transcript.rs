//! Transcript pages, rendered and sanitized by core.

use agent_sessions_core::view::{self, TranscriptPage};
use agent_sessions_core::SessionMeta;
use tauri::State;

use super::{to_ui, CmdResult};
use crate::state::AppState;

fn with_transcript<T>(
    state: &AppState,
    session: &SessionMeta,
    f: impl FnOnce(&agent_sessions_core::Transcript) -> T,
) -> CmdResult<T> {
    let mut cached = state.transcript.lock().map_err(to_ui)?;
    let fresh = cached.as_ref().is_some_and(|t| {
        t.session.id == session.id
            && t.session.source_path == session.source_path
            && t.session.updated_at == session.updated_at
    });
    if !fresh {
        let lib = state.library.lock().map_err(to_ui)?;
        *cached = Some(lib.load(session).map_err(to_ui)?);
    }
    Ok(f(cached.as_ref().expect("loaded above")))
}

#[tauri::command]
pub fn load_transcript(
    state: State<'_, AppState>,
    session: SessionMeta,
    offset: usize,
    limit: usize,
) -> CmdResult<TranscriptPage> {
    with_transcript(&state, &session, |t| view::page(t, offset, limit))
}

/// Where a message is in its transcript (to open a search hit).
#[tauri::command]
pub fn find_message(
    state: State<'_, AppState>,
    session: SessionMeta,
    message_id: String,
) -> CmdResult<Option<usize>> {
    with_transcript(&state, &session, |t| view::position(t, &message_id))
}
