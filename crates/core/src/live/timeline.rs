//! The whole event timeline of the few sessions a front end shows and asks for again as they
//! grow (the app's Timeline tab, the remote's `log`). Each answer is the session's events from
//! its start, as a new [`Follower`] from cursor 0 would give them; one follower per session is
//! kept between requests with the events it handed out, so a request after an append reads
//! about the append instead of the file's last 16 MiB again (issue 15).
//!
//! What is kept is bounded: at most [`KEPT`] sessions (the least recently asked for goes
//! first), each with at most [`WINDOW`] events, like a follower's own window. Each request
//! takes back the events of the messages a later record can still change (a tool's end, a
//! stop, the session's end: those the follower reads again anyway) and reads them again. A
//! kept follower is dropped and the session read again from its start when its file was
//! replaced (another file at that path) or shrank, or when more than the follower's window was
//! appended since.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use super::events::Event;
use super::follow::{Follower, PollCost, Update, WINDOW};
use crate::catalog::Catalog;
use crate::error::Error;
use crate::model::{ProviderKind, SessionMeta};

/// How many sessions' followers are kept: the sessions a few windows show.
pub const KEPT: usize = 4;

/// The followers of the sessions asked for last, newest first.
#[derive(Default)]
pub struct Timelines {
    kept: VecDeque<Kept>,
    cost: PollCost,
}

/// One session's follower and what it handed out so far.
struct Kept {
    key: Key,
    follower: Follower,
    events: Vec<Event>,
    truncated: bool,
    file: FileId,
}

/// A session by its agent, id and file: another file for the same id is another timeline.
#[derive(PartialEq, Eq)]
struct Key {
    provider: ProviderKind,
    id: String,
    path: PathBuf,
}

/// What tells a file that grew from one that was replaced or cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct FileId {
    size: u64,
    /// (device, inode) where the platform has them: a new file at the same path differs.
    node: Option<(u64, u64)>,
}

impl FileId {
    fn of(path: &Path) -> Self {
        let Ok(meta) = path.metadata() else {
            return FileId::default();
        };
        FileId {
            size: meta.len(),
            node: node(&meta),
        }
    }

    /// Whether a file first seen as `self` can have become `now` by appends only.
    fn grew_into(&self, now: &FileId) -> bool {
        now.size >= self.size && now.node == self.node
    }
}

#[cfg(unix)]
fn node(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn node(_meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

impl Timelines {
    /// Every event of `session` from its start (`truncated`: older ones are not among them),
    /// reading only what its file gained since the last request for it.
    pub fn read(&mut self, catalog: &Catalog, session: &SessionMeta) -> Result<Update, Error> {
        let key = Key {
            provider: session.provider,
            id: session.id.clone(),
            path: session.source_path.clone(),
        };
        let file = FileId::of(&session.source_path);
        let at = self.kept.iter().position(|k| k.key == key);
        let kept = at.and_then(|i| self.kept.remove(i));
        let (mut kept, fresh) = match kept.filter(|k| k.file.grew_into(&file)) {
            Some(mut k) => {
                // Liveness is judged from the session as listed now (Codex: its last write).
                k.follower.set_session(session.clone());
                k.take_back_open_messages();
                (k, false)
            }
            None => (Kept::new(key, session), true),
        };
        let mut update = kept.follower.poll(catalog)?;
        // More than the window was appended: read it again as a new follower would.
        if update.truncated && !fresh {
            kept = Kept::new(kept.key, session);
            update = kept.follower.poll(catalog)?;
        }
        self.cost = kept.follower.last_cost();
        kept.file = file;
        let whole = kept.add(update);
        self.kept.push_front(kept);
        self.kept.truncate(KEPT);
        Ok(whole)
    }

    /// What the last [`Timelines::read`] parsed and scanned of its session's file.
    pub fn last_cost(&self) -> PollCost {
        self.cost
    }

    /// How many sessions' followers are kept now.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Drops every kept follower (the roots changed).
    pub fn clear(&mut self) {
        self.kept.clear();
    }
}

impl Kept {
    fn new(key: Key, session: &SessionMeta) -> Self {
        Kept {
            key,
            follower: Follower::new(session.clone(), 0),
            events: Vec::new(),
            truncated: false,
            file: FileId::default(),
        }
    }

    /// Drops the events a later record can still change, for the next poll to hand them out
    /// again as they are now (a tool's end, the turn's stop, the session's end after a new
    /// last message).
    fn take_back_open_messages(&mut self) {
        let from = self.follower.rewind();
        self.events.retain(|e| e.seq <= from);
    }

    /// Adds a poll's new events; the whole timeline so far, the oldest beyond the window left
    /// out.
    fn add(&mut self, update: Update) -> Update {
        self.events.extend(update.events);
        let over = self.events.len().saturating_sub(WINDOW);
        self.events.drain(..over);
        self.truncated |= update.truncated || over > 0;
        Update {
            events: self.events.clone(),
            cursor: update.cursor,
            truncated: self.truncated,
            ended: update.ended,
        }
    }
}
