//! The last loaded transcript, kept so that paging through a 40 MB session (a page at a time,
//! then finding a message, then translating one) reads it once, not once per page.
//!
//! It is read again when the session the caller names differs from the one held, or its
//! listing changed (`updated_at`), or its source file's size or mtime moved since the read: a
//! live agent appending makes the next page read the new lines. For a provider that reads its
//! files in part (Claude, Codex) that read starts where the read before said it could (its
//! resume point, see `Provider::load_each_linked`) when the file only grew (longer, and the
//! bytes before the point unchanged: the index's check, `index::resume::Stored`): the held
//! messages from that point on are replaced by what the read gives. So an append costs a read
//! of the messages the provider's builder still held open (a window), not of the whole file,
//! and the transcript is the one a whole read gives. Anything else (another session, a file
//! rewritten or cut, OpenCode, a single-document Codex rollout) is read whole.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::error::Error;
use crate::index::resume::Stored;
use crate::library::Library;
use crate::model::{Counts, Diagnostics, Message, SessionMeta, Transcript};
use crate::provider::files::stat;
use crate::provider::held::{KEEP, KEEP_AT_MOST};
use crate::provider::tail::{Links, Resume};
use crate::provider::Provider;

use super::lock;

/// A transcript as it was read.
struct Held {
    transcript: Transcript,
    /// Its source file's (size, mtime) when it was read.
    stamp: Option<(u64, i64)>,
    /// Where a read of the file, grown since, can start again (with the check of the bytes
    /// before it) and what that read needs of the ones before; `None`: read it whole.
    resume: Option<(Stored, Links)>,
}

/// How many times the cache read a transcript whole, and from a resume point after an append
/// (what the tests and the bench check an append costs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TranscriptReads {
    pub whole: u64,
    pub resumed: u64,
}

pub(crate) struct TranscriptCache {
    last: Mutex<Option<Held>>,
    /// The messages a read holds open (see `Links::with_window`).
    window: Mutex<(usize, usize)>,
    whole: AtomicU64,
    resumed: AtomicU64,
}

impl Default for TranscriptCache {
    fn default() -> Self {
        TranscriptCache {
            last: Mutex::new(None),
            window: Mutex::new((KEEP, KEEP_AT_MOST)),
            whole: AtomicU64::new(0),
            resumed: AtomicU64::new(0),
        }
    }
}

impl TranscriptCache {
    /// Runs `f` on `meta`'s transcript, reading it through `library` only when the one held is
    /// not that session as it is now (from its resume point when its file only grew).
    pub(crate) fn with<T>(
        &self,
        library: &Mutex<Library>,
        meta: &SessionMeta,
        f: impl FnOnce(&Transcript) -> T,
    ) -> Result<T, Error> {
        let mut cached = lock(&self.last);
        let stamp = stat(&meta.source_path).ok();
        let held = match cached.take() {
            Some(held) if is_now(&held, meta, stamp) => held,
            Some(held) if same_session(&held.transcript.session, meta) => {
                self.read(library, meta, stamp, Some(held))?
            }
            _ => self.read(library, meta, stamp, None)?,
        };
        Ok(f(&cached.insert(held).transcript))
    }

    /// Forgets the transcript held (the roots changed).
    pub(crate) fn clear(&self) {
        *lock(&self.last) = None;
    }

    /// Reads from now on hold `keep` messages open (`keep_at_most` while the oldest waits for
    /// a tool's result); the transcript held is forgotten.
    pub(crate) fn set_window(&self, keep: usize, keep_at_most: usize) {
        *lock(&self.window) = (keep, keep_at_most);
        self.clear();
    }

    pub(crate) fn reads(&self) -> TranscriptReads {
        TranscriptReads {
            whole: self.whole.load(Ordering::Relaxed),
            resumed: self.resumed.load(Ordering::Relaxed),
        }
    }

    /// `meta`'s transcript: `before` (the same session read earlier) brought up to date from
    /// its resume point when its file only grew, else a whole read.
    fn read(
        &self,
        library: &Mutex<Library>,
        meta: &SessionMeta,
        stamp: Option<(u64, i64)>,
        before: Option<Held>,
    ) -> Result<Held, Error> {
        let library = lock(library);
        let in_part = library.catalog().providers().get(meta.provider);
        let Some(provider) = in_part.filter(|p| p.reads_in_part(meta)) else {
            self.whole.fetch_add(1, Ordering::Relaxed);
            let transcript = library.load(meta)?;
            return Ok(Held {
                transcript,
                stamp,
                resume: None,
            });
        };
        let grown = before.filter(|held| only_grew(held, meta, stamp));
        if let Some(held) = grown.and_then(|held| resumed(provider, meta, stamp, held)) {
            self.resumed.fetch_add(1, Ordering::Relaxed);
            return Ok(held);
        }
        self.whole.fetch_add(1, Ordering::Relaxed);
        let (keep, keep_at_most) = *lock(&self.window);
        let links = Links::with_window(keep, keep_at_most);
        read_whole(provider, meta, stamp, links)
    }
}

