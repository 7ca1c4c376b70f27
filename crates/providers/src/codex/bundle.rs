//! Codex in a bundle (`docs/bundle-format.md`): each rollout (the session's and its
//! subagents') by its path under the root, under `native/codex/`. Restored as the same files
//! under the root, each `session_meta` checked first; and when the store has a state database,
//! each restored rollout gets its row there.
//!
//! Codex 0.171.0 lists sessions (the `codex resume` picker, `--last`) from the `threads` table
//! of `state_<N>.sqlite` once that database exists: a rollout file alone is found by
//! `codex resume <id>` but listed only when Codex builds a new database from the rollouts (its
//! one-time backfill). So each restored rollout gets the row Codex's backfill would give it,
//! with the values read from the rollout as restored; all rows go in one transaction that
//! waits for Codex's own writers and leaves its journal mode (WAL) alone. A row that is there
//! already fails the insert: nothing is overwritten.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, TransactionBehavior};
use serde_json::Value;

use super::statedb;
use crate::capability::bundle::{
    insert, no_alias, record, shown_value, uuid_from, Bundles, Export, Fault, Files, Flow, Index,
    Keep, Line, Native, NativeFile, Restore, Row, Writes,
};
use crate::capability::trash::open_for_writing;
use crate::capability::Capability;
use crate::sqlite;

pub const BUNDLES: Bundles = Bundles {
    export,
    layout,
    restore: Restore {
        lacks: None,
        dir_keys: &["cwd"],
        // `<environment_context>` messages.
        dir_markers: &["<cwd>"],
        copy: Capability::Has(|_, random| uuid_from(random)),
        alias: no_alias,
        writes: Writes::Files(Files {
            base: |root, _| root.to_path_buf(),
            check_line,
            index: Some(Index {
                find: |root, _| state_db(root),
                note,
                wants,
                keeper: || Box::<Seen>::default(),
                insert: |db, rows| {
                    let mut conn = open_for_writing(db).map_err(|e| e.to_string())?;
                    insert_threads(&mut conn, rows)
                },
            }),
            markers: None,
        }),
    },
};

/// Each rollout by its path under the root.
fn export(e: &Export) -> Result<Vec<Native>, String> {
    let mut out = Vec::new();
    for s in std::iter::once(e.session).chain(e.children.iter().copied()) {
        let rel = s.source_path.strip_prefix(e.root).map_err(|_| {
            format!(
                "{} is not under {}",
                s.source_path.display(),
                e.root.display()
            )
        })?;
        let rel = rel.to_string_lossy().replace('\\', "/");
        let source = record(&s.source_path, &rel)?;
        out.push(Native::File(NativeFile {
            rel,
            session: s.id.clone(),
            source,
        }));
    }
    Ok(out)
}

/// `sessions/…/rollout-….jsonl` (or `.json`, or under `archived_sessions/`), named after the
/// session's id.
fn layout(rest: &str, owner: &str) -> bool {
    let file = rest.rsplit('/').next().unwrap_or_default();
    (rest.starts_with("sessions/") || rest.starts_with("archived_sessions/"))
        && file.starts_with("rollout-")
        && (file.ends_with(&format!("{owner}.jsonl")) || file.ends_with(&format!("{owner}.json")))
}

