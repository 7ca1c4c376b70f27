//! `log [--follow]`: print a session's event timeline, then (when following) new events as the
//! session grows. The session file's directory is watched; without a watcher it is polled.

use std::sync::mpsc;
use std::time::Duration;

use agent_sessions_core::live::events::Event;
use agent_sessions_core::live::follow::Follower;
use agent_sessions_core::watch;
use agent_sessions_core::{Catalog, Error, SessionMeta};

use crate::envelope::Envelope;

/// How often liveness is checked while nothing is written.
const LIVENESS_CHECK: Duration = Duration::from_secs(1);

pub fn run(
    catalog: &Catalog,
    session: SessionMeta,
    tail: Option<usize>,
    follow: bool,
    json: bool,
) -> Result<Envelope, Error> {
    let path = session.source_path.clone();
    let mut follower = Follower::new(session, 0);
    let first = follower.poll(catalog)?;
    let skip = tail.map_or(0, |n| first.events.len().saturating_sub(n));
    let shown = &first.events[skip..];
    if !follow {
        return Ok(Envelope::events(shown.to_vec(), first.cursor));
    }
    for e in shown {
        print_event(e, json);
    }
    if first.ended {
        // Said on stderr: a user tailing a file that is being written would wait for more.
        eprintln!(
            "note: no running agent holds this session, so it has ended: nothing more to follow"
        );
        return Ok(Envelope::silent());
    }
    let (tx, rx) = mpsc::channel();
    let watcher = watch::watch(
        &watch::file_target(&path),
        Duration::from_millis(30),
        move |_| {
            let _ = tx.send(());
        },
    );
    if let Err(e) = &watcher {
        eprintln!("warning: {e}");
    }
    loop {
        // Woken by a write, or by the clock to notice the agent has stopped.
        let _ = rx.recv_timeout(LIVENESS_CHECK);
        while rx.try_recv().is_ok() {}
        let update = follower.poll(catalog)?;
        if update.truncated {
            eprintln!("warning: fell behind; some events were skipped");
        }
        for e in &update.events {
            print_event(e, json);
        }
        if update.ended {
            return Ok(Envelope::silent());
        }
    }
}

pub(crate) fn print_event(e: &Event, json: bool) {
    if json {
        println!("{}", serde_json::to_string(e).unwrap_or_default());
        return;
    }
    println!(
        "{}",
        crate::render::terminal_safe(&crate::render::event_line(e))
    );
}
