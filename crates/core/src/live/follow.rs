//! Following a growing session: each poll asks for everything since the cursor and gets the
//! new events, the next cursor, and `truncated` when the cursor fell out of the bounded window
//! of recent events (`related-remote-sessions.md`).

use serde::Serialize;

use super::events::{self, Event};
use crate::catalog::Catalog;
use crate::error::Error;
use crate::model::SessionMeta;
use crate::provider::files;

/// How many recent events a follower can hand out again.
pub const WINDOW: usize = 2000;

pub struct Follower {
    session: SessionMeta,
    cursor: u64,
    /// (size, mtime) of the source when last read: unchanged means nothing to read.
    seen: Option<(u64, i64)>,
    ended: bool,
}

/// What one poll found.
#[derive(Debug, Clone, Serialize)]
pub struct Update {
    pub events: Vec<Event>,
    pub cursor: u64,
    pub truncated: bool,
    /// The session is over (its agent stopped); nothing more will come.
    pub ended: bool,
}

impl Follower {
    /// Follows `session` from the start (`cursor` 0) or from a cursor a reader kept.
    pub fn new(session: SessionMeta, cursor: u64) -> Self {
        Follower {
            session,
            cursor,
            seen: None,
            ended: false,
        }
    }

    /// Everything new since the last poll.
    pub fn poll(&mut self, catalog: &Catalog) -> Result<Update, Error> {
        let mut current = [self.session.clone()];
        catalog.enrich(&mut current);
        let live = current[0].live;
        let stamp = files::stat(&self.session.source_path).ok();
        let unchanged = stamp.is_some() && stamp == self.seen;
        let ended = !live;
        if unchanged && ended == self.ended {
            return Ok(Update {
                events: Vec::new(),
                cursor: self.cursor,
                truncated: false,
                ended,
            });
        }
        self.seen = stamp;
        self.ended = ended;
        let transcript = catalog.load(&current[0])?;
        let all = events::project(&transcript.messages, ended);
        let (new, cursor, truncated) = events::since(&all, self.cursor, WINDOW);
        self.cursor = cursor;
        Ok(Update {
            events: new,
            cursor,
            truncated,
            ended,
        })
    }
}
