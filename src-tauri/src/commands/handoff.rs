//! "Continue in…": the target agent started in the configured (or Automatic) terminal in the
//! session's directory, with a handoff of the session's work as its first prompt; or the handoff
//! alone, for the user to paste. Core's `actions::handoff` writes the document, plans the launch
//! and starts it; this names the session and the target (`docs/handoff.md`).

use std::path::PathBuf;

use agent_sessions_core::actions::handoff::{self, Budget, Handoff};
use agent_sessions_core::actions::terminal::Host;
use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::provider::registry;
use agent_sessions_core::{ProviderKind, SessionMeta};
use serde::Serialize;
use tauri::AppHandle;

use super::terminal::{configured, in_local_terminal, local_terminal_ready};
use super::{off_main, CmdError, CmdResult, SessionRef};
use crate::state::AppState;

#[derive(Serialize, ts_rs::TS)]
pub struct Continued {
    terminal: &'static str,
    cwd: PathBuf,
    target: ProviderKind,
    /// The handoff's length in characters.
    chars: usize,
}

pub(super) fn target_of(name: &str) -> CmdResult<ProviderKind> {
    ProviderKind::parse(name)
        .ok_or_else(|| CmdError::invalid_input(format!("{name:?} is not {}", registry::names_or())))
}

#[derive(Serialize, ts_rs::TS)]
pub struct HandoffText {
    markdown: String,
    chars: usize,
}

/// The session's handoff to `target`, to copy and paste (nothing is started or written).
#[tauri::command]
pub async fn handoff_text(
    app: AppHandle,
    session: SessionRef,
    target: String,
) -> CmdResult<HandoffText> {
    off_main(app, move |state| {
        let target = target_of(&target)?;
        if let Some(host) = state.remote.current() {
            let doc = host.handoff(&session, target)?;
            return Ok(HandoffText {
                chars: doc.chars,
                markdown: doc.markdown,
            });
        }
        let meta = state.resolve(&session)?;
        let lib = state.service.library();
        let doc = handoff::from_store(lib.catalog(), &meta, target, Budget::default())?;
        Ok(HandoffText {
            chars: doc.chars,
            markdown: doc.markdown,
        })
    })
    .await
}

/// Starts `target` (an agent's name) in a terminal in the session's directory
/// with the session's handoff as its first prompt; for a remote's session, the agent starts on
/// that host (over `ssh -t` in a terminal here). An agent not found is a `not_found` error
/// that carries the command to run by hand (`copy`).
#[tauri::command]
pub async fn continue_in(
    app: AppHandle,
    session: SessionRef,
    target: String,
) -> CmdResult<Continued> {
    off_main(app, move |state| {
        let target = target_of(&target)?;
        if let Some(host) = state.remote.current() {
            let requested = configured(&state.settings()?.terminal.app);
            // No terminal here: refused before the host writes its prompt file.
            local_terminal_ready(requested.as_deref())?;
            let (ssh, prepared) = host.handoff_launch(&session, target)?;
            let terminal = in_local_terminal(&ssh, requested.as_deref())?;
            return Ok(Continued {
                terminal,
                cwd: PathBuf::from(format!("{}:{}", host.alias, prepared.cwd.display())),
                target,
                chars: prepared.chars,
            });
        }
        let meta = state.resolve(&session)?;
        start(state, &meta, target, || {
            let lib = state.service.library();
            Ok(handoff::from_store(
                lib.catalog(),
                &meta,
                target,
                Budget::default(),
            )?)
        })
    })
    .await
}

/// Starts `target` in a terminal in `meta`'s directory with the handoff `doc` makes. Planned
/// first: a missing terminal, directory or agent costs no transcript read.
pub(super) fn start(
    state: &AppState,
    meta: &SessionMeta,
    target: ProviderKind,
    doc: impl FnOnce() -> CmdResult<Handoff>,
) -> CmdResult<Continued> {
    let requested = configured(&state.settings()?.terminal.app);
    let prompts = default_cache_dir()
        .map(|d| d.join("handoff"))
        .ok_or_else(|| CmdError::new_io("no cache folder on this system for the prompt"))?;
    let planned = handoff::plan(meta, target, requested.as_deref(), &Host::this(), &prompts)?;
    let doc = doc()?;
    handoff::launch(&planned, &doc.markdown)?;
    Ok(Continued {
        terminal: planned.launch.terminal,
        cwd: planned.launch.cwd,
        target,
        chars: doc.chars,
    })
}
