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
/// subagents'), or their entries of a `taskHistory.json` rewritten at once ([`rewrite`]).
pub(super) fn delete(index: &Path, ids: &[String]) -> Result<(), String> {
    if index.file_name().is_some_and(|n| n == HISTORY) {
        return rewrite(index, |tasks| {
            tasks.retain(|t| !str_of(t, "id").is_some_and(|id| ids.iter().any(|i| i == id)));
        });
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
    let tasks = read_tasks(history)?;
    let n = tasks
        .iter()
        .filter(|t| str_of(t, "id").is_some_and(|id| ids.iter().any(|i| i == id)))
        .count();
    Ok(n as u64)
}

/// The task list as Cline wrote it: an array, read strictly (it is written back whole, so a
/// damaged one is refused rather than repaired and lost).
fn read_tasks(history: &Path) -> Result<Vec<Value>, String> {
    let bytes = files::read_document(history, files::MAX_DOCUMENT)
        .map_err(|e| format!("cannot read {}: {e}", history.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        format!(
            "{} is not Cline's list of tasks (a JSON array): {e}; nothing was changed (let \
             Cline write it again, or repair it by hand)",
            history.display()
        )
    })
}

/// Edits the task list `history` and writes it back at once: a temporary file beside it,
/// synced, renamed over it, so Cline reads the old list or the new one, never half of one. It
/// is not written when it changed since it was read (Cline wrote it meanwhile: the edit would
/// lose Cline's), nor when it is a link (the rename would replace the link, not its file).
pub(super) fn rewrite(history: &Path, edit: impl FnOnce(&mut Vec<Value>)) -> Result<(), String> {
    let shown = history.display();
    let link = std::fs::symlink_metadata(history).map_err(|e| format!("{shown}: {e}"))?;
    if link.file_type().is_symlink() {
        return Err(format!(
            "{shown} is a link; nothing was changed (it is rewritten in place only when it is \
             a file of its own)"
        ));
    }
    let before = files::stat(history).map_err(|e| format!("{shown}: {e}"))?;
    let mut tasks = read_tasks(history)?;
    edit(&mut tasks);
    let bytes = serde_json::to_vec(&tasks).map_err(|e| e.to_string())?;
    let dir = history.parent().unwrap_or(Path::new("."));
    let fail = |e: std::io::Error| format!("cannot write {shown}: {e}; nothing was changed");
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{HISTORY}."))
        .tempfile_in(dir)
        .map_err(fail)?;
    temp.write_all(&bytes).map_err(fail)?;
    temp.as_file().sync_all().map_err(fail)?;
    // Cline's own permissions on its file, not the temporary file's.
    std::fs::set_permissions(temp.path(), link.permissions()).map_err(fail)?;
    if files::stat(history).ok() != Some(before) {
        return Err(format!(
            "{shown} changed while it was being rewritten (Cline wrote it); nothing was \
             changed: try again"
        ));
    }
    temp.persist(history).map_err(|e| fail(e.error))?;
    Ok(())
}
