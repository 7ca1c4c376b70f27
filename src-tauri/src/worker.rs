//! Forwards core's service to the window: its refresh loop (watcher or poll, refresh, then
//! text indexing in batches; `agent_sessions_core::service`) reports plain events, sent on as
//! `sessions-changed`, `scan-progress`, `index-progress` and `warning`.

use agent_sessions_core::service::Event;
use tauri::{AppHandle, Emitter, Manager};

use crate::state::AppState;

pub fn start(app: AppHandle) {
    let window = app.clone();
    app.state::<AppState>()
        .service
        .start(move |event| forward(&window, event));
}

fn forward(app: &AppHandle, event: Event) {
    let _ = match event {
        Event::Warning(w) => app.emit("warning", w),
        Event::Progress(p) => app.emit("scan-progress", p),
        Event::Changed(c) => app.emit("sessions-changed", c),
        Event::Indexing { pending } => app.emit("index-progress", pending),
    };
}
