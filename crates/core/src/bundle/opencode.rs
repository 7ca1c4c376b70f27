//! An OpenCode session as `opencode export <id>` writes it, `{info, messages: [{info,
//! parts}]}`: the form `opencode import` reads back, so it is what a complete bundle carries
//! and what a restore hands to OpenCode (or writes as rows itself). Built from whichever copy
//! of the session represents it: v1 rows of `opencode.db` (the row's columns mapped to the
//! fields OpenCode's own export gives them; the fixtures' exports are the test oracle), the
//! legacy JSON storage (already in that form) or the 0.x per-project storage (0.1 messages
//! converted as OpenCode 0.5 itself converted them). v2 rows have no released OpenCode that
//! reads them, so they have no native form.

use std::path::Path;

use rusqlite::Connection;
use serde_json::{json, Map, Value};

use crate::provider::opencode::{legacy, perproject, winning_copy, Origin};
use crate::provider::sqlite::{self, Columns};

/// The session `id` under `root` in export form; `Err` says why there is none.
pub(crate) fn document(root: &Path, id: &str) -> Result<Value, String> {
    let copy = winning_copy(root, id)
        .ok_or_else(|| format!("no copy of {id} under {}", root.display()))?;
    let source = &copy.meta.source_path;
    let mut problems = Vec::new();
    let doc = match copy.origin {
        Origin::V1 => {
            let conn = sqlite::open_read_only(source).map_err(|e| e.to_string())?;
            from_rows(&conn, id).map_err(|e| e.to_string())?
        }
        Origin::V2 => {
            return Err(format!(
                "{id} is stored in OpenCode's v2 tables, which no released OpenCode reads back"
            ))
        }
        Origin::Json => {
            let info = read_json(source)?;
            let root = legacy::root_of(source).ok_or("not in a storage folder")?;
            assemble(info, legacy::messages(root, id, &mut problems), id)
        }
        Origin::Project => {
            let mut info = read_json(source)?;
            let storage = perproject::storage_of(source).ok_or("not in a storage folder")?;
            // 0.x keeps no directory on the session: the messages' path.cwd has it.
            if info.get("directory").is_none() {
                if let Some(cwd) = &copy.meta.cwd {
                    info["directory"] = Value::String(cwd.clone());
                }
            }
            assemble(info, perproject::messages(storage, id, &mut problems), id)
        }
    };
    if let Some(p) = problems.first() {
        return Err(format!("a record of {id} cannot be read: {p}"));
    }
    Ok(doc)
}

fn read_json(path: &Path) -> Result<Value, String> {
    let bytes = crate::provider::files::read_document(path, crate::provider::files::MAX_DOCUMENT)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{} is not JSON ({e})", path.display()))
}

/// Messages (id, info, parts) in order, with the ids OpenCode's export writes on each.
fn assemble(info: Value, messages: Vec<(String, Value, Vec<Value>)>, id: &str) -> Value {
    let messages: Vec<Value> = messages
        .into_iter()
        .map(|(msg_id, mut msg, parts)| {
            if let Some(m) = msg.as_object_mut() {
                m.insert("id".into(), Value::String(msg_id.clone()));
                m.insert("sessionID".into(), Value::String(id.to_owned()));
            }
            let parts: Vec<Value> = parts
                .into_iter()
                .map(|mut p| {
                    if let Some(o) = p.as_object_mut() {
                        o.entry("sessionID")
                            .or_insert_with(|| Value::String(id.to_owned()));
                        o.entry("messageID")
                            .or_insert_with(|| Value::String(msg_id.clone()));
                    }
                    p
                })
                .collect();
            json!({ "info": msg, "parts": parts })
        })
        .collect();
    json!({ "info": info, "messages": messages })
}

