//! OpenCode's record of where a project's worktrees are (SPEC §5 "Fold by repository"): the
//! directories it made or used for a project beside its main worktree, read from
//! `opencode.db` (`project.sandboxes`, a JSON list; the `workspace` table's directories; the
//! `project_directory` table of 1.18) and from the legacy `storage/project/<id>.json`
//! (`sandboxes`). A directory listed there folds under the project's `worktree` even when it
//! is gone from disk, where git can no longer say whose worktree it was.
//!
//! Read-only and small: only these tables, never the sessions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::Value;

use crate::sqlite::{self, Columns};

/// The database and the legacy project files of a store: what the map is read from (a change
/// to any of them can change it).
pub fn sources(root: &Path) -> Vec<PathBuf> {
    vec![
        root.join("opencode.db"),
        root.join("opencode.db-wal"),
        root.join("storage/project"),
    ]
}

/// worktree directory → its project's main worktree, as OpenCode wrote them (not normalised).
/// Projects without a repository (`/`, "global") and a project's own root are left out.
/// A store without these tables or files has none; a database that cannot be read is an error.
pub fn read(root: &Path) -> rusqlite::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    legacy(&root.join("storage/project"), &mut out);
    let db = root.join("opencode.db");
    if db.is_file() {
        from_db(&*sqlite::open_read_only(&db)?, &mut out)?;
    }
    out.retain(|dir, main| main != "/" && dir != main && !dir.is_empty());
    Ok(out)
}

fn from_db(conn: &Connection, out: &mut BTreeMap<String, String>) -> rusqlite::Result<()> {
    if !sqlite::has_table(conn, "project")? {
        return Ok(());
    }
    let mut stmt = conn.prepare("SELECT * FROM project")?;
    let cols = Columns::of(&stmt);
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let (Some(main), Some(list)) = (cols.text(row, "worktree"), cols.text(row, "sandboxes"))
        else {
            continue;
        };
        add_sandboxes(
            &main,
            &serde_json::from_str(&list).unwrap_or(Value::Null),
            out,
        );
    }
    for table in ["workspace", "project_directory"] {
        if !sqlite::has_table(conn, table)? {
            continue;
        }
        let sql = format!(
            "SELECT t.directory, p.worktree FROM {table} t JOIN project p ON p.id = t.project_id \
             WHERE t.directory IS NOT NULL"
        );
        let mut stmt = conn.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            if let (Ok(dir), Ok(main)) = (row.get::<_, String>(0), row.get::<_, String>(1)) {
                out.insert(dir, main);
            }
        }
    }
    Ok(())
}

/// `storage/project/<id>.json`: `{worktree, sandboxes: [...]}`. Unreadable files are skipped
/// (the scan reports them).
fn legacy(dir: &Path, out: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let Ok(project) = std::fs::read(&path).map(|b| serde_json::from_slice::<Value>(&b)) else {
            continue;
        };
        let Ok(project) = project else {
            continue;
        };
        if let Some(main) = project["worktree"].as_str() {
            add_sandboxes(main, &project["sandboxes"], out);
        }
    }
}

fn add_sandboxes(main: &str, list: &Value, out: &mut BTreeMap<String, String>) {
    for dir in list
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        out.insert(dir.to_owned(), main.to_owned());
    }
}
