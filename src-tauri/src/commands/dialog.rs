//! The native file dialogs, opened from Rust (the window is granted none of the dialog
//! plugin's commands, so every path the app writes or reads comes from here), and the check
//! that keeps what the app writes out of the agents' stores.

use std::path::{Path, PathBuf};

use agent_sessions_core::actions::export::refuse_agent_store;
use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::{DialogExt, FileDialogBuilder, FilePath};

use super::{CmdError, CmdResult};
use crate::state::{resolved, AppState};

/// A dialog titled `title` over the main window, starting in the downloads folder (else home).
pub fn native(app: &AppHandle, title: &str) -> FileDialogBuilder<tauri::Wry> {
    let mut dialog = app.dialog().file().set_title(title);
    if let Some(dir) = app
        .path()
        .download_dir()
        .ok()
        .filter(|d| d.is_dir())
        .or_else(|| app.path().home_dir().ok())
    {
        dialog = dialog.set_directory(dir);
    }
    if let Some(window) = app.get_webview_window("main") {
        dialog = dialog.set_parent(&window);
    }
    dialog
}

/// What the dialog chose, as a path; `None`: it was cancelled.
pub fn chosen(picked: Option<FilePath>) -> CmdResult<Option<PathBuf>> {
    match picked {
        None => Ok(None),
        Some(p) => p
            .into_path()
            .map(Some)
            .map_err(|e| CmdError::invalid_input(format!("the dialog chose no file path: {e}"))),
    }
}

/// Refuses `path` inside an agent's store: the one shown, or the configured ones (the demo
/// store may be shown).
pub fn refuse_stores(state: &AppState, path: &Path) -> CmdResult<()> {
    refuse_agent_store(&state.roots(), path)?;
    let config = state.config.lock()?.clone();
    if let Ok(configured) = resolved(&config) {
        refuse_agent_store(&configured.roots(), path)?;
    }
    Ok(())
}
