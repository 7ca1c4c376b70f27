//! Transcript pages, rendered and sanitized by core.

use agent_sessions_core::provider::files::stat;
use agent_sessions_core::view::{self, TranscriptPage};
use agent_sessions_core::SessionMeta;
use tauri::State;

use super::{to_ui, CmdResult};
use crate::state::AppState;

/// Runs `f` on the session's transcript, loading it again only when the session or its
/// source file changed since the last load.
fn with_transcript<T>(
    state: &AppState,
    session: &SessionMeta,
    f: impl FnOnce(&agent_sessions_core::Transcript) -> T,
) -> CmdResult<T> {
    let mut cached = state.transcript.lock().map_err(to_ui)?;
    let stamp = stat(&session.source_path).ok();
    let fresh = cached.as_ref().is_some_and(|(t, s)| {
        let m = &t.session;
        m.id == session.id
            && m.source_path == session.source_path
            && m.updated_at == session.updated_at
            && *s == stamp
    });
    if !fresh {
        let lib = state.library.lock().map_err(to_ui)?;
        *cached = Some((lib.load(session).map_err(to_ui)?, stamp));
    }
    Ok(f(&cached.as_ref().expect("loaded above").0))
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
