//! `follow`: a session's new events as they are written, as `log --follow` prints them, sent as
//! event lines of the request until the session ends, the client cancels, or the connection
//! closes. The core's [`Follower`] keeps the cursor and says when it fell out of its window
//! (`truncated`); a client that reconnects sends the cursor it kept and resumes from there.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use agent_sessions_core::live::follow::{Follower, Update};
use agent_sessions_core::{watch, Catalog, Error as CoreError};
use serde_json::json;

use super::State;
use crate::protocol::{FollowEvent, FollowParams, ServerLine, SessionRef};

/// How often liveness (and a cancel) is checked while nothing is written.
const TICK: Duration = Duration::from_millis(500);
/// File events closer than this are one wake.
const DEBOUNCE: Duration = Duration::from_millis(20);

pub(super) fn run(
    state: &State,
    id: u64,
    p: FollowParams,
    stop: &AtomicBool,
) -> Result<serde_json::Value, CoreError> {
    let by = SessionRef {
        id: p.id.clone(),
        provider: Some(p.provider),
        source_path: p.source_path.clone(),
    };
    let (catalog, session) = super::dispatch::find(state, &by)?;
    let catalog: &Catalog = &catalog;
    let (tx, rx) = mpsc::channel();
    // Without a watcher (none available) the tick alone polls.
    let _watcher = watch::watch(
        &watch::file_target(&session.source_path),
        DEBOUNCE,
        move |_| {
            let _ = tx.send(());
        },
    );
    let mut follower = Follower::new(session, p.cursor);
    let mut first = true;
    let cursor = loop {
        let update = follower.poll(catalog)?;
        let (ended, cursor) = (update.ended, update.cursor);
        let news = first || !update.events.is_empty() || update.truncated || ended;
        // A failed send: the connection is gone.
        if news && send(state, id, update).is_err() {
            break cursor;
        }
        first = false;
        if ended || stop.load(Ordering::SeqCst) {
            break cursor;
        }
        let _ = rx.recv_timeout(TICK);
        while rx.try_recv().is_ok() {}
    };
    let cancelled = stop.load(Ordering::SeqCst);
    Ok(json!({ "cursor": cursor, "cancelled": cancelled }))
}

fn send(state: &State, id: u64, u: Update) -> std::io::Result<()> {
    let event = FollowEvent {
        events: u.events,
        cursor: u.cursor,
        truncated: u.truncated,
        ended: u.ended,
    };
    state.out.send(&ServerLine {
        id: Some(id),
        event: Some(json!(event)),
        ..ServerLine::default()
    })
}