/// A v1 session from its rows: the session row as OpenCode's `Session.Info`, the messages in
/// time order with their parts in id order, each `data` with its ids put back.
fn from_rows(conn: &Connection, id: &str) -> rusqlite::Result<Value> {
    let mut stmt = conn.prepare("SELECT * FROM session WHERE id = ?1")?;
    let cols = Columns::of(&stmt);
    let info = stmt.query_row([id], |row| Ok(session_info(&cols, row)))?;
    let mut parts: std::collections::HashMap<String, Vec<Value>> = Default::default();
    let mut stmt =
        conn.prepare("SELECT message_id, id, data FROM part WHERE session_id = ?1 ORDER BY id")?;
    let mut rows = stmt.query([id])?;
    while let Some(row) = rows.next()? {
        let message_id: String = row.get(0)?;
        let mut data = object(&row.get::<_, String>(2)?);
        data.insert("id".into(), Value::String(row.get(1)?));
        data.insert("sessionID".into(), Value::String(id.to_owned()));
        data.insert("messageID".into(), Value::String(message_id.clone()));
        parts
            .entry(message_id)
            .or_default()
            .push(Value::Object(data));
    }
    let mut messages = Vec::new();
    let mut stmt = conn
        .prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id")?;
    let mut rows = stmt.query([id])?;
    while let Some(row) = rows.next()? {
        let message_id: String = row.get(0)?;
        let mut data = object(&row.get::<_, String>(1)?);
        data.insert("id".into(), Value::String(message_id.clone()));
        data.insert("sessionID".into(), Value::String(id.to_owned()));
        let these = parts.remove(&message_id).unwrap_or_default();
        messages.push(json!({ "info": data, "parts": these }));
    }
    Ok(json!({ "info": info, "messages": messages }))
}

fn object(text: &str) -> Map<String, Value> {
    match serde_json::from_str(text) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// The session row's columns under the names OpenCode's export gives them (only the columns
/// this version has, and only those set).
fn session_info(cols: &Columns, row: &rusqlite::Row) -> Value {
    let mut info = Map::new();
    let text = |name: &str| cols.text(row, name);
    let json_col = |name: &str| text(name).and_then(|t| serde_json::from_str::<Value>(&t).ok());
    let int = |name: &str| cols.integer(row, name);
    let mut put = |key: &str, v: Option<Value>| {
        if let Some(v) = v {
            info.insert(key.to_owned(), v);
        }
    };
    put("id", text("id").map(Value::from));
    put("slug", text("slug").map(Value::from));
    put("projectID", text("project_id").map(Value::from));
    put("workspaceID", text("workspace_id").map(Value::from));
    put("directory", text("directory").map(Value::from));
    // 1.18 exports an empty `path` as "".
    if cols.has("path") {
        put("path", Some(Value::from(text("path").unwrap_or_default())));
    }
    put("parentID", text("parent_id").map(Value::from));
    put("title", text("title").map(Value::from));
    put("agent", text("agent").map(Value::from));
    put("model", json_col("model"));
    put("version", text("version").map(Value::from));
    if let Some(additions) = int("summary_additions") {
        let mut summary = json!({
            "additions": additions,
            "deletions": int("summary_deletions").unwrap_or(0),
            "files": int("summary_files").unwrap_or(0),
        });
        if let Some(diffs) = json_col("summary_diffs") {
            summary["diffs"] = diffs;
        }
        put("summary", Some(summary));
    }
    put("share", text("share_url").map(|url| json!({ "url": url })));
    if cols.has("cost") {
        put("cost", cols.real(row, "cost").map(Value::from));
        let t = |n: &str| int(n).unwrap_or(0);
        put(
            "tokens",
            Some(json!({
                "input": t("tokens_input"),
                "output": t("tokens_output"),
                "reasoning": t("tokens_reasoning"),
                "cache": { "read": t("tokens_cache_read"), "write": t("tokens_cache_write") },
            })),
        );
    }
    put("metadata", json_col("metadata"));
    put("revert", json_col("revert"));
    put("permission", json_col("permission"));
    let mut time = json!({ "created": int("time_created"), "updated": int("time_updated") });
    if let Some(t) = int("time_compacting") {
        time["compacting"] = t.into();
    }
    if let Some(t) = int("time_archived") {
        time["archived"] = t.into();
    }
    put("time", Some(time));
    Value::Object(info)
}
