//! Where the next indexing of a growing session can start reading its file again, so that
//! an append to a live transcript costs the index a read of what the transcript builder held
//! open at its end (a window of messages), not of the whole file.
//!
//! Each shard keeps, per session of a provider that reads its files in part, the resume point
//! its last read returned (see `Provider::load_each_from`) with a hash of the bytes just before
//! it. The next read starts there only if those bytes are still the same (the file grew; it
//! was not rewritten or cut), and then touches only the index rows of messages from that line
//! on: the rows of earlier messages stay as they are.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use crate::provider::files::fnv1a;
use crate::provider::tail::{LineStart, Resume};

/// How many bytes before a resume point must be unchanged for a read to start there: a rewritten
/// file differs there with near certainty (Claude and Codex only ever append).
const CHECKED_BYTES: u64 = 4096;

/// A resume point as a shard stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub resume: Resume,
    /// The hash of the [`CHECKED_BYTES`] before `resume.from` when it was read.
    pub check: i64,
}

impl Stored {
    /// `resume` of the file at `path` as it is now; `None` when those bytes cannot be read.
    pub fn of(path: &Path, resume: Resume) -> Option<Stored> {
        let check = check_before(path, resume.from.offset)?;
        Some(Stored { resume, check })
    }

    /// Whether a read of the file at `path` can start here: the bytes before it are the same.
    pub fn holds(&self, path: &Path) -> bool {
        check_before(path, self.resume.from.offset) == Some(self.check)
    }

    /// The first line a read from here reads (1-based): rows of earlier lines stay.
    pub fn first_line(&self) -> u64 {
        self.resume.from.line + 1
    }
}

/// The hash of the bytes before `offset` (at most [`CHECKED_BYTES`]); `None` when the file is
/// shorter or cannot be read.
fn check_before(path: &Path, offset: u64) -> Option<i64> {
    let start = offset.saturating_sub(CHECKED_BYTES);
    let mut file = std::fs::File::open(path).ok()?;
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = vec![0; usize::try_from(offset - start).ok()?];
    file.read_exact(&mut bytes).ok()?;
    Some(fnv1a(&bytes) as i64)
}

/// The table, in each shard's file (`{db}`: `main` or an attached `text<k>`).
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS {db}.text_resume (
  session INTEGER PRIMARY KEY,
  offset INTEGER NOT NULL,
  line INTEGER NOT NULL,
  state BLOB NOT NULL,
  check_hash INTEGER NOT NULL
);
";

/// The resume point of `session` in database `db` of `conn`; none when a value is out of range
/// or of another type (a damaged file: a negative offset or line would wrap to a point that is
/// no line start). A point is only a shortcut: one that does not decode is read whole, not
/// an error that would stop every indexing pass, and the next read replaces it.
pub fn load(conn: &Connection, db: &str, session: i64) -> rusqlite::Result<Option<Stored>> {
    let stored = conn
        .prepare_cached(&format!(
            "SELECT offset, line, state, check_hash FROM {db}.text_resume WHERE session = ?1"
        ))?
        .query_row([session], |r| Ok(decode(r)))
        .optional()?;
    Ok(stored.flatten())
}

/// A `text_resume` row (offset, line, state, check_hash), when every value is in range: no more
/// lines before the point than bytes (a line ends in one at least), or the lines read from it
/// would be numbered past the rows they replace.
fn decode(r: &rusqlite::Row<'_>) -> Option<Stored> {
    let whole = |i: usize| u64::try_from(r.get::<_, i64>(i).ok()?).ok();
    let from = LineStart {
        offset: whole(0)?,
        line: whole(1)?,
    };
    (from.line <= from.offset).then_some(())?;
    Some(Stored {
        resume: Resume {
            from,
            state: r.get(2).ok()?,
        },
        check: r.get(3).ok()?,
    })
}

/// Keeps `resume` as the resume point of `session` in the writer's own file (none: forgets it).
pub fn save(tx: &Transaction<'_>, session: i64, resume: Option<&Stored>) -> rusqlite::Result<()> {
    let Some(s) = resume else {
        return forget(tx, "main", session);
    };
    tx.prepare_cached(
        "INSERT OR REPLACE INTO text_resume (session, offset, line, state, check_hash)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        session,
        s.resume.from.offset as i64,
        s.resume.from.line as i64,
        s.resume.state,
        s.check
    ])
    .map(drop)
}

/// Forgets the resume point of `session` in database `db`.
pub fn forget(tx: &Transaction<'_>, db: &str, session: i64) -> rusqlite::Result<()> {
    tx.prepare_cached(&format!("DELETE FROM {db}.text_resume WHERE session = ?1"))?
        .execute([session])
        .map(drop)
}