/// Whether `held` is `meta`'s transcript as its file is now.
fn is_now(held: &Held, meta: &SessionMeta, stamp: Option<(u64, i64)>) -> bool {
    same_session(&held.transcript.session, meta)
        && held.transcript.session.updated_at == meta.updated_at
        && held.stamp == stamp
}

fn same_session(held: &SessionMeta, meta: &SessionMeta) -> bool {
    held.provider == meta.provider && held.id == meta.id && held.source_path == meta.source_path
}

/// Whether `held`'s file only grew since it was read: no shorter, and the bytes before its
/// resume point the same.
fn only_grew(held: &Held, meta: &SessionMeta, stamp: Option<(u64, i64)>) -> bool {
    let longer = matches!((held.stamp, stamp), (Some((was, _)), Some((is, _))) if is >= was);
    longer
        && held
            .resume
            .as_ref()
            .is_some_and(|(point, _)| point.holds(&meta.source_path))
}

/// The whole transcript, read so that it also says where a later read can start again.
fn read_whole(
    provider: &dyn Provider,
    meta: &SessionMeta,
    stamp: Option<(u64, i64)>,
    mut links: Links,
) -> Result<Held, Error> {
    let mut messages = Vec::new();
    let (diagnostics, resume) =
        provider.load_each_linked(meta, None, &mut links, &mut |m| messages.push(m))?;
    let transcript = Transcript {
        session: meta.clone(),
        messages,
        diagnostics,
    };
    Ok(Held {
        transcript: counted(transcript, meta),
        stamp,
        resume: checked(meta, resume, links),
    })
}

/// `held` brought up to date by a read from its resume point; `None` when that read fails or
/// says the messages before the point changed too (then read whole), or when which of the
/// diagnostics held lie before the point is not known (more problems than a report keeps).
fn resumed(
    provider: &dyn Provider,
    meta: &SessionMeta,
    stamp: Option<(u64, i64)>,
    mut held: Held,
) -> Option<Held> {
    let (point, mut links) = held.resume.take()?;
    let problems = &held.transcript.diagnostics;
    if problems.parse_errors > problems.items.len() as u64 {
        return None;
    }
    let mut read = Vec::new();
    let (diagnostics, next) = provider
        .load_each_linked(meta, Some(&point.resume), &mut links, &mut |m| read.push(m))
        .ok()?;
    if links.earlier_changed() {
        return None;
    }
    let spliced = splice(held.transcript, point.first_line(), read, diagnostics);
    Some(Held {
        transcript: counted(spliced, meta),
        stamp,
        resume: checked(meta, next, links),
    })
}

/// `transcript` with its messages from line `first` (1-based) on replaced by `read` (what a
/// read from there gave), and its diagnostics of those lines by `diagnostics`.
fn splice(
    mut transcript: Transcript,
    first: u64,
    read: Vec<Message>,
    diagnostics: Diagnostics,
) -> Transcript {
    let messages = &mut transcript.messages;
    let from = messages.iter().position(|m| starts_at_or_after(m, first));
    messages.truncate(from.unwrap_or(messages.len()));
    messages.extend(read);
    let held = std::mem::take(&mut transcript.diagnostics).items;
    let before: Vec<_> = held
        .into_iter()
        .filter(|d| d.line.is_some_and(|l| l < first))
        .collect();
    let mut merged = Diagnostics::default();
    let count = before.len() as u64 + diagnostics.parse_errors;
    before
        .into_iter()
        .chain(diagnostics.items)
        .for_each(|d| merged.push(d));
    merged.parse_errors = count;
    transcript.diagnostics = merged;
    transcript
}

/// Whether every line of `m` is `first` or later (messages are in the order of their first
/// lines, and those before a resume point end before it).
fn starts_at_or_after(m: &Message, first: u64) -> bool {
    m.source_lines.iter().min().is_some_and(|&l| l >= first)
}

/// `transcript` as a whole read describes it: `meta` as listed now, with the messages' counts.
fn counted(mut transcript: Transcript, meta: &SessionMeta) -> Transcript {
    transcript.session = meta.clone();
    transcript.session.counts = Counts::of(&transcript.messages);
    transcript
}

/// A resume point with the check of the bytes before it (none when they cannot be read).
fn checked(meta: &SessionMeta, resume: Option<Resume>, links: Links) -> Option<(Stored, Links)> {
    let point = Stored::of(&meta.source_path, resume?)?;
    Some((point, links))
}
