//! Restoring OpenCode sessions. The bundle holds each as `opencode export` writes it; the
//! directory is rewritten in it, and then:
//!
//! - OpenCode's own `opencode import <file>` runs for each session (parents first) when the
//!   installed OpenCode has that command, the store is `$XDG_DATA_HOME/opencode` (the only
//!   store OpenCode can be pointed at) and the session was written by OpenCode 1.2 or later,
//!   in the new directory, so OpenCode files the session under that directory's project
//!   itself. Its import writes the session before checking the messages, so a refusal part
//!   way deletes what it wrote (and the sessions imported before).
//! - Otherwise the rows (`session`, `message`, `part`) of every session go into `opencode.db`
//!   in one transaction that waits for OpenCode's own writers and leaves its journal mode (WAL)
//!   alone. The session is filed under the project OpenCode gives the directory
//!   ([`super::project`]: its git repository's, made if missing, else `global`). A row that is
//!   there already fails the insert: nothing is overwritten.

use std::path::{Path, PathBuf};

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, TransactionBehavior};
use serde_json::Value;

use super::files::edit_string;
use super::project::{self, Repository};
use super::records::{disagrees, parent_of, shown_value};
use super::sql::insert;
use super::{BundleError, Method, Plan};
use crate::actions::trash::{agent, open_for_writing};
use crate::bundle::jsontext::edit_tree;
use crate::bundle::manifest::check_title;
use crate::bundle::reader::Bundle;
use crate::bundle::records;
use crate::model::{ProviderKind, SessionMeta};
use crate::provider::opencode::copies_of;
use crate::provider::sqlite;

/// How this store is restored into (see the module doc). `version` is the OpenCode version
/// that wrote the session: `opencode import` checks a session against its own current schema,
/// which sessions written before 1.2 (the first with the database) do not meet, so those go
/// in as rows, as 1.2 itself moved them from its JSON storage into the database.
pub(super) fn method(
    root: &Path,
    agents: &super::Agents,
    version: Option<&str>,
) -> Result<Method, BundleError> {
    let current = version.is_some_and(at_least_1_2);
    let importable =
        current && root.file_name().is_some_and(|n| n == "opencode") && root.parent().is_some();
    if let (true, Some(program)) = (importable, &agents.opencode) {
        if has_import(program) {
            return Ok(Method::OpencodeImport {
                program: program.clone(),
            });
        }
    }
    let db = root.join("opencode.db");
    if db.is_file() {
        return Ok(Method::OpencodeRows { db });
    }
    Err(BundleError::NotRestorable(format!(
        "{} has no opencode.db and no OpenCode with an import command was found to make one; \
         start OpenCode once with this store, or install it",
        root.display()
    )))
}

/// `1.2` or later (`1.18.33`, `2.0`).
fn at_least_1_2(version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    (major, minor) >= (1, 2)
}

/// Whether `program --help` lists `import` (OpenCode 1.0 and later), asked with the few
/// seconds a `--help` needs (a hung binary is stopped, not waited on for a minute).
fn has_import(program: &Path) -> bool {
    agent::help(program, &[]).is_ok_and(|help| {
        help.lines().any(|l| {
            let mut words = l.split_whitespace();
            words.next() == Some("opencode") && words.next() == Some("import")
        })
    })
}

/// A copy of session `id` in the store, found by OpenCode's own rules.
pub(super) fn existing(plan: &Plan, id: &str) -> Option<SessionMeta> {
    if plan.provider != ProviderKind::Opencode {
        return None;
    }
    let (_, path) = copies_of(&plan.root, id).into_iter().next()?;
    Some(SessionMeta::new(
        ProviderKind::Opencode,
        id.to_owned(),
        path,
    ))
}

/// What an OpenCode session document may take in memory as a tree: it is one JSON document
/// (`opencode export`'s form, which `opencode import` reads whole too), so it is parsed whole,
/// one at a time, within this budget ([`records`]: a small bundle must not make a huge tree).
/// The parser's buffer, a part's row text and SQLite's copies of it come on top, and the
/// listing after a restore reads the session back holding its largest part about four times:
/// 48 MiB keeps all of it under 256 MiB.
const DOCUMENT_BYTES: usize = 48 << 20;

/// The export document of session `id` (the archive's `name`) with the directory rewritten,
/// checked to say what the manifest says ([`checked_document`]).
pub(super) fn document(
    bundle: &Bundle,
    plan: &Plan,
    id: &str,
    name: &str,
) -> Result<Value, BundleError> {
    let mut doc = bundle.stream(name, |r| records::parse_reader(r, name, DOCUMENT_BYTES))?;
    edit_tree(&mut doc, &mut |s| edit_string(s, plan));
    if !doc["info"].is_object() || !doc["messages"].is_array() {
        return Err(BundleError::Invalid(format!(
            "{name} is not an OpenCode session"
        )));
    }
    checked_document(bundle, plan, id, name, &doc)?;
    doc["info"]["directory"] = Value::String(plan.dir_text.clone());
    fill_required(&mut doc["info"]);
    Ok(doc)
}

