//! Reading agents' SQLite stores safely while the agent writes them: read-only connections,
//! a short busy timeout instead of lock waits, no transaction held across queries, and columns
//! read by name because every release adds some.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use rusqlite::{types::ValueRef, Connection, OpenFlags, OptionalExtension, Row, Statement};

/// Opens a SQLite file for reading only, never creating it, and without leaving files in the
/// agent's directory: a WAL database read normally gets a `-wal` and `-shm` created beside it.
/// When neither exists, no writer is attached (a writer in WAL mode keeps both), so the file is
/// opened `immutable` (no side files, no locks); otherwise the agent's own side files are used
/// and WAL content is visible.
pub fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let side = |suffix: &str| {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        std::path::PathBuf::from(p).exists()
    };
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = if side("-wal") || side("-shm") || !path.exists() {
        Connection::open_with_flags(path, flags)?
    } else {
        let uri = format!("file:{}?immutable=1", uri_path(path));
        Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)?
    };
    conn.busy_timeout(Duration::from_millis(250))?;
    Ok(conn)
}

/// A path as the path part of a `file:` URI: `%`, `?` and `#` escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_a_quiet_wal_database_leaves_no_files_behind() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("odd?name#1%.db");
        {
            let w = Connection::open(&db).unwrap();
            w.pragma_update(None, "journal_mode", "wal").unwrap();
            w.execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
                .unwrap();
        }
        let before: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(before.len(), 1, "{before:?}");
        let conn = open_read_only(&db).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        assert!(
            conn.execute("INSERT INTO t VALUES (2)", []).is_err(),
            "must be read-only"
        );
        drop(conn);
        let after: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(after, before);
    }
}
