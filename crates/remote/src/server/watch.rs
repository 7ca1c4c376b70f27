//! `watch`: the connection's change feed pushed as event lines, so a client holding a list
//! merges what changed as it changes instead of polling `changes`. Each event is what
//! `changes` would answer for the last cursor sent (a `reset` means list again); the stream
//! runs until the client cancels it or the connection closes. The feed lives in this process:
//! a cursor from another connection is answered with a `reset` event at once. While nothing
//! changes, an empty event every [`HEARTBEAT`] lets the client notice a dead link and stop a
//! watch it no longer needs (a client blocked reading hears nothing otherwise).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use agent_sessions_core::Error as CoreError;
use serde_json::{json, Value};

use super::State;
use crate::protocol::{ServerLine, WatchParams};

/// How often the feed's sequence is compared with the last one sent (an in-process read; the
/// refresh loop itself wakes on file events).
const TICK: Duration = Duration::from_millis(200);

/// The longest silence: an event with nothing in it (`changed` and `removed` empty, the same
/// `seq`) is sent after it.
pub const HEARTBEAT: Duration = Duration::from_secs(5);

pub(super) fn run(
    state: &State,
    id: u64,
    params: WatchParams,
    stop: &AtomicBool,
) -> Result<Value, CoreError> {
    let mut cursor = params.cursor;
    let service = state.service_running();
    let mut sent = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        let mut event = None;
        if service.seq() != cursor {
            let delta = service.delta(cursor)?;
            cursor = delta.seq;
            let news = delta.reset || !delta.changed.is_empty() || !delta.removed.is_empty();
            event = news.then(|| json!(delta));
        }
        if event.is_none() && sent.elapsed() >= HEARTBEAT {
            event = Some(json!({ "seq": cursor, "reset": false, "changed": [], "removed": [] }));
        }
        if let Some(event) = event {
            let line = ServerLine {
                id: Some(id),
                event: Some(event),
                ..ServerLine::default()
            };
            // A failed send: the connection is gone.
            if state.out.send(&line).is_err() {
                break;
            }
            sent = Instant::now();
        }
        std::thread::sleep(TICK);
    }
    Ok(json!({ "cursor": cursor, "cancelled": stop.load(Ordering::SeqCst) }))
}
