//! Restoring Codex sessions into its state database. Codex 0.171.0 lists sessions (the
//! `codex resume` picker, `--last`) from the `threads` table of `state_<N>.sqlite` once that
//! database exists: a rollout file alone is found by `codex resume <id>` but listed only when
//! Codex builds a new database from the rollouts (its one-time backfill). So when the store has
//! a state database, each restored rollout gets the row Codex's backfill would give it, with
//! the values read from the rollout as restored; all rows go in one transaction that waits for
//! Codex's own writers and leaves its journal mode (WAL) alone. A row that is there already
//! fails the insert: nothing is overwritten.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rusqlite::types::Value as Sql;
use rusqlite::TransactionBehavior;
use serde_json::Value;

use super::sql::insert;
use crate::actions::trash::open_for_writing;
use crate::provider::codex::statedb;
use crate::provider::sqlite;

/// The state database of the store at `root`, if Codex has made one.
pub(super) fn state_db(root: &Path) -> Option<PathBuf> {
    statedb::find(root).filter(|p| p.is_file())
}

/// One restored rollout as a `threads` row, and its parent when it is a subagent.
pub(super) struct Thread {
    values: Vec<(&'static str, Sql)>,
    parent: Option<(String, String)>,
}

/// The records of a rollout a `threads` row is made of, kept as the rollout is restored a
/// line at a time (only these lines become trees, each within a record's memory budget).
#[derive(Default)]
pub(super) struct Seen {
    meta: Option<Value>,
    context: Option<Value>,
    tokens: Option<i64>,
}

impl Seen {
    /// Whether `line` may be one of the records kept (the rest are not parsed). Codex writes
    /// them small; a longer one is not read into a tree (as if it were torn).
    pub fn wants(line: &str) -> bool {
        const LONGEST: usize = 8 << 20;
        line.len() <= LONGEST
            && ["session_meta", "turn_context", "token_count"]
                .iter()
                .any(|t| line.contains(t))
    }

