//! What a bundle restored into Cline's store adds to the index Cline lists its sessions from
//! (`capability::bundle::Index`; docs/bundle-format.md, "Cline"): a 3.x session's
//! `data/db/sessions.db` rows (its own, from its restored `<id>.json`, and each subagent's,
//! from its messages file), all in one transaction; a 2.x task's entry at the end of
//! `state/taskHistory.json`, made from its restored `ui_messages.json` as Cline makes it.
//!
//! The rows are read back from the files as restored (the directory and `messages_path`
//! already rewritten), through the reader's own bounded document reads: nothing is taken from
//! the bundle that the files do not say. A record that names another session, or a messages
//! file other than its own restored one, makes the index step fail before it writes (and the
//! engine remove the files): Cline would open that file when it resumes.

use std::path::{Path, PathBuf};

use rusqlite::types::Value as Sql;
use rusqlite::TransactionBehavior;
use serde_json::{Map, Value};

use super::index::{append, history_path, sessions_db, HISTORY};
use super::parts::str_of;
use super::{v2, v3};
use crate::capability::bundle::{insert, Index, Keep, Row};
use crate::capability::trash::open_for_writing;

pub(super) const INDEX: Index = Index {
    find,
    note,
    // Each record is one document, read back from where it was restored ([`Kept::rows`]).
    wants: |_| false,
    keeper: || Box::new(Kept),
    insert: insert_rows,
};

/// The table of 3.x's rows; 2.x's entries are rows of [`HISTORY`].
const SESSIONS: &str = "sessions";

/// The store's data folder of a restored file `<data>/{sessions,tasks}/<id>/<file>`, and
/// which of the two it is in.
fn data_of(target: &Path) -> Option<(&Path, &str)> {
    let kind = target.parent()?.parent()?;
    Some((kind.parent()?, kind.file_name()?.to_str()?))
}

/// 2.x's task list for a restored task (made by the restore when Cline has not made it);
/// 3.x's `sessions.db` for a restored session (when Cline has not made it, the restored files
/// are still checked there, [`insert_rows`], and Cline lists the session from its `<id>.json`).
fn find(_root: &Path, targets: &[PathBuf]) -> Option<PathBuf> {
    let (data, kind) = targets.iter().find_map(|t| data_of(t))?;
    match kind {
        "tasks" => Some(history_path(data)),
        _ => Some(sessions_db(data)),
    }
}

fn note(index: Option<&Path>) -> String {
    match index {
        Some(list) if list.file_name().is_some_and(|n| n == HISTORY) => format!(
            "Cline lists its tasks from {}: the restored task's entry is added at its end (the \
             list is made if Cline has not made it yet; its other entries stay as they are)",
            list.display()
        ),
        Some(db) if db.is_file() => format!(
            "Cline lists its sessions from {}: the restored session and each subagent get their \
             row there, in one transaction",
            db.display()
        ),
        _ => "Cline has no sessions.db here yet: it lists the restored session from its \
              <id>.json"
            .into(),
    }
}

/// The "table" of a restored file that must not be listed: its row is a refusal, which makes
/// [`insert_rows`] fail before it writes anything (and the engine remove the files).
const REFUSED: &str = "refused";

/// A restored record that says another session than the one it is restored as, or a messages
/// file other than its own (which Cline would read and write on resume).
fn refused(path: &Path, says: String) -> Option<Row> {
    let reason = format!(
        "{} {says}; a bundle's records must agree with its manifest (export the session again \
         where it was made)",
        path.display()
    );
    Some(Row {
        table: REFUSED,
        values: vec![("reason", Sql::Text(reason))],
    })
}

/// A restored record the index entry is made from, as Cline reads it: a JSON `shape`.
fn read_record(path: &Path, is: fn(&Value) -> bool, shape: &str) -> Result<Value, String> {
    let doc = v3::read_json(path).map_err(|d| d.reason)?;
    match is(&doc) {
        true => Ok(doc),
        false => Err(format!("not a JSON {shape}")),
    }
}

