//! The session list, the app's status, and the demo store.

use agent_sessions_core::paths::missing_dirs;
use agent_sessions_core::ScanReport;
use serde::Serialize;
use tauri::{AppHandle, Manager};

use super::{off_main, CmdError, CmdResult};
use crate::state::{demo_dir, demo_roots};

#[derive(Serialize, ts_rs::TS)]
pub struct SessionList {
    #[serde(flatten)]
    report: ScanReport,
    missing_dirs: Vec<String>,
}

/// What the cache holds now; the worker sends `sessions-changed` when a refresh changed it.
#[tauri::command]
pub async fn list_sessions(app: AppHandle) -> CmdResult<SessionList> {
    off_main(app, |state| {
        let report = state.service.list()?;
        let missing_dirs = missing_dirs(&report.sessions);
        Ok(SessionList {
            report,
            missing_dirs,
        })
    })
    .await
}

#[derive(Serialize, ts_rs::TS)]
pub struct Status {
    demo: bool,
    demo_available: bool,
    warnings: Vec<String>,
    pending_text: usize,
}

#[tauri::command]
pub async fn status(app: AppHandle) -> CmdResult<Status> {
    let resources = app.path().resource_dir().ok();
    off_main(app, move |state| {
        let lib = state.service.library();
        // The settings file's problems first (file:line: key: what), then the library's.
        let config = state.config.lock()?;
        let problems = config.warnings().iter().map(|w| w.to_string());
        Ok(Status {
            demo: *state.demo.lock()?,
            demo_available: demo_dir(resources).is_some(),
            warnings: problems.chain(lib.warnings().iter().cloned()).collect(),
            pending_text: lib.pending_text(),
        })
    })
    .await
}

/// Switches to the bundled demo store (the test fixtures), for a first look without sessions.
#[tauri::command]
pub async fn open_demo(app: AppHandle) -> CmdResult<()> {
    let resources = app.path().resource_dir().ok();
    off_main(app, move |state| {
        let dir = demo_dir(resources)
            .ok_or_else(|| CmdError::not_found("the demo store is not installed"))?;
        state.switch(demo_roots(&dir), true);
        Ok(())
    })
    .await
}
