//! OpenCode in a bundle (`docs/bundle-format.md`): each session as `opencode export <id>`
//! writes it, `{info, messages: [{info, parts}]}`, under `native/opencode/<id>.json`: the form
//! `opencode import` reads back, so it is what a complete bundle carries and what a restore
//! hands to OpenCode (or writes as rows itself, [`super::restore`]).
//!
//! The document is built from whichever copy of the session represents it: v1 rows of
//! `opencode.db` (the row's columns mapped to the fields OpenCode's own export gives them; the
//! fixtures' exports are the test oracle), the legacy JSON storage (already in that form) or
//! the 0.x per-project storage (0.1 messages converted as OpenCode 0.5 itself converted them).
//! v2 rows have no released OpenCode that reads them, so they have no native form.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::{json, Map, Value};

use super::{copies_of, legacy, perproject, winning_copy, Origin};
use crate::capability::bundle::{
    shown_value, Bundles, Doc, Documents, Export, Native, NativeFile, Restore, Source, Writes,
};
use crate::capability::Capability;
use crate::sqlite::{self, Columns};

pub const BUNDLES: Bundles = Bundles {
    export,
    layout,
    restore: Restore {
        lacks: None,
        dir_keys: &["directory", "cwd", "root"],
        dir_markers: &[],
        copy: Capability::Lacks(
            "an OpenCode session cannot be restored as a copy: OpenCode alone makes its ids",
        ),
        alias: crate::capability::bundle::no_alias,
        writes: Writes::Documents(Documents {
            what: "an OpenCode session",
            is_document: |doc| doc["info"].is_object() && doc["messages"].is_array(),
            existing,
            check,
            finish,
            way: super::restore::way,
            write: super::restore::write,
        }),
    },
};

/// Each session's export document; one that has none is left out, with a note.
fn export(e: &Export) -> Result<Vec<Native>, String> {
    let mut out = Vec::new();
    for s in std::iter::once(e.session).chain(e.children.iter().copied()) {
        match document(e.root, &s.id) {
            Ok(doc) => {
                let bytes = serde_json::to_vec_pretty(&doc).map_err(|e| e.to_string())?;
                out.push(Native::File(NativeFile {
                    rel: format!("{}.json", s.id),
                    session: s.id.clone(),
                    source: Source::Bytes(bytes),
                }));
            }
            Err(why) => out.push(Native::LeftOut(format!(
                "{}'s records were left out: {why}",
                s.id
            ))),
        }
    }
    Ok(out)
}

/// `<id>.json`, as `opencode export` writes a session.
fn layout(rest: &str, owner: &str) -> bool {
    rest == format!("{owner}.json")
}

/// A copy of session `id` in the store, found by OpenCode's own rules.
fn existing(root: &Path, id: &str) -> Option<PathBuf> {
    copies_of(root, id).into_iter().next().map(|(_, path)| path)
}

