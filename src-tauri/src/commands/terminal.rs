//! "Open terminal" and "Resume in terminal", and the installed terminals for the Settings
//! picker. Core's `actions::terminal` plans the launch (an argv per terminal, the agent found on
//! `PATH`, a missing directory refused) and starts it; this names the session and the terminal.

use std::path::PathBuf;

use agent_sessions_core::actions::terminal::{self, Host, Installed};
use serde::Serialize;
use tauri::AppHandle;

use super::{off_main, CmdError, CmdResult, SessionRef};

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
        let requested = configured(&state.settings()?.terminal.app);
        if let Some(host) = state.remote.current() {
            return open_remote(&host, &session, resume, requested.as_deref());
        }
        let meta = state.resolve(&session)?;
        let launch = {
            let lib = state.service.library();
            terminal::plan_session(
                lib.catalog(),
                &meta,
                requested.as_deref(),
                resume,
                &Host::this(),
            )
            .map_err(to_settings)?
        };
        terminal::launch(&launch).map_err(agent_sessions_core::Error::from)?;
        Ok(Opened {
            terminal: launch.terminal,
            cwd: launch.cwd,
        })
    })
    .await
}

/// A remote session: `ssh -t ALIAS '<command>'` in a local terminal, where the command is a
/// login shell in the session's directory there, or (`resume`) the resume command the remote
/// built. The terminal starts in the local home; ssh is found on `PATH` and given an argv.
fn open_remote(
    host: &crate::remote::Host,
    session: &SessionRef,
    resume: bool,
    requested: Option<&str>,
) -> CmdResult<Opened> {
    // Checked there first (the directory, the agent), as a local launch is: a refusal opens
    // nothing. The hold stays for what changes between the check and the launch.
    let there = if resume {
        host.resume_in_terminal(session)?
    } else {
        host.shell_in_dir(session)?
    };
    let ssh = host.ssh_command(&crate::remote::held(&there, &host.alias)?)?;
    let terminal = in_local_terminal(&ssh, requested)?;
    Ok(Opened {
        terminal,
        cwd: PathBuf::from(format!("{}:{}", host.alias, there.cwd().unwrap_or("~"))),
    })
}

/// Fails as [`in_local_terminal`] would when no terminal can be opened here (checked before
/// the host is asked to write anything).
pub(super) fn local_terminal_ready(requested: Option<&str>) -> CmdResult<()> {
    let here = Host::this();
    let found = terminal::installed(&here);
    terminal::choose(requested, &here, &found)
        .map_err(|e| to_settings(agent_sessions_core::Error::from(e)))?;
    Ok(())
}

/// Starts `ssh` (an `ssh -t ALIAS …` command) in the configured (or Automatic) terminal here,
/// in the local home; answers the terminal's id.
pub(super) fn in_local_terminal(
    ssh: &agent_sessions_core::actions::resume::ResumeCommand,
    requested: Option<&str>,
) -> CmdResult<&'static str> {
    let launch = agent_sessions_remote::terminal::local_terminal(ssh, requested)
        .map_err(|e| to_settings(agent_sessions_core::Error::from(e)))?;
    terminal::launch(&launch).map_err(agent_sessions_core::Error::from)?;
    Ok(launch.terminal)
}

/// A configured terminal that cannot be used, said with where to choose another: the notice
/// named the terminals installed and left the user to find where the choice is made.
fn to_settings(e: agent_sessions_core::Error) -> CmdError {
    let hint = matches!(e.code(), "terminal_not_installed" | "unknown_terminal");
    let mut error = CmdError::from(e);
    if hint {
        error
            .message
            .push_str(". Choose one under Terminal in Settings (the , key), or Automatic");
    }
    error
}

#[cfg(test)]
mod tests {
    use agent_sessions_core::actions::terminal::TerminalError;

    use super::*;

    #[test]
    fn a_terminal_that_cannot_be_used_says_where_to_choose_another() {
        let missing = TerminalError::NotInstalled {
            id: "alacritty",
            name: "Alacritty",
            installed: "xterm, kitty".into(),
        };
        let said = to_settings(missing.into());
        assert_eq!(
            said.message,
            "Alacritty (alacritty) is not installed here; the installed terminals are: xterm, kitty. \
             Choose one under Terminal in Settings (the , key), or Automatic"
        );
        // Nothing to choose in Settings when the directory is gone.
        let gone = to_settings(TerminalError::DirMissing("/w/gone".into()).into());
        assert!(!gone.message.contains("Settings"), "{}", gone.message);
    }
}
