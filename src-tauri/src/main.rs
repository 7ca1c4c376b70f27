//! agent-sessions, the desktop app: a Tauri shell over `agent-sessions-core`. The commands in
//! `commands/` are thin translations of core calls; `worker` starts core's service (which keeps
//! the cache fresh in the background) and forwards its events to the UI; `nav` keeps the window
//! on the app itself. No logic of its own lives here.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

#[cfg(test)]
mod bindings;
mod commands;
mod memory;
mod nav;
mod remote;
mod state;
mod webkit;
mod worker;

use agent_sessions_core::service::index_process;

fn main() {
    // The service's indexing pass in a process of its own (`worker`): no window, no Tauri.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == index_process::ARG)
    {
        memory::configure();
        std::process::exit(index_process::main());
    }
    // Before GTK, WebKit or any thread starts.
    webkit::configure();
    memory::configure();
    // Before anything reads SQLite (an OpenCode store, the cache).
    agent_sessions_core::index::without_memory_statistics();
    let state = state::AppState::load();
    tauri::Builder::default()
        .manage(state)
        // Save dialogs are opened from Rust only: the window is granted none of its commands.
        .plugin(tauri_plugin_dialog::init())
        .setup(|app| {
            nav::main_window(app)?;
            worker::start(app.handle().clone());
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::sessions::list_sessions,
            commands::sessions::session_changes,
            commands::sessions::status,
            commands::sessions::open_demo,
            commands::transcript::load_transcript,
            commands::transcript::find_message,
            commands::raw::message_raw,
            commands::timeline::session_events,
            commands::translate::translate_message,
            commands::search::search,
            commands::actions::resume_command,
            commands::actions::reveal,
            commands::actions::open_link,
            commands::settings::get_settings,
            commands::settings::save_settings,
            commands::terminal::terminals,
            commands::terminal::open_terminal,
            commands::export::export_session,
            commands::handoff::continue_in,
            commands::handoff::handoff_text,
            commands::trash::trash_plan,
            commands::trash::trash_execute,
            commands::bundle::export_bundle,
            commands::bundle::bundle_redaction,
            commands::bundle::import_bundle_open,
            commands::bundle::import_bundle_pick_dir,
            commands::bundle::import_bundle_preview,
            commands::bundle::import_bundle_restore,
            commands::bundle::import_bundle_close,
            commands::bundle::import_bundle_continue,
            commands::stats::session_stats,
            commands::diagnostics::diagnostics,
            commands::diagnostics::clear_cache,
            commands::blob::load_blob,
            commands::hosts::hosts,
            commands::mcp::mcp_setup,
            commands::hosts::select_host,
        ])
        .build(tauri::generate_context!())
        .expect("the app window could not start")
        .run(|_, event| {
            // The private copies of agents' databases kept for reuse hold the user's sessions.
            if let tauri::RunEvent::Exit = event {
                agent_sessions_core::provider::sqlite::release_copies();
            }
        });
}
