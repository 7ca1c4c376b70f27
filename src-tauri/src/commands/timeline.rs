//! A session's normalized event timeline (what `agent-sessions-cli log` prints), for the
//! transcript's Timeline tab: core's follower, read once from the start.

use agent_sessions_core::live::follow::{Follower, Update};
use tauri::AppHandle;

use super::{off_main, CmdResult, SessionRef};

/// Every event of the session as `log` numbers them (`ended`: its `session_end` is included).
#[tauri::command]
pub async fn session_events(app: AppHandle, session: SessionRef) -> CmdResult<Update> {
    off_main(app, move |state| {
        if let Some(host) = state.remote.current() {
            return host.events(&session);
        }
        let meta = state.resolve(&session)?;
        let lib = state.service.library();
        Ok(Follower::new(meta, 0).poll(lib.catalog())?)
    })
    .await
}