/// What the rows (ours or OpenCode's import's) take from the document, as the manifest says
/// it: the session's id, its parent (none, or the manifest's, which is in the bundle), a
/// title without control or bidi characters that the manifest shows; each message and part
/// of this session (and a part of its message), with an id of plain letters, digits, `_`, `-`.
fn checked_document(
    bundle: &Bundle,
    plan: &Plan,
    id: &str,
    name: &str,
    doc: &Value,
) -> Result<(), BundleError> {
    let info = &doc["info"];
    let says = |what: String| disagrees(name, what);
    if info["id"].as_str() != Some(id) {
        return Err(says(format!(
            "says its session is {}, not {id}",
            shown_value(&info["id"])
        )));
    }
    let parent = parent_of(bundle, plan, id);
    let said = &info["parentID"];
    if !said.is_null() && said.as_str() != parent {
        let of = parent.map_or("but its manifest gives it no parent".into(), |p| {
            format!("but its manifest's parent is {p}")
        });
        return Err(says(format!(
            "makes {id} a child of {}, {of}",
            shown_value(said)
        )));
    }
    checked_title(bundle, id, &info["title"]).map_err(says)?;
    for m in doc["messages"].as_array().into_iter().flatten() {
        let message = &m["info"];
        let message_id = plain_id(&message["id"]).map_err(|why| says(format!("has {why}")))?;
        if !owned(&message["sessionID"], id) {
            return Err(says(format!(
                "puts the message {message_id} in the session {}",
                shown_value(&message["sessionID"])
            )));
        }
        for p in m["parts"].as_array().into_iter().flatten() {
            let part_id = plain_id(&p["id"]).map_err(|why| says(format!("has {why}")))?;
            if !owned(&p["sessionID"], id) || !owned(&p["messageID"], message_id) {
                return Err(says(format!(
                    "puts the part {part_id} of {message_id} in the message {} of the session {}",
                    shown_value(&p["messageID"]),
                    shown_value(&p["sessionID"])
                )));
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

/// The session's title in the record: none, or one without control or bidi characters that
/// the manifest shows as it is (the manifest keeps its first line, cut to a length and marked
/// `…`, as the session list shows it).
fn checked_title(bundle: &Bundle, id: &str, title: &Value) -> Result<(), String> {
    let shown = bundle
        .manifest
        .sessions()
        .find(|s| s.id == id)
        .and_then(|s| s.title.as_deref())
        .unwrap_or_default();
    let text = match title {
        Value::Null => return Ok(()),
        Value::String(t) => t.as_str(),
        other => return Err(format!("has the title {}", shown_value(other))),
    };
    check_title(text).map_err(|_| {
        format!(
            "has the title {}, which holds control or bidi characters or is over 1000 characters",
            shown_value(title)
        )
    })?;
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

/// Fields OpenCode 1.2 and later require of a session that older versions did not write
/// (1.0's legacy storage and 0.x have no `slug`; 0.x no `projectID`): given the values
/// OpenCode itself gives a session it files under no project.
fn fill_required(info: &mut Value) {
    let Some(info) = info.as_object_mut() else {
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

/// `opencode import` of each session; what OpenCode said.
pub(super) fn import(
    bundle: &Bundle,
    plan: &Plan,
    program: &Path,
) -> Result<Vec<String>, BundleError> {
    // Every document is read (and dropped) before anything is imported, so a bad one refuses
    // the restore with nothing written; each is read again when it is imported.
    for (id, name) in &plan.docs {
        document(bundle, plan, id, name)?;
    }
    let temp = PrivateDir::new().map_err(|e| BundleError::Failed {
        what: "prepare the import".into(),
        reason: e.to_string(),
        state: "nothing was changed".into(),
    })?;
    let data_home = plan.root.parent().unwrap_or(&plan.root);
    let env = [(
        "XDG_DATA_HOME".to_owned(),
        data_home.to_string_lossy().into_owned(),
    )];
    let mut imported: Vec<String> = Vec::new();
    let mut said = Vec::new();
    for (id, name) in &plan.docs {
        let id = id.clone();
        let file = temp.0.join(format!("{id}.json"));
        let run = document(bundle, plan, &id, name)
            .map_err(|e| e.to_string())
            .and_then(|doc| write_private(&file, &doc).map_err(|e| e.to_string()))
            .and_then(|()| {
                let argv = [
                    program.to_string_lossy().into_owned(),
                    "import".into(),
                    file.to_string_lossy().into_owned(),
                ];
                agent::output_in(&argv, &env, Some(&plan.dir))
            })
            .and_then(|out| {
                if copies_of(&plan.root, &id).is_empty() {
                    Err(format!(
                        "OpenCode reported success but {id} is not in the store"
                    ))
                } else {
                    Ok(out)
                }
            });
        match run {
            Ok(out) => {
                said.extend(
                    out.lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(str::to_owned)
                        .take(3),
                );
                imported.push(id);
            }
            Err(reason) => {
                // OpenCode's import writes the session before it checks the messages: what a
                // failed import left of it goes too (it was not there before: checked).
                if !copies_of(&plan.root, &id).is_empty() {
                    imported.push(id.clone());
                }
                return Err(BundleError::Failed {
                    what: format!("import {id} with OpenCode"),
                    reason,
                    state: undo_import(&plan.root, &imported),
                });
            }
        }
    }
    Ok(said)
}

/// Deletes the sessions imported before a failure.
fn undo_import(root: &Path, imported: &[String]) -> String {
    if imported.is_empty() {
        return "nothing was changed".into();
    }
    match crate::provider::opencode::trash::delete_rows(&root.join("opencode.db"), imported) {
        Ok(()) => "what it had imported was deleted again, so nothing was changed".into(),
        Err(e) => format!(
            "and {} could not be deleted again: {e}",
            imported.join(", ")
        ),
    }
}

/// Every session's rows into `db` in one transaction.
pub(super) fn insert_rows(bundle: &Bundle, plan: &Plan, db: &Path) -> Result<(), BundleError> {
    // Every document is read (and dropped) before the database is locked, so a bad one
    // refuses the restore at once; each is read again, one at a time, to insert it.
    for (id, name) in &plan.docs {
        document(bundle, plan, id, name)?;
    }
    let failed = |reason: String| BundleError::Failed {
        what: format!("write the sessions into {}", db.display()),
        reason,
        state: "the transaction was rolled back, so nothing was changed".into(),
    };
    // git runs before OpenCode's database is locked.
    let repo = project::repository(&plan.dir);
    let mut conn = open_for_writing(db).map_err(|e| failed(e.to_string()))?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| failed(format!("OpenCode's database is busy: {e}")))?;
    let project = project_for(&tx, repo.as_ref()).map_err(|e| failed(e.to_string()))?;
    for (id, name) in &plan.docs {
        let doc = document(bundle, plan, id, name).map_err(|e| failed(e.to_string()))?;
        insert_session(&tx, doc, &project).map_err(|e| failed(e.to_string()))?;
    }
    tx.commit().map_err(|e| failed(e.to_string()))
}

/// The project OpenCode files a directory's sessions under ([`super::project`]): the
/// repository's project row when there is one (by OpenCode's id for it, else by its worktree,
/// as an older OpenCode may have keyed it), else a new row for it as OpenCode makes one;
/// outside a repository (or in one without commits), OpenCode's `global` project.
fn project_for(conn: &Connection, repo: Option<&Repository>) -> rusqlite::Result<String> {
    if !sqlite::has_table(conn, "project")? {
        return Ok("global".into());
    }
    let mut stmt = conn.prepare("SELECT id, worktree FROM project")?;
    let rows: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .filter_map(Result::ok)
        .collect();
    let now = Sql::Integer(chrono::Utc::now().timestamp_millis());
    if let Some(repo) = repo {
        if let Some(id) = &repo.id {
            if rows.iter().any(|(i, _)| i == id) {
                return Ok(id.clone());
            }
        }
        if let Some((id, _)) = rows.iter().find(|(_, w)| *w == repo.worktree) {
            return Ok(id.clone());
        }
        if let Some(id) = &repo.id {
            insert(
                conn,
                "project",
                &[
                    ("id", Sql::Text(id.clone())),
                    ("worktree", Sql::Text(repo.worktree.clone())),
                    ("vcs", Sql::Text("git".into())),
                    ("sandboxes", Sql::Text("[]".into())),
                    ("time_created", now.clone()),
                    ("time_updated", now),
                ],
            )?;
            return Ok(id.clone());
        }
    }
    if !rows.iter().any(|(id, _)| id == "global") {
        insert(
            conn,
            "project",
            &[
                ("id", Sql::from("global".to_owned())),
                ("worktree", Sql::from("/".to_owned())),
                ("sandboxes", Sql::from("[]".to_owned())),
                ("time_created", now.clone()),
                ("time_updated", now),
            ],
        )?;
    }
    Ok("global".into())
}

fn text(v: &Value) -> Sql {
    v.as_str().map_or(Sql::Null, |s| Sql::Text(s.to_owned()))
}

fn int(v: &Value) -> Sql {
    v.as_i64().map_or(Sql::Null, Sql::Integer)
}

fn json(v: &Value) -> Sql {
    if v.is_null() {
        Sql::Null
    } else {
        Sql::Text(v.to_string())
    }
}

/// `v` without the id fields the row keeps in columns (written from `v`, not a copy of it:
/// a part may be large).
fn data(v: &Value, drop: &[&str]) -> Sql {
    let text = match v.as_object() {
        Some(o) => {
            let kept: std::collections::BTreeMap<&str, &Value> = o
                .iter()
                .filter(|(k, _)| !drop.contains(&k.as_str()))
                .map(|(k, v)| (k.as_str(), v))
                .collect();
            serde_json::to_string(&kept)
        }
        None => serde_json::to_string(v),
    };
    Sql::Text(text.unwrap_or_default())
}

/// The rows of `doc`, which is taken apart as they go in (a part's tree is dropped once its
/// row's text is made, so a large part is not held twice while SQLite copies it).
fn insert_session(conn: &Connection, mut doc: Value, project: &str) -> rusqlite::Result<()> {
    let i = &doc["info"];
    let id = i["id"].as_str().unwrap_or_default().to_owned();
    let t = &i["tokens"];
    insert(
        conn,
        "session",
        &[
            ("id", Sql::Text(id.clone())),
            ("project_id", Sql::Text(project.to_owned())),
            ("workspace_id", text(&i["workspaceID"])),
            ("parent_id", text(&i["parentID"])),
            ("slug", text(&i["slug"])),
            ("directory", text(&i["directory"])),
            ("path", text(&i["path"])),
            ("title", text(&i["title"])),
            ("version", text(&i["version"])),
            ("share_url", text(&i["share"]["url"])),
            ("summary_additions", int(&i["summary"]["additions"])),
            ("summary_deletions", int(&i["summary"]["deletions"])),
            ("summary_files", int(&i["summary"]["files"])),
            ("summary_diffs", json(&i["summary"]["diffs"])),
            ("metadata", json(&i["metadata"])),
            ("cost", i["cost"].as_f64().map_or(Sql::Null, Sql::Real)),
            ("tokens_input", int(&t["input"])),
            ("tokens_output", int(&t["output"])),
            ("tokens_reasoning", int(&t["reasoning"])),
            ("tokens_cache_read", int(&t["cache"]["read"])),
            ("tokens_cache_write", int(&t["cache"]["write"])),
            ("revert", json(&i["revert"])),
            ("permission", json(&i["permission"])),
            ("agent", text(&i["agent"])),
            ("model", json(&i["model"])),
            ("time_created", int(&i["time"]["created"])),
            ("time_updated", int(&i["time"]["updated"])),
            ("time_compacting", int(&i["time"]["compacting"])),
            ("time_archived", int(&i["time"]["archived"])),
        ],
    )?;
    for m in doc["messages"].as_array_mut().into_iter().flatten() {
        let info = &m["info"];
        let created = int(&info["time"]["created"]);
        let updated = match int(&info["time"]["completed"]) {
            Sql::Null => created.clone(),
            done => done,
        };
        let msg_id = info["id"].as_str().unwrap_or_default().to_owned();
        insert(
            conn,
            "message",
            &[
                ("id", Sql::Text(msg_id.clone())),
                ("session_id", Sql::Text(id.clone())),
                ("time_created", created.clone()),
                ("time_updated", updated),
                ("data", data(info, &["id", "sessionID"])),
            ],
        )?;
        for p in m["parts"].as_array_mut().into_iter().flatten() {
            let p = p.take();
            let start = match int(&p["time"]["start"]) {
                Sql::Null => created.clone(),
                s => s,
            };
            let row = [
                ("id", text(&p["id"])),
                ("message_id", Sql::Text(msg_id.clone())),
                ("session_id", Sql::Text(id.clone())),
                ("time_created", start.clone()),
                ("time_updated", start),
                ("data", data(&p, &["id", "sessionID", "messageID"])),
            ];
            drop(p);
            insert(conn, "part", &row)?;
        }
    }
    Ok(())
}

/// `doc` written to a new file only this user can read, without a copy of it in memory.
fn write_private(path: &Path, doc: &Value) -> std::io::Result<()> {
    use std::io::Write;
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    let mut w = std::io::BufWriter::new(open.open(path)?);
    serde_json::to_writer(&mut w, doc)?;
    w.flush()
}

/// A folder only this user can read, removed when dropped: the documents handed to OpenCode.
struct PrivateDir(PathBuf);

impl PrivateDir {
    fn new() -> std::io::Result<PrivateDir> {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "agent-sessions-restore-{}-{stamp:x}",
            std::process::id()
        ));
        #[cfg_attr(not(unix), allow(unused_mut))] // only unix sets a mode
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&dir)?;
        Ok(PrivateDir(dir))
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
