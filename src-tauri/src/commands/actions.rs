//! Copy resume command, reveal source file.

use agent_sessions_core::actions::reveal;
use agent_sessions_core::view::ResumeView;
use agent_sessions_core::SessionMeta;
use tauri::State;

use super::{to_ui, CmdResult};
use crate::state::AppState;

#[tauri::command]
pub fn resume_command(state: State<'_, AppState>, session: SessionMeta) -> CmdResult<ResumeView> {
    let lib = state.library.lock().map_err(to_ui)?;
    let cmd = lib.catalog().resume_command(&session).map_err(to_ui)?;
    Ok(ResumeView::from(&cmd))
}

#[tauri::command]
pub fn reveal(session: SessionMeta) -> CmdResult<()> {
    reveal::reveal(&session.source_path).map_err(to_ui)
}