/// The `session_meta` a rollout starts with (the one its `threads` row is made from): its
/// `id` is the session's, its parent (`parent_thread_id`, or the subagent source's) none or
/// the manifest's, and its `session_id` (a subagent's conversation) one of the bundle's.
fn check_line(line: &Line) -> Result<Flow, Fault> {
    // Only the line that may be it is parsed, within the records' memory budget.
    if !line.text.contains("\"session_meta\"") {
        return Ok(Flow::Next);
    }
    // Too large to check is refused (Codex would still read its id); a torn line is no
    // record: Codex skips it as well.
    let Some(record) = (line.parse)(line.text)? else {
        return Ok(Flow::Next);
    };
    if record["type"] != "session_meta" {
        return Ok(Flow::Next);
    }
    let meta = &record["payload"];
    let id = line.id;
    if meta["id"].as_str() != Some(id) {
        let says = format!("says its session is {}, not {id}", shown_value(&meta["id"]));
        return Err(Fault::Disagrees(says));
    }
    let parent = line.parent;
    let spawn = &meta["source"]["subagent"]["thread_spawn"]["parent_thread_id"];
    for said in [&meta["parent_thread_id"], spawn] {
        if !said.is_null() && said.as_str() != parent {
            let says = format!(
                "makes {id} a subagent of {}, {}",
                shown_value(said),
                parent.map_or("but its manifest gives it no parent".into(), |p| {
                    format!("but its manifest's parent is {p}")
                })
            );
            return Err(Fault::Disagrees(says));
        }
    }
    let session = &meta["session_id"];
    let ours = line
        .sessions
        .iter()
        .any(|(_, new)| session.as_str() == Some(new));
    if !session.is_null() && !ours {
        let says = format!(
            "puts {id} in the session {}, which the bundle does not hold",
            shown_value(session)
        );
        return Err(Fault::Disagrees(says));
    }
    Ok(Flow::Done)
}

/// The state database of the store at `root`, if Codex has made one.
fn state_db(root: &Path) -> Option<PathBuf> {
    statedb::find(root).filter(|p| p.is_file())
}

fn note(db: Option<&Path>) -> String {
    match db {
        Some(db) => format!(
            "Codex lists sessions from {}: each restored session gets its row there",
            db.display()
        ),
        None => {
            "Codex has no state database here yet: it lists the restored rollouts when it makes one"
                .into()
        }
    }
}

/// Whether `line` may be one of the records kept (the rest are not parsed). Codex writes
/// them small; a longer one is not read into a tree (as if it were torn).
fn wants(line: &str) -> bool {
    const LONGEST: usize = 8 << 20;
    line.len() <= LONGEST
        && ["session_meta", "turn_context", "token_count"]
            .iter()
            .any(|t| line.contains(t))
}

/// The records of a rollout a `threads` row is made of, kept as the rollout is restored a
/// line at a time (only these lines become trees, each within a record's memory budget).
#[derive(Default)]
struct Seen {
    meta: Option<Value>,
    context: Option<Value>,
    tokens: Option<i64>,
}

impl Keep for Seen {
    /// Keeps what the row needs of one restored record.
    fn record(&mut self, r: Value) {
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

    fn rows(self: Box<Self>, path: &Path, title: &str) -> Vec<Row> {
        thread(*self, path, title).unwrap_or_default()
    }
}

/// The row of the rollout `path` (already written; `seen` its records): the session's id,
/// times, source, provider, directory, git state, model, permissions and token total as its
/// records say; `title` is its first request, as the app shows it. Then, for a subagent, its
/// edge to its parent. `None` for a file without a `session_meta` record (the TypeScript
/// CLI's `.json` rollouts, which Codex does not list).
fn thread(seen: Seen, path: &Path, title: &str) -> Option<Vec<Row>> {
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
    let mut rows = vec![Row {
        table: "threads",
        values,
    }];
    let parent = meta["parent_thread_id"]
        .as_str()
        .or_else(|| spawn["parent_thread_id"].as_str());
    if let Some(parent) = parent {
        rows.push(Row {
            table: EDGES,
            values: vec![
                ("parent_thread_id", Sql::Text(parent.to_owned())),
                ("child_thread_id", Sql::Text(id)),
                ("status", Sql::Text("open".into())),
            ],
        });
    }
    Some(rows)
}

/// A subagent's edge to its parent (in the databases that have the table).
const EDGES: &str = "thread_spawn_edges";

/// Every row (and each subagent's edge to its parent) into the database, in one transaction.
fn insert_threads(conn: &mut Connection, rows: &[Row]) -> Result<(), String> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| format!("Codex's state database is busy: {e}"))?;
    if !sqlite::has_table(&tx, "threads").map_err(|e| e.to_string())? {
        return Err("it has no threads table".into());
    }
    let edges = sqlite::has_table(&tx, EDGES).map_err(|e| e.to_string())?;
    for row in rows.iter().filter(|r| edges || r.table != EDGES) {
        insert(&tx, row.table, &row.values).map_err(|e| e.to_string())?;
    }
    tx.commit().map_err(|e| e.to_string())
}
