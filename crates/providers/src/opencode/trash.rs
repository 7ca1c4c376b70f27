//! OpenCode's sessions for the trash engine (`capability::trash`): no trash, so only a
//! permanent deletion (with its opt-in). One session can have copies in several storage
//! generations (see [`super::copies_of`]), and every copy goes, or the next one would show the
//! session again:
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

use std::fs::DirEntry;
use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, TransactionBehavior};
use serde::Deserialize;

use super::{copies_of, Origin};
use crate::capability::trash::{
    child, open_for_writing, own_entries, Ask, Item, Planned, Refusal, Step, Trash,
};
use crate::capability::Capability;
use crate::{files, sqlite};

/// OpenCode's answer: no trash; a deletion is rows and JSON copies.
pub(super) const TRASH: Trash = Trash {
    trash: Capability::Lacks(
        "OpenCode has no trash or archive for sessions: an OpenCode session can only be deleted permanently",
    ),
    permanent: Capability::Has(plan),
    own_commands: false,
    archive_rows: None,
    delete_rows: Some(delete_rows),
};

fn plan(ctx: &Ask) -> Result<Planned, Refusal> {
    if ctx.include == Some(false) && !ctx.children.is_empty() {
        return Err(Refusal::SubagentsGoAlong(format!(
            "OpenCode deletes a session's child sessions with it; the session {} has {}, so they can only go along",
            ctx.session.id,
            ctx.children.len()
        )));
    }
    let mut files = Vec::new();
    let mut db_ids = Vec::new();
    // Message files left where they are, said after what goes.
    let mut left = Vec::new();
    for g in ctx.going() {
        for (origin, path) in copies_of(ctx.root, &g.id) {
            match origin {
                Origin::V1 | Origin::V2 => {
                    if !db_ids.contains(&g.id) {
                        db_ids.push(g.id.clone());
                    }
                }
                Origin::Json => files.extend(legacy_files(ctx.root, &path, &g.id, &mut left)),
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
            .map_err(|e| Refusal::Unsupported(format!("cannot read {}: {e}", db.display())))?;
        notes.push("the database rows are deleted for good: they cannot be restored".to_owned());
        steps.push(Step::DeleteRows {
            db,
            ids: db_ids,
            rows,
        });
    }
    notes.extend(left);
    if steps.is_empty() {
        return Err(Refusal::Stale(format!(
            "no copy of {} was found under {}",
            ctx.session.id,
            ctx.root.display()
        )));
    }
    Ok((steps, notes))
}

/// A legacy (1.0–1.1) copy: `storage/session/<project>/<id>.json`, `storage/message/<id>/`,
/// each of its messages' `storage/part/<messageID>/`, and its diff, todo and share files. What
/// is left where it is (see [`messages_and_parts`]) is said in `notes`.
fn legacy_files(
    root: &Path,
    session_file: &Path,
    id: &str,
    notes: &mut Vec<String>,
) -> Vec<PathBuf> {
    let storage = root.join("storage");
    let mut out = vec![session_file.to_path_buf()];
    out.extend(messages_and_parts(&storage, id, notes));
    for dir in ["session_diff", "todo", "share"] {
        out.push(storage.join(dir).join(format!("{id}.json")));
    }
    out
}

/// The session's message folder `storage/message/<id>/` and its messages' part folders. A part
/// folder `storage/part/<messageID>/` is named by the message alone, by a file anyone can
/// write into this folder: a message is believed only when its file says it is message
/// `<its name>` of this session and every part in its part folder says so too. One that is not
/// (a copy of another session's message, a forged one, `..json`) is left where it is with its
/// parts, a note names it, and the folder goes file by file instead of whole. A linked message
/// folder is another's: nothing is planned from what is behind it.
fn messages_and_parts(storage: &Path, id: &str, notes: &mut Vec<String>) -> Vec<PathBuf> {
    let folder = storage.join("message").join(id);
    let part = storage.join("part");
    let mut going = Vec::new();
    let mut parts = Vec::new();
    let mut left = false;
    for entry in own_entries(&folder) {
        let path = entry.path();
        let name = entry.file_name();
        // Not a message file (OpenCode reads `*.json` only): it goes with the folder.
        if !name.as_encoded_bytes().ends_with(b".json") {
            going.push(path);
            continue;
        }
        match message_parts(&part, &entry, id) {
            Ok(p) => {
                going.push(path);
                parts.extend(p);
            }
            Err(why) => {
                left = true;
                notes.push(format!(
                    "{} is left where it is, and so are the parts it names: {why}",
                    path.display()
                ));
            }
        }
    }
    let mut out = if left { going } else { vec![folder] };
    out.extend(parts);
    out
}

/// The part folder of the message file `entry` of session `id`, when the file and the parts
/// say they are this session's (none when the message has no parts); else why not.
fn message_parts(part: &Path, entry: &DirEntry, id: &str) -> Result<Option<PathBuf>, String> {
    let name = entry.file_name();
    let message = name
        .to_str()
        .and_then(|n| n.strip_suffix(".json"))
        .filter(|m| child(part, m).is_some())
        .ok_or("its name is not a message's")?;
    if !entry.file_type().is_ok_and(|t| t.is_file()) {
        return Err("it is not a file".into());
    }
    let said = owner(&entry.path())?;
    if said.session.as_deref() != Some(id) || said.id.as_deref() != Some(message) {
        return Err(format!(
            "it says it is message {} of session {}",
            said.id.as_deref().unwrap_or("(none)"),
            said.session.as_deref().unwrap_or("(none)")
        ));
    }
    let folder = part.join(message);
    match std::fs::symlink_metadata(&folder) {
        Err(_) => return Ok(None),
        Ok(m) if !m.is_dir() => return Err(format!("{} is not a folder", folder.display())),
        Ok(_) => {}
    }
    for p in own_entries(&folder) {
        let path = p.path();
        if !path.as_os_str().as_encoded_bytes().ends_with(b".json") {
            continue;
        }
        let said = owner(&path)?;
        if said.session.as_deref() != Some(id) || said.message.as_deref() != Some(message) {
            return Err(format!(
                "its part {} says it is of message {} of session {}",
                path.display(),
                said.message.as_deref().unwrap_or("(none)"),
                said.session.as_deref().unwrap_or("(none)")
            ));
        }
    }
    Ok(Some(folder))
}

/// Whose a message or part file says it is (its other fields are skipped, not kept).
#[derive(Deserialize)]
struct Owner {
    id: Option<String>,
    #[serde(rename = "sessionID")]
    session: Option<String>,
    #[serde(rename = "messageID")]
    message: Option<String>,
}

/// [`Owner`] of the JSON file at `path`, read as a stream of at most the size the reader reads
/// as one document (a regular file only: never a pipe or a device).
fn owner(path: &Path) -> Result<Owner, String> {
    let file = files::open_regular(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let reader = std::io::BufReader::new(file.take(files::MAX_DOCUMENT));
    serde_json::from_reader(reader).map_err(|e| format!("{} cannot be read: {e}", path.display()))
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
pub fn delete_rows(db: &Path, ids: &[String]) -> Result<(), String> {
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
