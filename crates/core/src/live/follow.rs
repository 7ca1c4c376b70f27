//! Following a growing session: each poll asks for everything since the cursor and gets the
//! new events, the next cursor, and `truncated` when the cursor fell out of the bounded window
//! of recent events (`related-remote-sessions.md`).
//!
//! A poll reads only the end of the session's file ([`WINDOW_BYTES`]), never all of it, so a
//! follower's work and memory are bounded however long the session is. Event numbers come from
//! the records' line numbers ([`super::events::SEQ_SLOTS`]), counted once from the file's start
//! and then only across the bytes the window moved over, so they are the same numbers a whole
//! read gives, and a cursor kept by one follower works with another.

use serde::Serialize;

use super::events::{self, Event, SEQ_SLOTS};
use super::tail::LineStart;
use crate::catalog::Catalog;
use crate::error::Error;
use crate::model::SessionMeta;
use crate::provider::files;

/// How many recent events a follower can hand out again.
pub const WINDOW: usize = 2000;
/// How much of the end of the session's file a poll reads.
pub const WINDOW_BYTES: u64 = 16 << 20;

pub struct Follower {
    session: SessionMeta,
    cursor: u64,
    /// (size, mtime) of the source when last read: unchanged means nothing to read.
    seen: Option<(u64, i64)>,
    ended: bool,
    /// Where the last window started: the next one's line numbers are counted from here.
    anchor: LineStart,
    window_bytes: u64,
}

/// What one poll found.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(rename = "Timeline")]
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
            anchor: LineStart::default(),
            window_bytes: WINDOW_BYTES,
        }
    }

    /// Reads windows of `bytes` instead of [`WINDOW_BYTES`] (tests, and readers that want less).
    pub fn with_window_bytes(mut self, bytes: u64) -> Self {
        self.window_bytes = bytes.max(1);
        self
    }

    /// Everything new since the last poll.
    pub fn poll(&mut self, catalog: &Catalog) -> Result<Update, Error> {
        let ended = !catalog.is_live(&self.session);
        let stamp = files::stat(&self.session.source_path).ok();
        let unchanged = stamp.is_some() && stamp == self.seen;
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
        let (transcript, start) =
            catalog.load_tail(&self.session, self.window_bytes, self.anchor)?;
        self.anchor = start;
        let from_start = start.offset == 0;
        let all = events::project_window(&transcript.messages, from_start, ended);
        // Lines before the window hold events this read cannot see.
        let floor = if from_start {
            0
        } else {
            (start.line + 1) * SEQ_SLOTS
        };
        let (new, cursor, truncated) = events::since(&all, self.cursor, WINDOW, floor);
        self.cursor = cursor;
        Ok(Update {
            events: new,
            cursor,
            truncated,
            ended,
        })
    }
}
