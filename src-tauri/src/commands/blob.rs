//! A transcript's blob on demand (a spilled tool output, a large tool result, an image): what
//! core's `blob::load_view` lets a window show of it, for the session the webview names.

use agent_sessions_core::blob::{self, BlobView};
use tauri::AppHandle;

use super::{off_main, CmdResult, SessionRef};

/// The key is the one the transcript gave the part; the session's files come from the
/// listing, never from the webview. An image only of a sniffed PNG/JPEG/GIF/WebP type; the
/// rest as text (the window shows it escaped), capped (`blob::MAX_TEXT_BYTES`,
/// `MAX_IMAGE_BYTES`).
#[tauri::command]
pub async fn load_blob(app: AppHandle, session: SessionRef, key: String) -> CmdResult<BlobView> {
    off_main(app, move |state| {
        if let Some(host) = state.remote.current() {
            return host.blob(&session, &key);
        }
        let meta = state.resolve(&session)?;
        let lib = state.service.library();
        // Only what is shown is read (a spilled output of gigabytes costs a megabyte).
        Ok(blob::load_view(lib.catalog(), &meta, &key)?)
    })
    .await
}
