//! The host picker: this computer, or a `Host` alias of the user's ssh config
//! (`agent_sessions_remote::hosts`; `AGENT_SESSIONS_SSH_CONFIG` names another config, passed
//! to ssh as `-F`), or on Windows a WSL distribution (`wsl:NAME`, through wsl.exe).
//! Choosing one connects (the picker shows the connection's error, which says
//! what to set up) and every session command then asks that host; a watcher on a second
//! connection (`watch`: the host pushes its changes; polling `changes` with an older server)
//! tells the window when its sessions change, as the local worker does. The machine chosen is
//! saved as `ui.host` and shown again at the next start (an alias no longer listed: this
//! computer, with a notice).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agent_sessions_core::paths::process_env;
use agent_sessions_remote::hosts;
use serde::Serialize;
use serde_json::json;
use tauri::{AppHandle, Emitter, Manager};

use super::settings::{save, Change};
use super::{off_main, CmdError, CmdResult};
use crate::remote::{Host, Watched, POLL_MS};
use crate::state::AppState;

#[derive(Serialize, ts_rs::TS)]
pub struct HostsView {
    /// The aliases, in the config's order.
    hosts: Vec<String>,
    /// The one shown (none: this computer).
    current: Option<String>,
    /// The ssh config read.
    config: Option<String>,
    /// Includes that could not be read.
    problems: Vec<String>,
    /// The host shown last time (`ui.host`), when it is still listed: the window starts on it.
    remembered: Option<String>,
    /// Why the window starts on this computer although another machine was remembered.
    forgotten: Option<String>,
}

/// The config read, and whether it was named (then ssh is given it with `-F`).
fn config() -> Option<(PathBuf, PathBuf, bool)> {
    let (config, ssh_dir) = hosts::user_config(&process_env)?;
    let named = process_env("AGENT_SESSIONS_SSH_CONFIG").is_some_and(|c| !c.is_empty());
    Some((config, ssh_dir, named))
}

fn view(state: &AppState) -> HostsView {
    let found = config().map(|(c, dir, _)| (hosts::list(&c, &dir), c));
    let (listed, path) = found.unzip();
    let listed = with_wsl(listed.unwrap_or_default());
    let config = path.map(|p| p.display().to_string());
    let (remembered, forgotten) = start_on(remembered(state), &listed.aliases, config.as_deref());
    HostsView {
        hosts: listed.aliases,
        current: state.remote.current().map(|h| h.alias.clone()),
        config,
        problems: listed.problems,
        remembered,
        forgotten,
    }
}

/// On Windows the WSL distributions join the ssh hosts as `wsl:NAME` (`wsl.exe -l -v`);
/// elsewhere the ssh config's list is the picker's.
#[cfg(windows)]
fn with_wsl(ssh: hosts::Hosts) -> hosts::Hosts {
    hosts::with_distros(ssh, &agent_sessions_remote::wsl::registered())
}

#[cfg(not(windows))]
fn with_wsl(ssh: hosts::Hosts) -> hosts::Hosts {
    ssh
}

/// The saved machine to start on when it is still listed; else why this computer is shown.
fn start_on(
    saved: Option<String>,
    listed: &[String],
    config: Option<&str>,
) -> (Option<String>, Option<String>) {
    match saved {
        Some(alias) if listed.contains(&alias) => (Some(alias), None),
        Some(alias) => {
            let notice = format!(
                "{alias}, the machine shown last time, is no longer a Host in {}: showing this computer",
                config.unwrap_or("the ssh config")
            );
            (None, Some(notice))
        }
        None => (None, None),
    }
}

/// The machine saved as shown (`ui.host`); none: this computer.
fn remembered(state: &AppState) -> Option<String> {
    let host = state.config.lock().ok()?.settings().ui.host;
    (!host.is_empty()).then_some(host)
}

/// Saves the machine shown for the next start (`ui.host`; this computer: the key removed).
/// A config that cannot be written costs only that memory, said as a warning.
fn remember(app: &AppHandle, state: &AppState, alias: Option<&str>) {
    if remembered(state).as_deref() == alias {
        return;
    }
    let change = Change::new("ui.host", alias.map(|a| json!(a)));
    if let Err(e) = save(state, &[change]) {
        let _ = app.emit(
            "warning",
            format!("The machine shown will not be remembered: {}", e.message),
        );
    }
}

#[tauri::command]
pub async fn hosts(app: AppHandle) -> CmdResult<HostsView> {
    off_main(app, |state| Ok(view(state))).await
}

