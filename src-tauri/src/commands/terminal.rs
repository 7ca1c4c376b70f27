//! "Open terminal" and "Resume in terminal", and the installed terminals for the Settings
//! picker. Core's `actions::terminal` plans the launch (an argv per terminal, the agent found on
//! `PATH`, a missing directory refused) and starts it; this names the session and the terminal.

use std::path::PathBuf;

use agent_sessions_core::actions::terminal::{self, Host, Installed};
use serde::Serialize;
use tauri::AppHandle;

use super::{off_main, CmdResult, SessionRef};

#[derive(Serialize, ts_rs::TS)]
pub struct Terminals {
    /// The known terminals found on this machine.
    installed: Vec<Installed>,
    /// The one Automatic picks here.
    automatic: Option<&'static str>,
    /// `[terminal] app` (None: Automatic).
    configured: Option<String>,
    /// The one the buttons open…
    chosen: Option<&'static str>,
    /// …or why none can be opened (the configured one is not installed, none is).
    problem: Option<String>,
}

#[tauri::command]
pub async fn terminals(app: AppHandle) -> CmdResult<Terminals> {
    off_main(app, |state| {
        let configured = configured(&state.settings()?.terminal.app);
        let host = Host::this();
        let installed = terminal::installed(&host);
        let automatic = terminal::automatic(&host, &installed).map(|t| t.id);
        let chosen = terminal::choose(configured.as_deref(), &host, &installed).map(|t| t.id);
        Ok(Terminals {
            automatic,
            configured,
            chosen: chosen.as_ref().ok().copied(),
            problem: chosen.err().map(|e| e.to_string()),
            installed,
        })
    })
    .await
}

/// The setting's terminal id, when it names one (empty is Automatic).
pub(super) fn configured(app: &str) -> Option<String> {
    Some(app.to_owned()).filter(|id| !id.is_empty())
}

#[derive(Serialize, ts_rs::TS)]
pub struct Opened {
    terminal: &'static str,
    cwd: PathBuf,
}

/// Opens the configured (or Automatic) terminal in the session's directory; with `resume`, it
/// runs the session's resume command there. An agent not on `PATH` is a `not_found` error that
/// carries the command to copy (`copy`).
#[tauri::command]
pub async fn open_terminal(app: AppHandle, session: SessionRef, resume: bool) -> CmdResult<Opened> {
    off_main(app, move |state| {
        let meta = state.resolve(&session)?;
        let requested = configured(&state.settings()?.terminal.app);
        let launch = {
            let lib = state.service.library();
            terminal::plan_session(
                lib.catalog(),
                &meta,
                requested.as_deref(),
                resume,
                &Host::this(),
            )?
        };
        terminal::launch(&launch).map_err(agent_sessions_core::Error::from)?;
        Ok(Opened {
            terminal: launch.terminal,
            cwd: launch.cwd,
        })
    })
    .await
}
