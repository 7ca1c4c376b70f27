//! Cline's indexes of its sessions, kept in step with the session files by the trash and the
//! restore (docs/formats.md, "Cline"): 3.x's `data/db/sessions.db` (table `sessions`, a row per
//! session and per subagent; a subagent's row names its parent in `parent_session_id`) and
//! 2.x's / the extension's `state/taskHistory.json` (a JSON array, an entry per task, by `id`).
//!
//! Cline 3.x lists a session from its row even when the session's folder is gone (and from the
//! folder's `<id>.json` when the row is gone): both must go for the session to leave its list.
//! Cline 2.x and the extension list the tasks of `taskHistory.json` alone.

use std::io::Write;
use std::path::{Path, PathBuf};

use rusqlite::TransactionBehavior;
use serde_json::value::RawValue;
use serde_json::Value;

use super::parts::str_of;
use crate::capability::trash::open_for_writing;
use crate::{files, sqlite};

/// The file name of 2.x's task list (what [`delete`] tells it apart by).
pub(super) const HISTORY: &str = "taskHistory.json";

/// 3.x's index of the store's data folder `data`.
pub(super) fn sessions_db(data: &Path) -> PathBuf {
    data.join("db").join("sessions.db")
}

/// 2.x's task list of the store's data folder `data`.
pub(super) fn history_path(data: &Path) -> PathBuf {
    data.join("state").join(HISTORY)
}

/// The rows of the sessions `ids` and of their subagents.
const WHERE: &str = "session_id IN (SELECT value FROM json_each(?1)) \
                     OR parent_session_id IN (SELECT value FROM json_each(?1))";

fn ids_json(ids: &[String]) -> String {
    Value::from(ids.to_vec()).to_string()
}

/// How many rows of `db` name the sessions `ids` or have them as parent (read-only); 0 when
/// the database has no `sessions` table.
pub(super) fn count_rows(db: &Path, ids: &[String]) -> rusqlite::Result<u64> {
    let conn = sqlite::open_read_only(db)?;
    if !sqlite::has_table(&conn, "sessions")? {
        return Ok(0);
    }
    let n: i64 = conn.query_row(
        &format!("SELECT count(*) FROM sessions WHERE {WHERE}"),
        [ids_json(ids)],
        |r| r.get(0),
    )?;
    Ok(n.max(0) as u64)
}

/// The trash engine's deletion (`Trash::delete_rows`) for either index: the rows of `ids` in
/// one transaction (as `cline history delete` deletes them: the session's row and its
/// subagents'), or their entries cut out of a `taskHistory.json` written again at once
/// ([`remove`]).
pub(super) fn delete(index: &Path, ids: &[String]) -> Result<(), String> {
    if index.file_name().is_some_and(|n| n == HISTORY) {
        return remove(index, ids);
    }
    let mut conn = open_for_writing(index).map_err(|e| e.to_string())?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| format!("Cline's database is busy: {e}"))?;
    tx.execute(
        &format!("DELETE FROM sessions WHERE {WHERE}"),
        [ids_json(ids)],
    )
    .map_err(|e| format!("sessions: {e}"))?;
    tx.commit().map_err(|e| e.to_string())
}

/// The entries of `history` whose `id` is one of `ids`.
pub(super) fn count_entries(history: &Path, ids: &[String]) -> Result<u64, String> {
    let bytes = read_list(history)?;
    let tasks = entries(history, &bytes)?;
    let n = tasks.iter().filter(|t| named(t, ids)).count();
    Ok(n as u64)
}

/// The task list's text, within the size a document may have.
fn read_list(history: &Path) -> Result<Vec<u8>, String> {
    files::read_document(history, files::MAX_DOCUMENT)
        .map_err(|e| format!("cannot read {}: {e}", history.display()))
}

/// One entry of the task list: its bytes as Cline wrote them (an edit keeps them as they are)
/// and its id.
struct Task<'a> {
    raw: &'a RawValue,
    id: Option<String>,
}

/// The task list's entries, read strictly: an array of objects whose `id`, if any, is a
/// string, each read whole (within serde_json's nesting limit), so an entry is never kept for
/// want of reading its id; a damaged list is refused rather than repaired and lost.
fn entries<'a>(history: &Path, bytes: &'a [u8]) -> Result<Vec<Task<'a>>, String> {
    #[derive(serde::Deserialize)]
    struct Entry {
        id: Option<String>,
    }
    let task = |raw: &'a RawValue| {
        let entry: Entry = serde_json::from_str(raw.get())?;
        Ok(Task { raw, id: entry.id })
    };
    serde_json::from_slice::<Vec<&RawValue>>(bytes)
        .and_then(|list| list.into_iter().map(task).collect())
        .map_err(|e: serde_json::Error| {
            format!(
                "{} is not Cline's list of tasks (a JSON array of tasks): {e}; nothing was \
                 changed (let Cline write it again, or repair it by hand)",
                history.display()
            )
        })
}

fn named(task: &Task, ids: &[String]) -> bool {
    task.id.as_ref().is_some_and(|id| ids.contains(id))
}