/// A restored record the index entry cannot be made from: without its entry Cline would not
/// list the session, while the restore would say it was done.
fn unreadable(path: &Path, reason: String) -> Option<Row> {
    refused(
        path,
        format!("cannot be listed by Cline ({reason}): it is not the record Cline wrote"),
    )
}

/// The rows of restored files, made from the files themselves.
struct Kept;

impl Keep for Kept {
    fn record(&mut self, _: Value) {}

    fn rows(self: Box<Self>, path: &Path, title: &str) -> Vec<Row> {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let folder = path
            .parent()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .unwrap_or("");
        let row = match data_of(path).map(|(_, kind)| kind) {
            Some("tasks") if name == "ui_messages.json" => task_entry(path, folder),
            Some("sessions") if name == format!("{folder}.json") => session_row(path, folder),
            Some("sessions") if name.starts_with("agent_") && name.ends_with(".messages.json") => {
                subagent_row(path, folder, title)
            }
            _ => None,
        };
        row.into_iter().collect()
    }
}

fn text(v: &Value, key: &str) -> Sql {
    str_of(v, key).map_or(Sql::Null, |s| Sql::Text(s.to_owned()))
}

fn int(v: &Value, key: &str) -> Sql {
    match v.get(key) {
        Some(Value::Bool(b)) => Sql::Integer(i64::from(*b)),
        Some(n) => n.as_i64().map_or(Sql::Null, Sql::Integer),
        None => Sql::Null,
    }
}

/// A 3.x session's row from its restored `<id>.json`, which holds the row's columns by the
/// same names (its `metadata` is the row's `metadata_json`), as Cline writes both. It must
/// name the session `id` and, if any, the session's own restored messages file.
fn session_row(path: &Path, id: &str) -> Option<Row> {
    let doc = match read_record(path, Value::is_object, "object") {
        Ok(doc) => doc,
        Err(reason) => return unreadable(path, reason),
    };
    if str_of(&doc, "session_id") != Some(id) {
        return refused(path, format!("does not name the session {id}"));
    }
    let own = path.with_file_name(format!("{id}.messages.json"));
    if doc
        .get("messages_path")
        .is_some_and(|p| p.as_str() != own.to_str())
    {
        return refused(
            path,
            format!("names a messages file other than {}", own.display()),
        );
    }
    let mut values: Vec<(&'static str, Sql)> = [
        "session_id",
        "source",
        "started_at",
        "ended_at",
        "status",
        "provider",
        "model",
        "cwd",
        "workspace_root",
        "team_name",
        "prompt",
        "messages_path",
    ]
    .into_iter()
    .map(|k| (k, text(&doc, k)))
    .collect();
    for k in [
        "pid",
        "exit_code",
        "interactive",
        "enable_tools",
        "enable_spawn",
        "enable_teams",
    ] {
        values.push((k, int(&doc, k)));
    }
    let metadata = doc.get("metadata").filter(|m| m.is_object());
    values.push((
        "metadata_json",
        metadata.map_or(Sql::Null, |m| Sql::Text(m.to_string())),
    ));
    let updated = str_of(&doc, "ended_at").or_else(|| str_of(&doc, "started_at"));
    values.push((
        "updated_at",
        updated.map_or(Sql::Null, |t| Sql::Text(t.into())),
    ));
    Some(Row {
        table: SESSIONS,
        values,
    })
}

