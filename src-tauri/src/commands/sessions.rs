//! The session list, the app's status, and the demo store.

use agent_sessions_core::paths::missing_dirs;
use agent_sessions_core::{ScanProgress, ScanReport};
use serde::Serialize;
use tauri::{Manager, State};

use super::{to_ui, CmdResult};
use crate::state::{demo_dir, demo_roots, AppState};

#[derive(Serialize)]
pub struct SessionList {
    #[serde(flatten)]
    report: ScanReport,
    missing_dirs: Vec<String>,
}

/// What the cache holds now; the worker sends `sessions-changed` when a refresh changed it.
#[tauri::command]
pub fn list_sessions(state: State<'_, AppState>) -> CmdResult<SessionList> {
    let lib = state.library.lock().map_err(to_ui)?;
    let report = lib.listed(&ScanProgress::default()).map_err(to_ui)?;
    let missing_dirs = missing_dirs(&report.sessions);
    Ok(SessionList {
        report,
        missing_dirs,
    })
}

#[derive(Serialize)]
pub struct Status {
    demo: bool,
    demo_available: bool,
    warnings: Vec<String>,
    pending_text: usize,
}

#[tauri::command]
pub fn status(app: tauri::AppHandle, state: State<'_, AppState>) -> CmdResult<Status> {
    let lib = state.library.lock().map_err(to_ui)?;
    Ok(Status {
        demo: *state.demo.lock().map_err(to_ui)?,
        demo_available: demo_dir(app.path().resource_dir().ok()).is_some(),
        warnings: lib.warnings().to_vec(),
        pending_text: lib.pending_text(),
    })
}

/// Switches to the bundled demo store (the test fixtures), for a first look without sessions.
#[tauri::command]
pub fn open_demo(app: tauri::AppHandle, state: State<'_, AppState>) -> CmdResult<()> {
    let dir = demo_dir(app.path().resource_dir().ok()).ok_or("the demo store is not installed")?;
    state.switch(demo_roots(&dir), true);
    Ok(())
}
