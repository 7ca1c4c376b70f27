//! The agent's own records behind one message (the raw-JSON view), read by core's `raw` from
//! the session's files as the listing knows them (a remote host's: read there by the same call,
//! the `raw` method); the webview names only the session and the message.

use agent_sessions_core::raw::{self, RawRecords};
use tauri::AppHandle;

use super::{off_main, CmdError, CmdResult, SessionRef};

#[tauri::command]
pub async fn message_raw(
    app: AppHandle,
    session: SessionRef,
    message_id: String,
) -> CmdResult<RawRecords> {
    off_main(app, move |state| {
        if let Some(host) = state.remote.current() {
            return host.raw(&session, &message_id);
        }
        let message = state
            .with_transcript(&session, |t| {
                t.messages.iter().find(|m| m.id == message_id).cloned()
            })?
            .ok_or_else(|| {
                CmdError::not_found(format!("no message {message_id:?} in this session"))
            })?;
        let meta = state.resolve(&session)?;
        let lib = state.service.library();
        Ok(raw::records(lib.catalog(), &meta, &message)?)
    })
    .await
}