/// A 3.x subagent's row from its restored messages file (`sessionId`, `origin`): its parent,
/// its agent id, its times and model; its directory is its parent's ([`insert_rows`]).
fn subagent_row(path: &Path, parent: &str, title: &str) -> Option<Row> {
    let doc = match read_record(path, Value::is_object, "object") {
        Ok(doc) => doc,
        Err(reason) => return unreadable(path, reason),
    };
    let origin = doc.get("origin").unwrap_or(&Value::Null);
    let name = path.file_name()?.to_string_lossy();
    let id = format!("{parent}__{}", name.trim_end_matches(".messages.json"));
    // Each as the file says it, when it does.
    let said = [
        (str_of(&doc, "sessionId"), id.as_str()),
        (str_of(origin, "parentThreadId"), parent),
    ];
    if said.iter().any(|(s, own)| s.is_some_and(|s| s != *own)) {
        return refused(path, format!("does not name the subagent {id} of {parent}"));
    }
    let messages = doc.get("messages").and_then(Value::as_array);
    let first = messages.and_then(|m| m.first());
    let started = first
        .and_then(|m| super::parts::time_of_ms(m.get("ts")))
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    let model = messages
        .into_iter()
        .flatten()
        .find_map(|m| m.get("modelInfo"))
        .unwrap_or(&Value::Null);
    let updated = str_of(&doc, "updated_at").map(str::to_owned);
    let mut metadata = Map::new();
    metadata.insert(
        "sessionHistoryOrigin".into(),
        serde_json::json!({"mode": "subagent", "version": origin.get("version")}),
    );
    metadata.insert("title".into(), Value::from(title));
    let at = |t: &Option<String>| t.clone().map_or(Sql::Null, Sql::Text);
    let values = vec![
        ("session_id", text(&doc, "sessionId")),
        ("source", text(origin, "source")),
        ("started_at", at(&started.clone().or(updated.clone()))),
        ("ended_at", at(&updated)),
        ("status", Sql::Text("completed".into())),
        ("provider", text(model, "provider")),
        ("model", text(model, "id")),
        ("parent_session_id", Sql::Text(parent.to_owned())),
        ("agent_id", text(origin, "subagent")),
        ("is_subagent", Sql::Integer(1)),
        ("prompt", Sql::Text(title.to_owned())),
        (
            "metadata_json",
            Sql::Text(Value::Object(metadata).to_string()),
        ),
        (
            "messages_path",
            Sql::Text(path.to_string_lossy().into_owned()),
        ),
        ("updated_at", at(&updated.or(started))),
    ];
    Some(Row {
        table: SESSIONS,
        values,
    })
}

/// A 2.x task's `taskHistory.json` entry from its restored `ui_messages.json`, as Cline makes
/// it on each save: the task's text, its last message's time, the sum of its requests' tokens
/// and cost (`api_req_started`), the directory and model the messages name.
fn task_entry(path: &Path, id: &str) -> Option<Row> {
    let doc = match read_record(path, Value::is_array, "array") {
        Ok(doc) => doc,
        Err(reason) => return unreadable(path, reason),
    };
    let items = doc.as_array()?;
    let task = items
        .iter()
        .find(|m| str_of(m, "say") == Some("task"))
        .and_then(|m| str_of(m, "text"))
        .unwrap_or("");
    let ts = items.iter().filter_map(|m| m.get("ts")?.as_i64()).max()?;
    let mut sums = [0i64; 4];
    let mut cost = 0.0;
    let requests = items
        .iter()
        .filter(|m| str_of(m, "say") == Some("api_req_started"))
        .filter_map(|m| serde_json::from_str::<Value>(str_of(m, "text")?).ok());
    for r in requests {
        for (sum, key) in sums.iter_mut().zip(TOKENS) {
            *sum += r.get(key).and_then(Value::as_i64).unwrap_or(0);
        }
        cost += r.get("cost").and_then(Value::as_f64).unwrap_or(0.0);
    }
    let conv = v2::read_task(path, false);
    let mut values = vec![
        ("id", Sql::Text(id.to_owned())),
        ("ts", Sql::Integer(ts)),
        ("task", Sql::Text(task.to_owned())),
    ];
    values.extend(
        TOKENS
            .into_iter()
            .zip(sums)
            .map(|(k, n)| (k, Sql::Integer(n))),
    );
    values.push(("totalCost", Sql::Real(cost)));
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    values.push(("size", Sql::Integer(size as i64)));
    if let Some(cwd) = conv.cwd {
        values.push(("cwdOnTaskInitialization", Sql::Text(cwd)));
    }
    if let Some(model) = conv.model.or_else(|| last_model(path)) {
        values.push(("modelId", Sql::Text(model)));
    }
    Some(Row {
        table: HISTORY,
        values,
    })
}

