//! A store file's path in a column of the cache, byte for byte.
//!
//! A file name need not be UTF-8; stored lossily, two names that read alike (`bad\xff.jsonl`,
//! `bad\xfe.jsonl`) were one row, and a session's row could no longer be found by its path to
//! be updated or removed. So a path that is UTF-8 is stored as TEXT (as it always was, and
//! SQL still compares it with text), and any other as a BLOB of the OS's own string: SQLite
//! keeps a BLOB as it is in a TEXT column, and a BLOB never equals a TEXT, so each name has
//! its own row. The session's `meta` JSON carries a lossy path for display only
//! (`model::path`); reads take the path from the column.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// A path to bind as a statement's parameter.
pub(super) struct Stored<'a>(pub &'a Path);

impl ToSql for Stored<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self.0.to_str() {
            Some(text) => ToSqlOutput::from(text),
            None => ToSqlOutput::from(os_bytes(self.0.as_os_str())),
        })
    }
}

/// A path read from a column.
pub(super) struct Read(pub PathBuf);

impl FromSql for Read {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        match value {
            ValueRef::Text(text) => std::str::from_utf8(text)
                .map(|t| Read(PathBuf::from(t)))
                .map_err(|e| FromSqlError::Other(Box::new(e))),
            ValueRef::Blob(bytes) => Ok(Read(PathBuf::from(os_string(bytes)))),
            _ => Err(FromSqlError::InvalidType),
        }
    }
}

#[cfg(unix)]
pub(super) fn os_bytes(s: &std::ffi::OsStr) -> Vec<u8> {
    std::os::unix::ffi::OsStrExt::as_bytes(s).to_vec()
}

#[cfg(unix)]
fn os_string(bytes: &[u8]) -> OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes.to_vec())
}

/// Windows: the UTF-16 units (a name that is not UTF-8 holds an unpaired surrogate), little
/// endian.
#[cfg(windows)]
pub(super) fn os_bytes(s: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::windows::ffi::OsStrExt;
    s.encode_wide().flat_map(u16::to_le_bytes).collect()
}

#[cfg(windows)]
fn os_string(bytes: &[u8]) -> OsString {
    use std::os::windows::ffi::OsStringExt;
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    OsString::from_wide(&units)
}