/// The session `id` under `root` in export form; `Err` says why there is none.
pub fn document(root: &Path, id: &str) -> Result<Value, String> {
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
    let bytes = crate::files::read_document(path, crate::files::MAX_DOCUMENT)
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

/// What the rows (ours or OpenCode's import's) take from the document, as the manifest says
/// it: the session's id, its parent (none, or the manifest's, which is in the bundle), a
/// title without control or bidi characters that the manifest shows; each message and part
/// of this session (and a part of its message), with an id of plain letters, digits, `_`, `-`.
fn check(d: &Doc) -> Result<(), String> {
    let (doc, id, parent) = (d.doc, d.id, d.parent);
    let info = &doc["info"];
    if info["id"].as_str() != Some(id) {
        return Err(format!(
            "says its session is {}, not {id}",
            shown_value(&info["id"])
        ));
    }
    let said = &info["parentID"];
    if !said.is_null() && said.as_str() != parent {
        let of = parent.map_or("but its manifest gives it no parent".into(), |p| {
            format!("but its manifest's parent is {p}")
        });
        return Err(format!("makes {id} a child of {}, {of}", shown_value(said)));
    }
    checked_title(d.title, &info["title"])?;
    for m in doc["messages"].as_array().into_iter().flatten() {
        let message = &m["info"];
        let message_id = plain_id(&message["id"]).map_err(|why| format!("has {why}"))?;
        if !owned(&message["sessionID"], id) {
            return Err(format!(
                "puts the message {message_id} in the session {}",
                shown_value(&message["sessionID"])
            ));
        }
        for p in m["parts"].as_array().into_iter().flatten() {
            let part_id = plain_id(&p["id"]).map_err(|why| format!("has {why}"))?;
            if !owned(&p["sessionID"], id) || !owned(&p["messageID"], message_id) {
                return Err(format!(
                    "puts the part {part_id} of {message_id} in the message {} of the session {}",
                    shown_value(&p["messageID"]),
                    shown_value(&p["sessionID"])
                ));
            }
        }
    }
    Ok(())
}

/// Absent, or the string `owner`.
fn owned(v: &Value, owner: &str) -> bool {
    v.is_null() || v.as_str() == Some(owner)
}

/// A message's or part's id: letters, digits, `_` and `-` (OpenCode's `msg_…`, `prt_…`), in
/// pieces joined by single dots (a 0.1 part converted as 0.5 converted it: `msg_….0`).
fn plain_id(v: &Value) -> Result<&str, String> {
    let plain = |id: &str| {
        (1..=128).contains(&id.len())
            && id.split('.').all(|piece| {
                !piece.is_empty()
                    && piece
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
            })
    };
    match v.as_str() {
        Some(id) if plain(id) => Ok(id),
        _ => Err(format!("the message or part id {}", shown_value(v))),
    }
}

/// Longest title a bundle carries, in characters.
const MAX_TITLE: usize = 1000;

/// The session's title in the record: none, or one without control or bidi characters that
/// the manifest shows as it is (the manifest keeps its first line, cut to a length and marked
/// `…`, as the session list shows it).
fn checked_title(shown: &str, title: &Value) -> Result<(), String> {
    let text = match title {
        Value::Null => return Ok(()),
        Value::String(t) => t.as_str(),
        other => return Err(format!("has the title {}", shown_value(other))),
    };
    let safe = text.chars().count() <= MAX_TITLE
        && !text.chars().any(agent_sessions_model::resume::is_control);
    if !safe {
        return Err(format!(
            "has the title {}, which holds control or bidi characters or is over 1000 characters",
            shown_value(title)
        ));
    }
    let text = text.trim();
    let agrees = match shown.strip_suffix('…') {
        Some(cut) => text.starts_with(cut.trim_end()),
        None => text == shown,
    };
    if agrees {
        Ok(())
    } else {
        Err(format!(
            "has the title {}, which its manifest shows as {}",
            shown_value(title),
            shown_value(&Value::String(shown.to_owned()))
        ))
    }
}

/// The directory restored into, and the fields OpenCode 1.2 and later require of a session
/// that older versions did not write (1.0's legacy storage and 0.x have no `slug`; 0.x no
/// `projectID`): given the values OpenCode itself gives a session it files under no project.
fn finish(doc: &mut Value, dir: &str) {
    doc["info"]["directory"] = Value::String(dir.to_owned());
    let Some(info) = doc["info"].as_object_mut() else {
        return;
    };
    let id = info.get("id").and_then(Value::as_str).unwrap_or_default();
    let tail: String = id
        .chars()
        .rev()
        .take(6)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let slug = format!("restored-{}", tail.to_ascii_lowercase());
    info.entry("slug").or_insert(Value::String(slug));
    info.entry("projectID")
        .or_insert(Value::String("global".into()));
    info.entry("title").or_insert(Value::String(String::new()));
}
