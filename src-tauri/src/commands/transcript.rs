//! Transcript pages, rendered and sanitized by core, from the service's transcript cache (a
//! session is read once while it is paged through).

use agent_sessions_core::view::{self, TranscriptPage};
use tauri::AppHandle;

use super::{off_main, CmdResult, SessionRef};

#[tauri::command]
pub async fn load_transcript(
    app: AppHandle,
    session: SessionRef,
    offset: usize,
    limit: usize,
) -> CmdResult<TranscriptPage> {
    off_main(app, move |state| match state.remote.current() {
        Some(host) => host.page(&session, offset, limit),
        None => state.with_transcript(&session, |t| view::page(t, offset, limit)),
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
    off_main(app, move |state| match state.remote.current() {
        Some(host) => host.position(&session, &message_id),
        None => state.with_transcript(&session, |t| view::position(t, &message_id)),
    })
    .await
}
