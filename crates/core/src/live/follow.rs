//! Following a growing session: each poll asks for everything since the cursor and gets the
//! new events, the next cursor, and `truncated` when the cursor fell out of the bounded window
//! of recent events (`related-remote-sessions.md`).
//!
//! A poll never reads the whole file. The first reads the file's last [`WINDOW_BYTES`]; each
//! later one reads from the first line of the earliest message a later record could still
//! change (see [`Follower::next_start`]) — about what was appended since the last poll — and
//! only when that is more than the window, the window again. So a poll after an append costs
//! in proportion to the append, and memory is bounded by the window, however long the session.
//! Event numbers come from the records' line numbers ([`super::events::SEQ_SLOTS`]), counted
//! once from the file's start and then only across the bytes the read start moved over, so
//! they are the same numbers a whole read gives, and a cursor kept by one follower works with
//! another.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use serde::Serialize;

use super::events::{self, Event, SEQ_SLOTS};
use super::tail::LineStart;
use crate::catalog::Catalog;
use crate::error::Error;
use crate::model::{Message, Role, SessionMeta};
use crate::provider::files;

/// How many recent events a follower can hand out again.
pub const WINDOW: usize = 2000;
/// The most of the end of the session's file a poll reads.
pub const WINDOW_BYTES: u64 = 16 << 20;

pub struct Follower {
    session: SessionMeta,
    cursor: u64,
    /// (size, mtime) of the source when last read: unchanged means nothing to read.
    seen: Option<(u64, i64)>,
    ended: bool,
    /// Where the next read starts (a line start whose number is known): the first line of the
    /// earliest message a later record could still change. Only moves forward.
    next: LineStart,
    window_bytes: u64,
    cost: PollCost,
}

