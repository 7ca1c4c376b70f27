//! Restoring OpenCode sessions. The bundle holds each as `opencode export` writes it; the
//! engine rewrites the directory in it and checks it ([`super::bundle`]), and then:
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

use super::copies_of;
use super::project::{self, Repository};
use crate::capability::bundle::{insert, Docs, Failed, Host, Way, Write};
use crate::sqlite;

/// How this store is restored into (see the module doc). `version` is the OpenCode version
/// that wrote the session: `opencode import` checks a session against its own current schema,
/// which sessions written before 1.2 (the first with the database) do not meet, so those go
/// in as rows, as 1.2 itself moved them from its JSON storage into the database.
pub(super) fn way(
    root: &Path,
    program: Option<&Path>,
    version: Option<&str>,
    host: &dyn Host,
) -> Result<Way, String> {
    let current = version.is_some_and(at_least_1_2);
    let importable =
        current && root.file_name().is_some_and(|n| n == "opencode") && root.parent().is_some();
    if let (true, Some(program)) = (importable, program) {
        if has_import(program, host) {
            return Ok(Way::Import {
                program: program.to_path_buf(),
            });
        }
    }
    let db = root.join(DB);
    if db.is_file() {
        return Ok(Way::Rows { db });
    }
    Err(format!(
        "{} has no opencode.db and no OpenCode with an import command was found to make one; \
         start OpenCode once with this store, or install it",
        root.display()
    ))
}

/// OpenCode's database in its store.
const DB: &str = "opencode.db";

/// `1.2` or later (`1.18.33`, `2.0`).
fn at_least_1_2(version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    (major, minor) >= (1, 2)
}

/// Whether `program --help` lists `import` (OpenCode 1.0 and later), asked with the few
/// seconds a `--help` needs (a hung binary is stopped, not waited on for a minute).
fn has_import(program: &Path, host: &dyn Host) -> bool {
    host.help(program).is_ok_and(|help| {
        help.lines().any(|l| {
            let mut words = l.split_whitespace();
            words.next() == Some("opencode") && words.next() == Some("import")
        })
    })
}

/// Writes every document the way the engine was told (the engine has read and checked each
/// one already, so a bad one was refused with nothing written).
pub(super) fn write(
    w: &Write,
    docs: &mut dyn Docs,
    host: &dyn Host,
) -> Result<Vec<String>, Failed> {
    match w.way {
        Way::Import { program } => import(w, docs, host, program),
        Way::Rows { db } => insert_rows(w, docs, host, db).map(|()| Vec::new()),
    }
}

/// `opencode import` of each session; what OpenCode said.
fn import(
    w: &Write,
    docs: &mut dyn Docs,
    host: &dyn Host,
    program: &Path,
) -> Result<Vec<String>, Failed> {
    let temp = PrivateDir::new().map_err(|e| Failed {
        what: "prepare the import".into(),
        reason: e.to_string(),
        state: "nothing was changed".into(),
    })?;
    let data_home = w.root.parent().unwrap_or(w.root);
    let env = [(
        "XDG_DATA_HOME".to_owned(),
        data_home.to_string_lossy().into_owned(),
    )];
    let mut imported: Vec<String> = Vec::new();
    let mut said = Vec::new();
    for (i, id) in w.ids.iter().enumerate() {
        let id = id.clone();
        let file = temp.0.join(format!("{id}.json"));
        let run = docs
            .get(i)
            .and_then(|doc| write_private(&file, &doc).map_err(|e| e.to_string()))
            .and_then(|()| {
                let argv = [
                    program.to_string_lossy().into_owned(),
                    "import".into(),
                    file.to_string_lossy().into_owned(),
                ];
                host.run(&argv, &env, Some(w.dir))
            })
            .and_then(|out| {
                if copies_of(w.root, &id).is_empty() {
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
                if !copies_of(w.root, &id).is_empty() {
                    imported.push(id.clone());
                }
                return Err(Failed {
                    what: format!("import {id} with OpenCode"),
                    reason,
                    state: undo_import(w.root, &imported, host),
                });
            }
        }
    }
    Ok(said)
}

/// Deletes the sessions imported before a failure.
fn undo_import(root: &Path, imported: &[String], host: &dyn Host) -> String {
    if imported.is_empty() {
        return "nothing was changed".into();
    }
    match host.delete(&root.join(DB), imported) {
        Ok(()) => "what it had imported was deleted again, so nothing was changed".into(),
        Err(e) => format!(
            "and {} could not be deleted again: {e}",
            imported.join(", ")
        ),
    }
}

/// Every session's rows into `db` in one transaction.
fn insert_rows(w: &Write, docs: &mut dyn Docs, host: &dyn Host, db: &Path) -> Result<(), Failed> {
    let failed = |reason: String| Failed {
        what: format!("write the sessions into {}", db.display()),
        reason,
        state: "the transaction was rolled back, so nothing was changed".into(),
    };
    // git runs before OpenCode's database is locked.
    let repo = project::repository(w.dir, host);
    let mut conn = host.open(db).map_err(|e| failed(e.to_string()))?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| failed(format!("OpenCode's database is busy: {e}")))?;
    let project = project_for(&tx, repo.as_ref()).map_err(|e| failed(e.to_string()))?;
    for i in 0..w.ids.len() {
        let doc = docs.get(i).map_err(failed)?;
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
