//! The session list, the app's status, and the demo store.

use agent_sessions_core::paths::missing_dirs;
use agent_sessions_core::provider::SessionKey;
use agent_sessions_core::{ScanReport, SessionMeta};
use serde::Serialize;
use tauri::{AppHandle, Manager};

use super::{off_main, CmdError, CmdResult, SessionRef};
use crate::state::{demo_dir, demo_roots};

#[derive(Serialize, ts_rs::TS)]
pub struct SessionList {
    #[serde(flatten)]
    report: ScanReport,
    missing_dirs: Vec<String>,
    /// The change sequence the list is as of: `session_changes` from it.
    seq: u64,
}

/// What the cache holds now; the worker sends `sessions-changed` when a refresh changed it,
/// and the window then asks `session_changes` for only what changed.
#[tauri::command]
pub async fn list_sessions(app: AppHandle) -> CmdResult<SessionList> {
    off_main(app, |state| {
        if let Some(host) = state.remote.current() {
            // A remote's directories are not on this machine: none is said to be missing.
            let (report, seq) = host.list()?;
            return Ok(SessionList {
                report,
                missing_dirs: Vec::new(),
                seq,
            });
        }
        // Taken first: whatever changes while listing is asked for again after it.
        let seq = state.service.seq();
        let report = state.service.list()?;
        let missing_dirs = missing_dirs(&report.sessions);
        Ok(SessionList {
            report,
            missing_dirs,
            seq,
        })
    })
    .await
}

/// What changed after a cursor (core's `Service::delta`), with which of the changed sessions'
/// directories do not exist here.
#[derive(Serialize, ts_rs::TS)]
pub struct SessionChanges {
    /// The cursor to ask with next.
    seq: u64,
    /// The cursor is from other roots: list again (nothing else is filled).
    reset: bool,
    changed: Vec<SessionMeta>,
    removed: Vec<SessionRef>,
    missing_dirs: Vec<String>,
}

/// The sessions changed or removed after `seq`, so the window merges them instead of listing
/// everything again; `reset` (other roots): list again.
#[tauri::command]
pub async fn session_changes(app: AppHandle, seq: u64) -> CmdResult<SessionChanges> {
    off_main(app, move |state| {
        if let Some(host) = state.remote.current() {
            let d = host.changes(seq)?;
            return Ok(SessionChanges {
                seq: d.seq,
                reset: d.reset,
                changed: d.changed,
                removed: refs(d.removed),
                missing_dirs: Vec::new(),
            });
        }
        let delta = state.service.delta(seq)?;
        Ok(SessionChanges {
            seq: delta.seq,
            reset: delta.reset,
            missing_dirs: missing_dirs(&delta.changed),
            changed: delta.changed,
            removed: refs(delta.removed),
        })
    })
    .await
}

/// The sessions a change feed names, as the window names them.
fn refs(keys: Vec<SessionKey>) -> Vec<SessionRef> {
    keys.into_iter()
        .map(|k| SessionRef {
            provider: k.provider,
            id: k.id,
            source_path: Some(k.source_path),
        })
        .collect()
}

#[derive(Serialize, ts_rs::TS)]
pub struct Status {
    demo: bool,
    demo_available: bool,
    warnings: Vec<String>,
    pending_text: usize,
    /// The first refresh on these roots is done. The window also hears it as a
    /// `sessions-changed` event, but one sent before its listeners were set up is lost, and
    /// an idle service sends no other.
    listed: bool,
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
            listed: state.service.wait_listed(std::time::Duration::ZERO),
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