/// The model of the task's last request, as its `task_metadata.json` beside `ui_messages`
/// records it (`model_usage`; restored before `ui_messages.json`, the files going in name
/// order).
fn last_model(ui_messages: &Path) -> Option<String> {
    let doc = v3::read_json(&ui_messages.with_file_name("task_metadata.json")).ok()?;
    let usage = doc.get("model_usage")?.as_array()?;
    usage
        .iter()
        .rev()
        .find_map(|u| str_of(u, "model_id"))
        .map(str::to_owned)
}

/// An `api_req_started`'s token counts, by the names the task list gives their sums.
const TOKENS: [&str; 4] = ["tokensIn", "tokensOut", "cacheWrites", "cacheReads"];

/// The rows into `index`: a task list's entries appended ([`append`]), or `sessions.db`'s rows
/// in one transaction (a subagent's directory, provider and model its parent's when its file
/// does not say them), rolled back whole on any refusal (a row of the id there already).
fn insert_rows(index: &Path, rows: &[Row]) -> Result<(), String> {
    if let Some(refusal) = rows.iter().find(|r| r.table == REFUSED) {
        return Err(value_of(&refusal.values, "reason"));
    }
    if index.file_name().is_some_and(|n| n == HISTORY) {
        let entries: Vec<Value> = rows
            .iter()
            .filter(|r| r.table == HISTORY)
            .map(|r| entry(&r.values))
            .collect();
        return append(index, &entries);
    }
    if !index.is_file() {
        // Cline has not made its database: it lists the session from its files.
        return Ok(());
    }
    let mut conn = open_for_writing(index).map_err(|e| e.to_string())?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| format!("Cline's database is busy: {e}"))?;
    for row in rows.iter().filter(|r| r.table == SESSIONS) {
        let values = with_parent(row, rows);
        insert(&tx, SESSIONS, &values).map_err(|e| {
            format!(
                "the row of {}: {e} (a session of that id is listed there already: delete it \
                 in Cline first)",
                value_of(&row.values, "session_id")
            )
        })?;
    }
    tx.commit().map_err(|e| e.to_string())
}

/// A row's values, with what its parent's row says where it says nothing.
fn with_parent(row: &Row, rows: &[Row]) -> Vec<(&'static str, Sql)> {
    let mut values = row.values.clone();
    let parent = value_of(&row.values, "parent_session_id");
    let Some(parent) = rows
        .iter()
        .find(|r| !parent.is_empty() && value_of(&r.values, "session_id") == parent)
    else {
        return values;
    };
    for key in ["cwd", "workspace_root", "provider", "model", "pid"] {
        let missing = values.iter().all(|(k, v)| *k != key || *v == Sql::Null);
        if let (true, Some((_, v))) = (missing, parent.values.iter().find(|(k, _)| *k == key)) {
            values.retain(|(k, _)| *k != key);
            values.push((key, v.clone()));
        }
    }
    values
}

fn value_of(values: &[(&'static str, Sql)], key: &str) -> String {
    match values.iter().find(|(k, _)| *k == key) {
        Some((_, Sql::Text(t))) => t.clone(),
        _ => String::new(),
    }
}

/// A task list entry of a row's values.
fn entry(values: &[(&'static str, Sql)]) -> Value {
    let mut map = Map::new();
    for (k, v) in values {
        let v = match v {
            Sql::Text(t) => Value::from(t.as_str()),
            Sql::Integer(n) => Value::from(*n),
            Sql::Real(x) => Value::from(*x),
            _ => continue,
        };
        map.insert((*k).to_owned(), v);
    }
    Value::Object(map)
}