/// Shows `alias` (one of the listed hosts) or, with none, this computer. Connecting runs ssh
/// in BatchMode, so a login that would prompt fails at once with what to set up.
#[tauri::command]
pub async fn select_host(app: AppHandle, alias: Option<String>) -> CmdResult<HostsView> {
    let handle = app.clone();
    off_main(app, move |state| {
        let Some(alias) = alias else {
            state.remote.set(None);
            remember(&handle, state, None);
            return Ok(view(state));
        };
        let listed = view(state);
        if !listed.hosts.contains(&alias) {
            return Err(CmdError::invalid_input(format!(
                "{alias:?} is not a Host in {}",
                listed.config.as_deref().unwrap_or("~/.ssh/config")
            )));
        }
        let named = config().filter(|c| c.2).map(|c| c.0);
        let host = Arc::new(Host::open(&alias, named)?);
        state.remote.set(Some(host.clone()));
        remember(&handle, state, Some(&alias));
        watch(handle, host);
        Ok(view(state))
    })
    .await
}

/// While `host` is shown, hears what changed there as the host pushes it (`watch`, on a
/// connection of its own) and tells the window (`sessions-changed`, as the local worker does).
/// A host whose server predates `watch` is polled instead; a watch that fails is a warning
/// (said once) and is set up again after [`POLL_MS`]. The watch ends at the server's next
/// event (a change, or its empty event every few seconds) once another machine is shown.
fn watch(app: AppHandle, host: Arc<Host>) {
    std::thread::spawn(move || {
        let mut said = String::new();
        loop {
            let shown = || app.state::<AppState>().remote.is(&host);
            let run = host.watch(&mut |d| {
                if !shown() {
                    return false;
                }
                said.clear();
                if d.reset || !d.changed.is_empty() || !d.removed.is_empty() {
                    changed(&app, d.changed.len(), d.removed.len(), d.seq);
                }
                true
            });
            match run {
                Ok(Watched::Unsupported) => return poll(&app, &host),
                Ok(Watched::Stopped) => return,
                Err(e) => warn(&app, &mut said, e),
            }
            std::thread::sleep(Duration::from_millis(POLL_MS));
            if !shown() {
                return;
            }
        }
    });
}

/// Tells the window its sessions changed (what the local worker sends).
fn changed(app: &AppHandle, changed: usize, removed: usize, seq: u64) {
    let event =
        json!({"changed": changed, "removed": removed, "first": false, "done": true, "seq": seq});
    let _ = app.emit("sessions-changed", event);
}

/// While `host` is shown, asks it what changed every [`POLL_MS`] and tells the window; a
/// failure is a warning, said once.
fn poll(app: &AppHandle, host: &Arc<Host>) {
    let mut cursor = None;
    let mut said = String::new();
    loop {
        std::thread::sleep(Duration::from_millis(POLL_MS));
        let state = app.state::<AppState>();
        if !state.remote.is(host) {
            return;
        }
        let seq = match cursor {
            Some(seq) => seq,
            None => match host.list() {
                Ok((_, seq)) => seq,
                Err(e) => {
                    warn(app, &mut said, e);
                    continue;
                }
            },
        };
        match host.changes(seq) {
            Ok(d) => {
                said.clear();
                // After a reset (the server started over) the next round lists again.
                cursor = (!d.reset).then_some(d.seq);
                if d.reset || !d.changed.is_empty() || !d.removed.is_empty() {
                    changed(app, d.changed.len(), d.removed.len(), d.seq);
                }
            }
            Err(e) => warn(app, &mut said, e),
        }
    }
}

fn warn(app: &AppHandle, said: &mut String, e: CmdError) {
    if *said != e.message {
        let _ = app.emit("warning", &e.message);
        *said = e.message;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_host_is_started_on_only_while_listed() {
        let listed = vec!["devbox".to_owned(), "gpu".to_owned()];
        let config = Some("/home/u/.ssh/config");
        assert_eq!(
            start_on(Some("gpu".into()), &listed, config),
            (Some("gpu".into()), None)
        );
        assert_eq!(start_on(None, &listed, config), (None, None));
        let (on, notice) = start_on(Some("old".into()), &listed, config);
        assert_eq!(on, None);
        assert_eq!(
            notice.as_deref(),
            Some("old, the machine shown last time, is no longer a Host in /home/u/.ssh/config: showing this computer")
        );
    }
}
