//! The messages a transcript builder still holds, so a transcript can be streamed.
//!
//! A builder merges later records into earlier messages (split records of one answer, tool
//! results into their calls), so it keeps the messages it built; to stream a transcript of
//! gigabytes with bounded memory it hands the oldest ones out once nothing can change them any
//! more. Messages keep their absolute index (the builders' maps point at them by index); an
//! index handed out already reads as `None`.

use std::collections::VecDeque;

use agent_sessions_model::{Message, Part, ToolStatus};

/// Messages a streaming builder keeps before it hands the oldest out; and the most it keeps
/// while the oldest still waits for a tool's result (then it hands it out anyway: a result
/// arriving later still shows, as a notice of its own).
pub const KEEP: usize = 256;
pub const KEEP_AT_MOST: usize = 4096;

pub struct Held {
    /// Absolute index of `items[0]`.
    base: usize,
    items: VecDeque<Message>,
    keep: usize,
    keep_at_most: usize,
    /// The last source line of any message handed out (0: none).
    released_to: u64,
}

impl Default for Held {
    fn default() -> Self {
        Held::with_limits(KEEP, KEEP_AT_MOST)
    }
}

impl Held {
    /// Other limits than [`KEEP`] and [`KEEP_AT_MOST`] (tests release early with small ones).
    pub fn with_limits(keep: usize, keep_at_most: usize) -> Self {
        Held {
            base: 0,
            items: VecDeque::new(),
            keep,
            keep_at_most: keep_at_most.max(keep),
            released_to: 0,
        }
    }

    /// Messages built so far (handed out or held).
    pub fn len(&self) -> usize {
        self.base + self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn push(&mut self, m: Message) {
        self.items.push_back(m);
    }

    pub fn get(&self, index: usize) -> Option<&Message> {
        self.items.get(index.checked_sub(self.base)?)
    }

    pub fn get_mut(&mut self, index: usize) -> Option<&mut Message> {
        self.items.get_mut(index.checked_sub(self.base)?)
    }

    pub fn last_mut(&mut self) -> Option<&mut Message> {
        self.items.back_mut()
    }

    /// Drops the newest message (a builder taking back what it just built).
    pub fn pop_last(&mut self) -> Option<Message> {
        self.items.pop_back()
    }

    /// Hands out the oldest messages while more than `keep` are held, stopping at one that
    /// still waits for a tool's result unless more than `keep_at_most` are held. Returns the
    /// first index still held (maps may forget what points below it).
    pub fn release(&mut self, out: &mut dyn FnMut(Message)) -> usize {
        while self.items.len() > self.keep {
            let waiting = self.items.front().is_some_and(has_pending_tool);
            if waiting && self.items.len() <= self.keep_at_most {
                break;
            }
            let Some(m) = self.items.pop_front() else {
                break;
            };
            self.base += 1;
            let last = m.source_lines.iter().max().copied().unwrap_or(0);
            self.released_to = self.released_to.max(last);
            out(m);
        }
        self.base
    }

    /// The first source line of the oldest message held.
    pub fn first_line(&self) -> Option<u64> {
        self.items.front()?.source_lines.iter().min().copied()
    }

    /// The line a later read of the same file, grown since, can start again at: the first line
    /// of the oldest message held, so every message that may still change is read again; and
    /// only when no message handed out has a line from there on (it would be read again in
    /// part, as another message). `None` when no message is held.
    pub fn resume_line(&self) -> Option<u64> {
        self.first_line().filter(|&line| line > self.released_to)
    }

    /// Everything still held, in order.
    pub fn into_rest(self) -> impl Iterator<Item = Message> {
        self.items.into_iter()
    }

    /// All messages of a builder that never released any.
    pub fn into_vec(self) -> Vec<Message> {
        debug_assert_eq!(self.base, 0, "messages were handed out already");
        self.items.into()
    }
}

fn has_pending_tool(m: &Message) -> bool {
    m.parts
        .iter()
        .any(|p| matches!(p, Part::Tool(t) if t.status == ToolStatus::Pending))
}
