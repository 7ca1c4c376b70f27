//! The Stats view's figures: core's `stats` over the sessions the list shows.

use std::collections::HashSet;

use agent_sessions_core::stats::{self, By, Stats};
use tauri::AppHandle;

use super::{off_main, CmdError, CmdResult, SessionRef};

/// Sessions, messages, tokens and cost grouped `by` (dir, repo, agent, model, day, week), over
/// the sessions named in `sessions` (the list as filtered in the window), or over every listed
/// session when it is absent.
#[tauri::command]
pub async fn session_stats(
    app: AppHandle,
    by: String,
    sessions: Option<Vec<SessionRef>>,
) -> CmdResult<Stats> {
    let by = By::parse(&by).ok_or_else(|| {
        CmdError::invalid_input(format!(
            "{by:?} is not dir, repo, agent, model, day or week"
        ))
    })?;
    off_main(app, move |state| {
        let listing = match state.remote.current() {
            Some(host) => host.list()?.0,
            None => state.service.list()?,
        };
        let Some(only) = sessions else {
            return Ok(stats::stats(&listing.sessions, by));
        };
        // A ref with a file counts that file's session only (a copy beside it is another).
        let only: HashSet<_> = only
            .into_iter()
            .map(|r| (r.provider, r.id, r.source_path))
            .collect();
        let chosen = listing.sessions.iter().filter(|s| {
            let (p, id) = (s.provider, s.id.clone());
            only.contains(&(p, id.clone(), Some(s.source_path.clone())))
                || only.contains(&(p, id, None))
        });
        Ok(stats::stats(chosen, by))
    })
    .await
}
