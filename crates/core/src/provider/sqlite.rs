//! Reading agents' SQLite stores safely while the agent writes them: read-only connections,
//! a short busy timeout instead of lock waits, no transaction held across queries, and columns
//! read by name because every release adds some.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use rusqlite::{types::ValueRef, Connection, OpenFlags, OptionalExtension, Row, Statement};

/// Opens a SQLite file for reading only, never creating it. WAL content is visible.
pub fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_millis(250))?;
    Ok(conn)
}

pub fn has_table(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    let sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1";
    Ok(conn
        .query_row(sql, [name], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Column positions of a prepared statement, by name.
pub struct Columns(HashMap<String, usize>);

impl Columns {
    pub fn of(stmt: &Statement<'_>) -> Self {
        Columns(
            stmt.column_names()
                .enumerate()
                .map(|(i, n)| (n.to_owned(), i))
                .collect(),
        )
    }

    pub fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// A non-empty text column (numbers and blobs are not text).
    pub fn text(&self, row: &Row<'_>, name: &str) -> Option<String> {
        match row.get_ref(*self.0.get(name)?).ok()? {
            ValueRef::Text(t) => {
                let s = String::from_utf8_lossy(t).into_owned();
                (!s.is_empty()).then_some(s)
            }
            _ => None,
        }
    }

    pub fn integer(&self, row: &Row<'_>, name: &str) -> Option<i64> {
        match row.get_ref(*self.0.get(name)?).ok()? {
            ValueRef::Integer(i) => Some(i),
            ValueRef::Real(f) => Some(f as i64),
            _ => None,
        }
    }

    pub fn real(&self, row: &Row<'_>, name: &str) -> Option<f64> {
        match row.get_ref(*self.0.get(name)?).ok()? {
            ValueRef::Integer(i) => Some(i as f64),
            ValueRef::Real(f) => Some(f),
            _ => None,
        }
    }
}