/// What the last poll read of the session's file: the window it parsed, and what it scanned
/// only for line starts (counting lines up to a window, finding the next read's start).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PollCost {
    /// Bytes parsed: from where the read started to the end of the file (a store the provider
    /// reads whole: the size of its file).
    pub parsed: u64,
    /// Bytes scanned for newlines, not parsed.
    pub scanned: u64,
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
            next: LineStart::default(),
            window_bytes: WINDOW_BYTES,
            cost: PollCost::default(),
        }
    }

    /// Reads windows of `bytes` instead of [`WINDOW_BYTES`] (tests, and readers that want less).
    pub fn with_window_bytes(mut self, bytes: u64) -> Self {
        self.window_bytes = bytes.max(1);
        self
    }

    /// Takes the session as listed now: liveness is judged from it (a Codex session is live
    /// while its last write is recent), so a follower kept between requests gets it again.
    pub fn set_session(&mut self, session: SessionMeta) {
        self.session = session;
    }

    /// Goes back to hand out again, at the next poll, the events of the messages a later
    /// record can still change (those from where the next read starts, [`Follower::next_start`]:
    /// a tool's end, the turn's stop, the session's end), as they are then; that poll reads
    /// the file even if unchanged. Returns the cursor it went back to: a reader that shows
    /// every event drops its events after it and takes the next poll's instead.
    pub fn rewind(&mut self) -> u64 {
        // From the file's start everything is read again (the session's start moves to the
        // first shown message once there is one).
        let floor = if self.next.offset == 0 {
            0
        } else {
            (self.next.line + 1) * SEQ_SLOTS
        };
        self.cursor = self.cursor.min(floor);
        self.seen = None;
        self.cursor
    }

    /// What the last poll read (zero when it found the file unchanged).
    pub fn last_cost(&self) -> PollCost {
        self.cost
    }

    /// Everything new since the last poll.
    pub fn poll(&mut self, catalog: &Catalog) -> Result<Update, Error> {
        let ended = !catalog.is_live(&self.session);
        let stamp = files::stat(&self.session.source_path).ok();
        let unchanged = stamp.is_some() && stamp == self.seen;
        self.cost = PollCost::default();
        if unchanged && ended == self.ended {
            return Ok(Update {
                events: Vec::new(),
                cursor: self.cursor,
                truncated: false,
                ended,
            });
        }
        self.seen = stamp;
        let size = stamp.map_or(0, |(size, _)| size);
        let anchor = self.next;
        let (transcript, start) = catalog.load_tail(&self.session, self.window_bytes, anchor)?;
        // A Codex session is live while its last record is recent: judged from the session as
        // first listed, a followed session would end two minutes after the follow began.
        let moved = self.take_last_write(&transcript.messages);
        let ended = if ended && moved {
            !catalog.is_live(&self.session)
        } else {
            ended
        };
        self.ended = ended;
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
        self.cost = PollCost {
            parsed: size.saturating_sub(start.offset),
            // The lines counted from the anchor to a window that had to start later.
            scanned: start.offset.saturating_sub(anchor.offset),
        };
        let kind = self.session.provider;
        let provider = catalog.providers().get(kind);
        if provider.is_some_and(|p| p.reads_in_part(&self.session)) {
            let (next, scanned) = self.next_start(&transcript.messages, start);
            self.next = next;
            self.cost.scanned += scanned;
        }
        Ok(Update {
            events: new,
            cursor,
            truncated,
            ended,
        })
    }

    /// Moves the session's last write to the newest message read, if newer; whether it moved.
    fn take_last_write(&mut self, messages: &[Message]) -> bool {
        let newest = messages.iter().filter_map(|m| m.timestamp).max();
        match newest {
            Some(t) if self.session.updated_at.is_none_or(|u| u < t) => {
                self.session.updated_at = Some(t);
                true
            }
            _ => false,
        }
    }

    /// Where the next read starts after a read from `start` found `messages`, and how many
    /// bytes finding its offset scanned. A record appended later changes only these messages,
    /// so a read from the earliest of them gives the events a whole read gives from there on:
    /// - the last message (Claude's compaction summary fills it in; a Codex compaction takes
    ///   back the reply just before it);
    /// - the last assistant message (Claude's split records of one answer join it; so do a
    ///   Codex step's reasoning and tool calls);
    /// - a message of the current turn whose tool call waits for its result;
    /// - the message of the cursor's event, so the read never starts past what was handed out
    ///   (`truncated` stays for events that truly fell out of the window);
    /// - and never inside a message: one whose records began before the start would be read
    ///   in part.
    ///
    /// While a read from the file's start holds no visible message, it stays there: the
    /// session's start event goes to the first visible message.
    fn next_start(&self, messages: &[Message], start: LineStart) -> (LineStart, u64) {
        let first_line = |m: &Message| m.source_lines.first().copied();
        let Some(mut line) = messages.last().and_then(first_line) else {
            return (start, 0);
        };
        let visible = |m: &&Message| !m.meta && !m.sidechain;
        if start.offset == 0 && !messages.iter().any(|m| visible(&m)) {
            return (start, 0);
        }
        let last_assistant = messages.iter().rev().find(|m| m.role == Role::Assistant);
        let turn = messages
            .iter()
            .rposition(|m| visible(&m) && m.role == Role::User && m.counted)
            .unwrap_or(0);
        let waiting = messages.get(turn..).unwrap_or_default().iter();
        let waiting = waiting.filter(|m| events::has_pending_tool(m));
        for m in last_assistant.into_iter().chain(waiting) {
            line = line.min(first_line(m).unwrap_or(line));
        }
        let cursor_line = self.cursor / SEQ_SLOTS;
        if cursor_line > start.line {
            line = line.min(cursor_line);
        }
        // Never start at a hidden message (a Codex `user_message` event repeating the prompt
        // just before it): read without what came before, it would pass for a prompt of its
        // own. Start at the shown message before it.
        let hidden = |m: &Message| first_line(m) == Some(line) && !visible(&m);
        if let Some(at) = messages.iter().rposition(hidden) {
            let shown = messages.get(..at).unwrap_or_default().iter().rev();
            if let Some(first) = shown.filter(visible).find_map(first_line) {
                line = first;
            }
        }
        // Messages begin in line order: one pass from the end moves the start before every
        // message that began before it and goes on after it.
        for m in messages.iter().rev() {
            let (Some(&first), Some(&last)) = (m.source_lines.first(), m.source_lines.iter().max())
            else {
                continue;
            };
            if first < line && last >= line {
                line = first;
            }
        }
        if line <= start.line + 1 {
            return (start, 0);
        }
        match line_start(&self.session.source_path, start, line) {
            Ok(Some(next)) => (next, next.offset - start.offset),
            // The file changed under the read: read from the same place again.
            _ => (start, 0),
        }
    }
}

/// The start of line `line` (1-based) of `path`, counting from `from`, a line start before
/// it whose number is known; `None` when the file ends first.
fn line_start(path: &Path, from: LineStart, line: u64) -> io::Result<Option<LineStart>> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(from.offset))?;
    let mut left = line.saturating_sub(from.line + 1);
    let mut buf = vec![0u8; 64 << 10];
    let mut pos = from.offset;
    while left > 0 {
        let n = file.read(&mut buf)?;
        let Some(read) = buf.get(..n).filter(|r| !r.is_empty()) else {
            return Ok(None);
        };
        for i in memchr::memchr_iter(b'\n', read) {
            left -= 1;
            if left == 0 {
                return Ok(Some(LineStart {
                    offset: pos + i as u64 + 1,
                    line: line - 1,
                }));
            }
        }
        pos += n as u64;
    }
    Ok(Some(from))
}
