//! OpenCode: no trash, so only a permanent deletion (with its opt-in). One session can have
//! copies in several storage generations (see `provider::opencode`), and every copy goes, or
//! the next one would show the session again:
//!
//! - rows in `opencode.db` (v1 `session`/`message`/`part`, v2 `session_v2`/`session_message`)
//!   are deleted in one SQL transaction: every table with a `session_id` column, the event log
//!   (`event_sequence`/`event`, keyed by `aggregate_id`), and the session rows. It waits for
//!   OpenCode's own writers (busy timeout) and leaves the journal mode (WAL) as OpenCode set it.
//!   That is what `opencode session delete` (1.2 and later) removes, checked against it in the
//!   tests; no released OpenCode writes v2 rows, so none deletes them.
//! - JSON copies (1.0–1.1 storage, 0.x per-project storage) go to the OS trash: no OpenCode
//!   that reads them has a delete command (1.0.98 and 1.1.65 have `session list` only).
//!
//! OpenCode deletes a session's child sessions with it, and so do we.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, TransactionBehavior};

use super::{guard, open_for_writing, Context, Item, Mode, Step, TrashError};
use crate::provider::opencode::{copies_of, Origin};
use crate::provider::sqlite;

pub(super) fn plan(ctx: &Context) -> Result<(Vec<Step>, Vec<String>), TrashError> {
    if ctx.mode == Mode::Trash {
        return Err(TrashError::Unsupported(
            "OpenCode has no trash or archive for sessions: an OpenCode session can only be deleted permanently"
                .into(),
        ));
    }
    if ctx.include == Some(false) && !ctx.children.is_empty() {
        return Err(TrashError::SubagentsGoAlong(format!(
            "OpenCode deletes a session's child sessions with it; the session {} has {}, so they can only go along",
            ctx.session.id,
            ctx.children.len()
        )));
    }
    let mut files = Vec::new();
    let mut db_ids = Vec::new();
    for g in ctx.going() {
        for (origin, path) in copies_of(ctx.root, &g.id) {
            match origin {
                Origin::V1 | Origin::V2 => {
                    if !db_ids.contains(&g.id) {
                        db_ids.push(g.id.clone());
                    }
                }
                Origin::Json => files.extend(legacy_files(ctx.root, &path, &g.id)),
                Origin::Project => files.extend(project_files(&path, &g.id)),
            }
        }
    }
    let mut steps = Vec::new();
    let mut notes = Vec::new();
    let items: Vec<Item> = files.iter().filter_map(|p| Item::at(p)).collect();
    if !items.is_empty() {
        notes.push("OpenCode's JSON files of the session go to the trash".to_owned());
        steps.push(Step::OsTrash { items });
    }
    if !db_ids.is_empty() {
        let db = ctx.root.join("opencode.db");
        let rows = count_rows(&db, &db_ids)
            .map_err(|e| TrashError::Unsupported(format!("cannot read {}: {e}", db.display())))?;
        notes.push("the database rows are deleted for good: they cannot be restored".to_owned());
        steps.push(Step::DeleteRows {
            db,
            ids: db_ids,
            rows,
        });
    }
    if steps.is_empty() {
        return Err(TrashError::Stale(format!(
            "no copy of {} was found under {}",
            ctx.session.id,
            ctx.root.display()
        )));
    }
    Ok((steps, notes))
}

/// A legacy (1.0–1.1) copy: `storage/session/<project>/<id>.json`, `storage/message/<id>/`,
/// each of its messages' `storage/part/<messageID>/`, and its diff, todo and share files.
fn legacy_files(root: &Path, session_file: &Path, id: &str) -> Vec<PathBuf> {
    let storage = root.join("storage");
    let messages = storage.join("message").join(id);
    let mut out = vec![session_file.to_path_buf(), messages.clone()];
    let part = storage.join("part");
    // A message's parts are named by its file's name: `..json` or `.json` is no message, and
    // would name `part/.` (every session's parts). A linked message folder is another's.
    for m in guard::own_entries(&messages) {
        let name = m.file_name().to_string_lossy().into_owned();
        if let Some(parts) = name
            .strip_suffix(".json")
            .and_then(|id| guard::child(&part, id))
        {
            out.push(parts);
        }
    }
    for dir in ["session_diff", "todo", "share"] {
        out.push(storage.join(dir).join(format!("{id}.json")));
    }
    out
}

/// A 0.x copy: `project/<slug>/storage/session/{info/<id>.json, message/<id>/, part/<id>/,
/// share/<id>.json}`.
fn project_files(session_file: &Path, id: &str) -> Vec<PathBuf> {
    let Some(session) = session_file.parent().and_then(Path::parent) else {
        return vec![session_file.to_path_buf()];
    };
    vec![
        session_file.to_path_buf(),
        session.join("message").join(id),
        session.join("part").join(id),
        session.join("share").join(format!("{id}.json")),
    ]
}

/// The deletes, in order: (table, column) pairs whose rows name the sessions.
fn targets(conn: &Connection) -> rusqlite::Result<Vec<(String, &'static str)>> {
    let mut stmt = conn.prepare(
        "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p \
         WHERE m.type = 'table' AND p.name IN ('session_id', 'aggregate_id') ORDER BY m.name",
    )?;
    let mut out: Vec<(String, &'static str)> = stmt
        .query_map([], |r| {
            let table: String = r.get(0)?;
            let column: String = r.get(1)?;
            Ok((table, column))
        })?
        .filter_map(Result::ok)
        .map(|(t, c)| {
            let c = if c == "session_id" {
                "session_id"
            } else {
                "aggregate_id"
            };
            (t, c)
        })
        .collect();
    for table in ["session", "session_v2"] {
        if sqlite::has_table(conn, table)? {
            out.push((table.to_owned(), "id"));
        }
    }
    Ok(out)
}

/// A name from the agent's schema as an SQL identifier.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn placeholders(n: usize) -> String {
    vec!["?"; n].join(",")
}

/// Rows per table the deletion removes (read from a read-only view of the database).
fn count_rows(db: &Path, ids: &[String]) -> rusqlite::Result<Vec<(String, u64)>> {
    let conn = sqlite::open_read_only(db)?;
    let mut out = Vec::new();
    for (table, column) in targets(&conn)? {
        let n: i64 = conn.query_row(
            &format!(
                "SELECT count(*) FROM {} WHERE {column} IN ({})",
                quote(&table),
                placeholders(ids.len())
            ),
            rusqlite::params_from_iter(ids),
            |r| r.get(0),
        )?;
        if n > 0 {
            out.push((table, n as u64));
        }
    }
    Ok(out)
}

/// Deletes every row of the sessions `ids` in one transaction: all of them or none.
pub(crate) fn delete_rows(db: &Path, ids: &[String]) -> Result<(), String> {
    let mut conn = open_for_writing(db).map_err(|e| e.to_string())?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| format!("OpenCode's database is busy: {e}"))?;
    for (table, column) in targets(&tx).map_err(|e| e.to_string())? {
        tx.execute(
            &format!(
                "DELETE FROM {} WHERE {column} IN ({})",
                quote(&table),
                placeholders(ids.len())
            ),
            rusqlite::params_from_iter(ids),
        )
        .map_err(|e| format!("{table}: {e}"))?;
    }
    tx.commit().map_err(|e| e.to_string())
}