    /// Keeps what the row needs of one restored line (a line that is not a record is skipped,
    /// as Codex skips it).
    pub fn line(&mut self, line: &str) {
        let Ok(r) = crate::bundle::records::parse(line.trim_end().as_bytes(), "") else {
            return;
        };
        let payload = r.get("payload").cloned().unwrap_or(Value::Null);
        match r["type"].as_str() {
            Some("session_meta") if self.meta.is_none() => self.meta = Some(payload),
            Some("turn_context") => self.context = Some(payload),
            Some("event_msg") if payload["type"] == "token_count" => {
                if let Some(n) = payload["info"]["total_token_usage"]["total_tokens"].as_i64() {
                    self.tokens = Some(n);
                }
            }
            _ => {}
        }
    }
}

/// The row of the rollout `path` (already written; `seen` its records): the session's id,
/// times, source, provider, directory, git state, model, permissions and token total as its
/// records say; `title` is its first request, as the app shows it. `None` for a file without a
/// `session_meta` record (the TypeScript CLI's `.json` rollouts, which Codex does not list).
pub(super) fn thread(seen: Seen, path: &Path, title: &str) -> Option<Thread> {
    let Seen {
        meta,
        context,
        tokens,
    } = seen;
    let meta = meta?;
    let id = meta["id"].as_str()?.to_owned();
    let created = meta["timestamp"]
        .as_str()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc))?;
    // Codex's backfill dates a thread's last activity by its file.
    let updated: DateTime<Utc> = std::fs::metadata(path).ok()?.modified().ok()?.into();
    let context = context.unwrap_or(Value::Null);
    let str_of = |v: &Value| v.as_str().map_or(Sql::Null, |s| Sql::Text(s.to_owned()));
    let source = match &meta["source"] {
        Value::String(s) => Sql::Text(s.clone()),
        Value::Null => Sql::Null,
        other => Sql::Text(other.to_string()),
    };
    let permissions = match &context["permission_profile"] {
        Value::Null => &context["sandbox_policy"],
        p => p,
    };
    let effort = match &context["effort"] {
        Value::Null => &context["collaboration_mode"]["settings"]["reasoning_effort"],
        e => e,
    };
    let archived = path
        .components()
        .any(|c| c.as_os_str() == "archived_sessions");
    let spawn = &meta["source"]["subagent"]["thread_spawn"];
    let agent = |key: &str| match &meta[key] {
        Value::Null => str_of(&spawn[key]),
        v => str_of(v),
    };
    let title = Sql::Text(title.to_owned());
    let values = vec![
        ("id", Sql::Text(id.clone())),
        (
            "rollout_path",
            Sql::Text(path.to_string_lossy().into_owned()),
        ),
        ("created_at", Sql::Integer(created.timestamp())),
        ("created_at_ms", Sql::Integer(created.timestamp_millis())),
        ("updated_at", Sql::Integer(updated.timestamp())),
        ("updated_at_ms", Sql::Integer(updated.timestamp_millis())),
        ("recency_at", Sql::Integer(updated.timestamp())),
        ("recency_at_ms", Sql::Integer(updated.timestamp_millis())),
        ("source", source),
        ("thread_source", str_of(&meta["thread_source"])),
        ("originator", str_of(&meta["originator"])),
        ("model_provider", str_of(&meta["model_provider"])),
        ("cli_version", str_of(&meta["cli_version"])),
        ("cwd", str_of(&meta["cwd"])),
        ("title", title.clone()),
        ("first_user_message", title.clone()),
        ("preview", title),
        (
            "sandbox_policy",
            if permissions.is_null() {
                Sql::Null
            } else {
                Sql::Text(permissions.to_string())
            },
        ),
        ("approval_mode", str_of(&context["approval_policy"])),
        ("model", str_of(&context["model"])),
        ("reasoning_effort", str_of(effort)),
        ("tokens_used", tokens.map_or(Sql::Null, Sql::Integer)),
        ("archived", Sql::Integer(i64::from(archived))),
        (
            "archived_at",
            if archived {
                Sql::Integer(updated.timestamp())
            } else {
                Sql::Null
            },
        ),
        ("git_sha", str_of(&meta["git"]["commit_hash"])),
        ("git_branch", str_of(&meta["git"]["branch"])),
        ("git_origin_url", str_of(&meta["git"]["repository_url"])),
        ("agent_nickname", agent("agent_nickname")),
        ("agent_role", agent("agent_role")),
        ("agent_path", agent("agent_path")),
        ("history_mode", str_of(&meta["history_mode"])),
    ];
    let parent = meta["parent_thread_id"]
        .as_str()
        .or_else(|| spawn["parent_thread_id"].as_str())
        .map(|p| (p.to_owned(), id));
    Some(Thread { values, parent })
}

/// Every row (and each subagent's edge to its parent) into `db`, in one transaction.
pub(super) fn insert_threads(db: &Path, threads: &[Thread]) -> Result<(), String> {
    let mut conn = open_for_writing(db).map_err(|e| e.to_string())?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| format!("Codex's state database is busy: {e}"))?;
    if !sqlite::has_table(&tx, "threads").map_err(|e| e.to_string())? {
        return Err("it has no threads table".into());
    }
    let edges = sqlite::has_table(&tx, "thread_spawn_edges").map_err(|e| e.to_string())?;
    for t in threads {
        insert(&tx, "threads", &t.values).map_err(|e| e.to_string())?;
        if let (true, Some((parent, child))) = (edges, &t.parent) {
            insert(
                &tx,
                "thread_spawn_edges",
                &[
                    ("parent_thread_id", Sql::Text(parent.clone())),
                    ("child_thread_id", Sql::Text(child.clone())),
                    ("status", Sql::Text("open".into())),
                ],
            )
            .map_err(|e| e.to_string())?;
        }
    }
    tx.commit().map_err(|e| e.to_string())
}
