//! Transcript pages, rendered and sanitized by core.

use agent_sessions_core::provider::files::stat;
use agent_sessions_core::view::{self, TranscriptPage};
use agent_sessions_core::Transcript;
use tauri::AppHandle;

use super::{off_main, CmdResult, SessionRef};
use crate::state::AppState;

/// Runs `f` on the session's transcript, loading it again only when the session or its
/// source file changed since the last load.
pub(super) fn with_transcript<T>(
    state: &AppState,
    session: &SessionRef,
    f: impl FnOnce(&Transcript) -> T,
) -> CmdResult<T> {
    let meta = state.resolve(session)?;
    let mut cached = state.transcript.lock()?;
    let stamp = stat(&meta.source_path).ok();
    let fresh = cached.as_ref().is_some_and(|(t, s)| {
        let m = &t.session;
        m.provider == meta.provider
            && m.id == meta.id
            && m.source_path == meta.source_path
            && m.updated_at == meta.updated_at
            && *s == stamp
    });
    let transcript = match cached.take() {
        Some(entry) if fresh => entry,
        _ => (state.library.lock()?.load(&meta)?, stamp),
    };
    Ok(f(&cached.insert(transcript).0))
}

#[tauri::command]
pub async fn load_transcript(
    app: AppHandle,
    session: SessionRef,
    offset: usize,
    limit: usize,
) -> CmdResult<TranscriptPage> {
    off_main(app, move |state| {
        with_transcript(state, &session, |t| view::page(t, offset, limit))
    })
    .await
}

/// Where a message is in its transcript (to open a search hit).
#[tauri::command]
pub async fn find_message(
    app: AppHandle,
    session: SessionRef,
    message_id: String,
) -> CmdResult<Option<usize>> {
    off_main(app, move |state| {
        with_transcript(state, &session, |t| view::position(t, &message_id))
    })
    .await
}
