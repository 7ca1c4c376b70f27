//! Reading the end of a growing session file without reading all of it.
//!
//! A live session may be gigabytes long and is appended to every second; its turn state and its
//! latest events only need the last records. These helpers find a line start near the end of a
//! file and count lines between two offsets with a fixed-size buffer, so the work and memory of
//! each read are bounded by the window, never by the file.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// A position at the start of a line: the byte offset and how many lines precede it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineStart {
    pub offset: u64,
    pub line: u64,
}

/// Where a streamed read of a growing session file can start again (see
/// [`crate::Provider::load_each_from`]): a line start, and what the provider's transcript
/// builder carries over the lines before it (opaque to everyone else).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Resume {
    pub from: LineStart,
    pub state: Vec<u8>,
}

/// What a reader that keeps the whole transcript of a growing session file (the app's open
/// transcript) carries from one read to the next beside its [`Resume`] (see
/// [`crate::Provider::load_each_linked`]): what a resumed read needs to give every message what
/// a whole read would, where that depends on records before the resume point.
#[derive(Debug, Clone)]
pub struct Links {
    /// How many messages the reads hold open (see [`crate::held::Held::with_limits`]): the
    /// window a resumed read reads again.
    keep: (usize, usize),
    /// Claude: the message each record went into (record uuid → message id, line of the
    /// record), so a parent before the resume point is found as a whole read finds it. Kept as
    /// long as the transcript: a parent may be any earlier record.
    pub(crate) owners: std::collections::HashMap<String, (String, u64)>,
    /// Set by a resumed read after which a message before its point reads otherwise than it
    /// did (Codex: the rollout's first user item came, so the `user_message` events before it
    /// are no longer its prompts).
    pub(crate) earlier_changed: bool,
    /// Codex: the line of the first `user_message` event read (one before the point is what
    /// the first user item changes).
    pub(crate) first_user_event: Option<u64>,
}

impl Default for Links {
    fn default() -> Self {
        Links::with_window(crate::held::KEEP, crate::held::KEEP_AT_MOST)
    }
}

impl Links {
    /// Links whose reads hold `keep` messages open, `keep_at_most` while the oldest waits for
    /// a tool's result (tests make them small, so a resumed read starts well into a file).
    pub fn with_window(keep: usize, keep_at_most: usize) -> Self {
        Links {
            keep: (keep, keep_at_most),
            owners: Default::default(),
            earlier_changed: false,
            first_user_event: None,
        }
    }

    /// A new builder's held messages, as this window says.
    pub(crate) fn held(&self) -> crate::held::Held {
        crate::held::Held::with_limits(self.keep.0, self.keep.1)
    }

    /// Whether the last resumed read changed a message before its point: then what was kept
    /// from before it is stale, and the file must be read whole.
    pub fn earlier_changed(&self) -> bool {
        self.earlier_changed
    }
}

/// What a streamed read of a session file ends with: its diagnostics, and where a later read
/// of the file, grown since, can start again.
pub type Streamed = Result<(agent_sessions_model::Diagnostics, Option<Resume>), crate::Error>;

const BUF: usize = 64 << 10;

/// The first line start at or after `at` (the end of the file when no newline follows `at`).
/// Offset 0 is always a line start.
pub fn line_start_at_or_after(file: &mut File, at: u64) -> io::Result<u64> {
    if at == 0 {
        return Ok(0);
    }
    // A line starts at `at` exactly when the byte before it is a newline.
    file.seek(SeekFrom::Start(at - 1))?;
    let mut buf = vec![0u8; BUF];
    let mut pos = at - 1;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(pos);
        }
        if let Some(i) = memchr::memchr(b'\n', buf.get(..n).unwrap_or_default()) {
            return Ok(pos + i as u64 + 1);
        }
        pos += n as u64;
    }
}

/// Newlines in `[from, to)` of `file`.
pub fn count_lines(file: &mut File, from: u64, to: u64) -> io::Result<u64> {
    file.seek(SeekFrom::Start(from))?;
    let mut left = to.saturating_sub(from);
    let mut buf = vec![0u8; BUF];
    let mut lines = 0u64;
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = file.read(buf.get_mut(..want).unwrap_or_default())?;
        if n == 0 {
            break;
        }
        lines += memchr::memchr_iter(b'\n', buf.get(..n).unwrap_or_default()).count() as u64;
        left -= n as u64;
    }
    Ok(lines)
}

/// Where a window of about `max_bytes` at the end of `path` starts, with its line number
/// relative to `anchor` (a line start whose line number is known) — or to the file's start
/// when the window begins before the anchor. Reads at most the window plus the distance from
/// the anchor, so a caller that moves its anchor forward reads each byte about once.
pub fn window(path: &Path, max_bytes: u64, anchor: LineStart) -> io::Result<LineStart> {
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    let anchor = if anchor.offset > size {
        LineStart::default()
    } else {
        anchor
    };
    let want = size.saturating_sub(max_bytes).max(anchor.offset);
    let offset = line_start_at_or_after(&mut file, want)?;
    let line = anchor.line + count_lines(&mut file, anchor.offset, offset)?;
    Ok(LineStart { offset, line })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_with(text: &str) -> (tempfile::NamedTempFile, File) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        let handle = File::open(f.path()).unwrap();
        (f, handle)
    }

    #[test]
    fn finds_line_starts() {
        let (_f, mut file) = file_with("ab\ncd\n\nef");
        assert_eq!(line_start_at_or_after(&mut file, 0).unwrap(), 0);
        assert_eq!(line_start_at_or_after(&mut file, 1).unwrap(), 3);
        assert_eq!(line_start_at_or_after(&mut file, 3).unwrap(), 3);
        assert_eq!(line_start_at_or_after(&mut file, 4).unwrap(), 6);
        assert_eq!(line_start_at_or_after(&mut file, 7).unwrap(), 7);
        assert_eq!(
            line_start_at_or_after(&mut file, 8).unwrap(),
            9,
            "no newline: the end"
        );
        assert_eq!(count_lines(&mut file, 0, 9).unwrap(), 3);
        assert_eq!(count_lines(&mut file, 3, 7).unwrap(), 2);
    }

    #[test]
    fn windows_keep_absolute_line_numbers_as_the_anchor_moves() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), &text).unwrap();
        let whole = window(f.path(), u64::MAX, LineStart::default()).unwrap();
        assert_eq!(whole, LineStart::default());
        let w = window(f.path(), 100, LineStart::default()).unwrap();
        let before = &text[..w.offset as usize];
        assert!(before.ends_with('\n'));
        assert_eq!(w.line, before.matches('\n').count() as u64);
        // From an anchor the numbering agrees with counting from the start.
        let from_anchor = window(f.path(), 50, w).unwrap();
        let before = &text[..from_anchor.offset as usize];
        assert_eq!(from_anchor.line, before.matches('\n').count() as u64);
        // An anchor past the end (the file was replaced) counts from the start again.
        let reset = window(
            f.path(),
            100,
            LineStart {
                offset: 1 << 40,
                line: 7,
            },
        )
        .unwrap();
        assert_eq!(reset, w);
    }
}