/// Takes the entries of `ids` out of the task list `history` and writes it back at once
/// ([`replace`]): every other entry keeps its bytes (its keys in Cline's order), so Cline's
/// list is what it was but for the tasks that went.
fn remove(history: &Path, ids: &[String]) -> Result<(), String> {
    let before = checked_file(history)?;
    let bytes = read_list(history)?;
    let kept: Vec<&str> = entries(history, &bytes)?
        .into_iter()
        .filter(|t| !named(t, ids))
        .map(|t| t.raw.get())
        .collect();
    let text = format!("[{}]", kept.join(","));
    replace(history, &before, text.as_bytes())
}

/// Adds the restored tasks' `entries` to the end of the task list `history` (made when Cline
/// has not made it yet), refusing an id the list has already. The list's own bytes stay as
/// they are: the entries go in before its closing bracket, so no other task's entry is
/// rewritten (nor its keys reordered). The ids are checked in the very bytes that are
/// appended to (read once).
pub(super) fn append(history: &Path, new: &[Value]) -> Result<(), String> {
    if std::fs::symlink_metadata(history).is_err() {
        let bytes = serde_json::to_vec(new).map_err(|e| e.to_string())?;
        return create(history, &bytes);
    }
    let before = checked_file(history)?;
    let bytes = read_list(history)?;
    let tasks = entries(history, &bytes)?;
    if let Some(id) = new
        .iter()
        .filter_map(|e| str_of(e, "id"))
        .find(|id| tasks.iter().any(|t| t.id.as_deref() == Some(*id)))
    {
        return Err(format!(
            "{} lists the task {id} already; nothing was changed (delete that task in Cline \
             first, or restore into another store)",
            history.display()
        ));
    }
    replace(history, &before, &appended(&bytes, new)?)
}

/// `list` (a JSON array's text) with `entries` added at its end.
fn appended(list: &[u8], entries: &[Value]) -> Result<Vec<u8>, String> {
    let close = list
        .iter()
        .rposition(|&b| b == b']')
        .ok_or("the task list has no closing bracket")?;
    let open = list.iter().position(|&b| b == b'[').unwrap_or(close);
    let empty = list[open + 1..close].iter().all(u8::is_ascii_whitespace);
    let mut out = list[..close].to_vec();
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 || !empty {
            out.push(b',');
        }
        out.extend(serde_json::to_vec(entry).map_err(|e| e.to_string())?);
    }
    out.extend_from_slice(&list[close..]);
    Ok(out)
}

/// `history` as it is before an edit: a file of its own (not a link: the rename would replace
/// the link, not its file), and its size and time, to tell whether Cline wrote it meanwhile.
fn checked_file(history: &Path) -> Result<(u64, i64), String> {
    let shown = history.display();
    let link = std::fs::symlink_metadata(history).map_err(|e| format!("{shown}: {e}"))?;
    if link.file_type().is_symlink() {
        return Err(format!(
            "{shown} is a link; nothing was changed (it is rewritten in place only when it is \
             a file of its own)"
        ));
    }
    files::stat(history).map_err(|e| format!("{shown}: {e}"))
}

/// A temporary file beside `history` holding `bytes`, synced.
fn temp_beside(history: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile, String> {
    let dir = history.parent().unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{HISTORY}."))
        .tempfile_in(dir)
        .map_err(|e| cannot_write(history, e))?;
    temp.write_all(bytes)
        .map_err(|e| cannot_write(history, e))?;
    temp.as_file()
        .sync_all()
        .map_err(|e| cannot_write(history, e))?;
    Ok(temp)
}

fn cannot_write(history: &Path, e: std::io::Error) -> String {
    format!(
        "cannot write {}: {e}; nothing was changed",
        history.display()
    )
}

/// Writes `bytes` as the task list `history` at once: a temporary file beside it, synced,
/// renamed over it, so Cline reads the old list or the new one, never half of one. Not when
/// it changed since it was read (`before`: Cline wrote it meanwhile, and the edit would lose
/// Cline's).
fn replace(history: &Path, before: &(u64, i64), bytes: &[u8]) -> Result<(), String> {
    let shown = history.display();
    let temp = temp_beside(history, bytes)?;
    // Cline's own permissions on its file, not the temporary file's.
    let permissions = std::fs::metadata(history)
        .map_err(|e| cannot_write(history, e))?
        .permissions();
    std::fs::set_permissions(temp.path(), permissions).map_err(|e| cannot_write(history, e))?;
    if files::stat(history).ok().as_ref() != Some(before) {
        return Err(format!(
            "{shown} changed while it was being rewritten (Cline wrote it); nothing was \
             changed: try again"
        ));
    }
    temp.persist(history)
        .map_err(|e| cannot_write(history, e.error))?;
    Ok(())
}

/// Makes the task list `history` Cline has not made yet (and its `state` folder), holding
/// `bytes`; never over one that appeared meanwhile. On failure nothing is left.
fn create(history: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = history.parent().unwrap_or(Path::new("."));
    let made_dir = !dir.exists();
    let made = std::fs::create_dir_all(dir)
        .map_err(|e| cannot_write(history, e))
        .and_then(|()| temp_beside(history, bytes))
        .and_then(|temp| {
            temp.persist_noclobber(history)
                .map_err(|e| cannot_write(history, e.error))
        });
    if made.is_err() && made_dir {
        let _ = std::fs::remove_dir(dir);
    }
    made.map(drop)
}
