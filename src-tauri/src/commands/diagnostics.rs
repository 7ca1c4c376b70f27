//! The Diagnostics panel (SPEC §8) and its "Clear cache" (SPEC §9): core's `health` report over
//! the listing the service holds, and the service's own clearing.

use agent_sessions_core::health::{self, CacheInfo, Health};
use tauri::AppHandle;

use super::{off_main, CmdResult};

#[tauri::command]
pub async fn diagnostics(app: AppHandle) -> CmdResult<Health> {
    off_main(app, |state| {
        if let Some(host) = state.remote.current() {
            return host.health();
        }
        let service = &state.service;
        let listing = service.list()?;
        let roots = service.roots();
        let cache = CacheInfo::of(service.cache_dir().as_deref(), &roots);
        Ok(health::report(
            &roots,
            &listing,
            service.watcher_state(),
            cache,
        ))
    })
    .await
}

/// Empties our cache (never an agent's store; the window asked the user first) and rescans.
#[tauri::command]
pub async fn clear_cache(app: AppHandle) -> CmdResult<()> {
    off_main(app, |state| {
        state.remote.local_only("Clearing the cache")?;
        Ok(state.service.clear_cache()?)
    })
    .await
}
