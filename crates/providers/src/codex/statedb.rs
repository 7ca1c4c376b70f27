//! Codex's `state_<N>.sqlite`: the `threads` table (titles, archive flags, token totals, git
//! info) and `thread_spawn_edges` (subagents). Opened read-only while Codex may be writing it:
//! one short query per table, no transaction held, a busy timeout instead of a lock wait.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use crate::sqlite::{self, Columns};

/// One `threads` row, reduced to what we use. Columns differ across versions (8 to 64
/// migrations): each is read by name when present.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Thread {
    pub rollout_path: Option<String>,
    pub title: Option<String>,
    /// A user rename (0.171+).
    pub name: Option<String>,
    pub archived: bool,
    pub tokens_used: Option<u64>,
    pub git_branch: Option<String>,
    pub cwd: Option<String>,
    pub model: Option<String>,
    pub agent_nickname: Option<String>,
}

/// What the state DB says, keyed by thread id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StateDb {
    #[serde(with = "agent_sessions_model::path::os")]
    pub path: PathBuf,
    pub threads: BTreeMap<String, Thread>,
    /// child → parent
    pub parents: BTreeMap<String, String>,
}

/// The state DB with the highest N under `root`, if any.
pub fn find(root: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(root).ok()?;
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let n: u32 = name
                .strip_prefix("state_")?
                .strip_suffix(".sqlite")?
                .parse()
                .ok()?;
            Some((n, e.path()))
        })
        .max_by_key(|(n, _)| *n)
        .map(|(_, p)| p)
}

pub fn read(path: &Path) -> Result<StateDb, String> {
    let conn = sqlite::open_read_only(path).map_err(|e| format!("cannot open: {e}"))?;
    let mut db = StateDb {
        path: path.to_path_buf(),
        ..StateDb::default()
    };
    let has = |t: &str| sqlite::has_table(&conn, t).map_err(|e| format!("cannot read: {e}"));
    if has("threads")? {
        read_threads(&conn, &mut db).map_err(|e| format!("cannot read threads: {e}"))?;
    }
    if has("thread_spawn_edges")? {
        read_edges(&conn, &mut db).map_err(|e| format!("cannot read thread_spawn_edges: {e}"))?;
    }
    Ok(db)
}

fn read_threads(conn: &Connection, db: &mut StateDb) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare("SELECT * FROM threads")?;
    let cols = Columns::of(&stmt);
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let Some(thread_id) = cols.text(row, "id") else {
            continue;
        };
        let thread = Thread {
            rollout_path: cols.text(row, "rollout_path"),
            title: cols.text(row, "title"),
            name: cols.text(row, "name"),
            archived: cols.integer(row, "archived").is_some_and(|v| v != 0),
            tokens_used: cols
                .integer(row, "tokens_used")
                .and_then(|v| u64::try_from(v).ok()),
            git_branch: cols.text(row, "git_branch"),
            cwd: cols.text(row, "cwd"),
            model: cols.text(row, "model"),
            agent_nickname: cols.text(row, "agent_nickname"),
        };
        db.threads.insert(thread_id, thread);
    }
    Ok(())
}

fn read_edges(conn: &Connection, db: &mut StateDb) -> rusqlite::Result<()> {
    let mut stmt =
        conn.prepare("SELECT parent_thread_id, child_thread_id FROM thread_spawn_edges")?;
    let cols = Columns::of(&stmt);
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let parent = cols.text(row, "parent_thread_id");
        if let (Some(parent), Some(child)) = (parent, cols.text(row, "child_thread_id")) {
            db.parents.insert(child, parent);
        }
    }
    Ok(())
}

/// Where a rollout recorded in the DB is on this machine: the DB stores absolute paths from the
/// machine that wrote it, so the part from `sessions/` or `archived_sessions/` on is taken
/// relative to `root` when the recorded path is not there.
pub fn local_rollout(root: &Path, recorded: &str) -> PathBuf {
    let path = PathBuf::from(recorded);
    if path.exists() {
        return path;
    }
    for marker in ["/archived_sessions/", "/sessions/"] {
        // From the marker on, without its leading `/`.
        if let Some(rest) = recorded.rfind(marker).and_then(|i| recorded.get(i + 1..)) {
            return root.join(rest);
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_recorded_paths_into_this_root() {
        let root = Path::new("/r/.codex");
        assert_eq!(
            local_rollout(
                root,
                "/home/alice/.codex/sessions/2026/11/30/rollout-x.jsonl"
            ),
            PathBuf::from("/r/.codex/sessions/2026/11/30/rollout-x.jsonl")
        );
        assert_eq!(
            local_rollout(root, "/home/alice/.codex/archived_sessions/rollout-y.jsonl"),
            PathBuf::from("/r/.codex/archived_sessions/rollout-y.jsonl")
        );
    }

    #[test]
    fn picks_the_highest_state_db() {
        let dir = tempfile::tempdir().unwrap();
        for n in [
            "state_2.sqlite",
            "state_10.sqlite",
            "state_5.sqlite-wal",
            "other.sqlite",
        ] {
            std::fs::write(dir.path().join(n), b"").unwrap();
        }
        assert_eq!(
            find(dir.path()).unwrap().file_name().unwrap(),
            "state_10.sqlite"
        );
    }
}
