//! Forwards core's service to the window: its refresh loop (watcher or poll, refresh, then
//! text indexing in batches; `agent_sessions_core::service`) reports plain events, sent on as
//! `sessions-changed`, `scan-progress`, `index-progress` and `warning`. A long indexing pass
//! runs in a child process of this program (`--index-pass`, see `main`).

use agent_sessions_core::service::{index_process, Event, IndexProcess};
use tauri::{AppHandle, Emitter, Manager};

use crate::state::AppState;

pub fn start(app: AppHandle) {
    let window = app.clone();
    let service = &app.state::<AppState>().service;
    // A big store's first indexing runs in this program started again with `--index-pass`
    // (`main`), so the memory it churns leaves with that process (core's `index_process`).
    if let Ok(me) = std::env::current_exe() {
        service.index_elsewhere(IndexProcess::new(me, vec![index_process::ARG.into()]));
    }
    service.start(move |event| forward(&window, event));
}

fn forward(app: &AppHandle, event: Event) {
    let _ = match event {
        Event::Warning(w) => app.emit("warning", w),
        Event::Progress(p) => app.emit("scan-progress", p),
        Event::Changed(c) => app.emit("sessions-changed", c),
        Event::Indexing { pending } => app.emit("index-progress", pending),
    };
}
