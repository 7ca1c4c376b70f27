//! OpenCode 0.x storage (0.1 – 0.5; 0.6 moved to the layout `legacy.rs` reads): one storage per
//! project, `project/<slug>/storage/`, where the slug is the git root with `/` as `-`, or
//! `global` outside a repository:
//!
//! - `session/info/<sessionID>.json`: id, version, title, parentID, time; no directory, no
//!   project (the messages carry `path.cwd` / `path.root`);
//! - `session/message/<sessionID>/<messageID>.json`, in one of three shapes:
//!   0.1 (`parts` inline, fields under `metadata`), then the 1.x message shape with `parts`
//!   inline, then (0.4/0.5) without them, the parts in
//!   `session/part/<sessionID>/<messageID>/<partID>.json`.
//!
//! One assistant message holds all the model steps of a turn (`step-start` parts between them),
//! and counts once, as OpenCode shows it. 0.5 rewrites 0.1 messages to its own shape on start,
//! and 1.0 copies git projects' sessions into the new layout and leaves these files: the same
//! id in both is one session (see [`super::winner`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::legacy::{self, stem, LegacyCursor, Opened, StoredMessage};
use super::{Candidate, Origin};
use crate::files::{self, Entry, Kind, Walker};
use crate::ScanProgress;

/// The folder OpenCode 0.x files sessions outside a git repository under.
const GLOBAL: &str = "global";

/// Every session file, `root/project/*/storage/session/info/*.json`.
pub fn discover(root: &Path, walker: &mut Walker) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for project in walker.entries(&root.join("project")) {
        if !walker.descend(&project) {
            continue;
        }
        let info = project.path.join("storage/session/info");
        for file in entries(walker, &info) {
            if file.name.ends_with(".json") && walker.is(&file, Kind::File) {
                out.push(file.path);
            }
        }
    }
    out.sort();
    out
}

/// The entries of a directory found by name below a store's root, which is not entered if it
/// is a link (a link named like a store folder would lead the walk anywhere).
fn entries(walker: &mut Walker, dir: &Path) -> Vec<Entry> {
    for d in dir.ancestors().take(4) {
        if std::fs::symlink_metadata(d).is_ok_and(|m| m.file_type().is_symlink()) {
            walker.problem(
                d,
                "not read: a symbolic link to a directory, not followed".into(),
            );
            return Vec::new();
        }
    }
    walker.entries(dir)
}

/// Whether `path` is a 0.x session file (`…/project/<slug>/storage/session/info/<id>.json`).
pub fn is_session_file(path: &Path) -> bool {
    let name = |n: usize| path.ancestors().nth(n).and_then(Path::file_name);
    name(1).is_some_and(|n| n == "info")
        && name(2).is_some_and(|n| n == "session")
        && name(3).is_some_and(|n| n == "storage")
        && name(5).is_some_and(|n| n == "project")
}

/// `project/<slug>/storage` of a session file.
pub fn storage_of(session_file: &Path) -> Option<&Path> {
    session_file.ancestors().nth(3)
}

/// The JSON files of a folder of the storage, in name order (ids sort by creation time).
fn json_files(dir: &Path, problems: &mut Vec<String>) -> Vec<PathBuf> {
    legacy::json_files_listed(dir, problems, entries)
}

/// A session's messages with their parts, in the shape 1.x stores (what `parts.rs` reads), in
/// order. Unreadable files are skipped and reported.
pub fn messages(storage: &Path, id: &str, problems: &mut Vec<String>) -> Vec<StoredMessage> {
    let Some(messages) = legacy::named(&storage.join("session/message"), id, problems) else {
        return Vec::new();
    };
    let files = json_files(&messages, problems);
    let mut out = Vec::new();
    for (msg_id, mut msg) in legacy::read_messages(files, problems) {
        let (msg, parts) = if msg["metadata"].is_object() {
            from_v1(&msg, &msg_id)
        } else if let Some(Value::Array(inline)) =
            msg.as_object_mut().and_then(|m| m.remove("parts"))
        {
            (msg, with_ids(inline, &msg_id))
        } else {
            let dir = storage.join("session/part").join(id);
            let part_files = match legacy::named(&dir, &msg_id, problems) {
                Some(dir) => json_files(&dir, problems),
                None => Vec::new(),
            };
            (msg, legacy::read_documents(part_files, problems))
        };
        out.push((msg_id, msg, parts));
    }
    out
}

/// Inline parts have no ids of their own; the message id and position name them (blob keys).
fn with_ids(parts: Vec<Value>, msg_id: &str) -> Vec<Value> {
    parts
        .into_iter()
        .enumerate()
        .map(|(i, mut p)| {
            if p["id"].is_null() && p.is_object() {
                p["id"] = Value::String(format!("{msg_id}.{i}"));
            }
            p
        })
        .collect()
}

/// A 0.1 message (`parts` inline, the rest under `metadata`) in the 1.x shape: what OpenCode's
/// own migration (`MessageV2.fromV1` in 0.5) makes of it, keeping reasoning and file parts too
/// and any part type it does not know (shown as a notice rather than lost).
fn from_v1(v1: &Value, msg_id: &str) -> (Value, Vec<Value>) {
    let meta = &v1["metadata"];
    let assistant = &meta["assistant"];
    let mut info = json!({
        "id": msg_id,
        "sessionID": meta["sessionID"],
        "role": v1["role"],
        "time": meta["time"],
    });
    if v1["role"] == "assistant" {
        for key in ["cost", "path", "summary", "tokens", "modelID", "providerID"] {
            info[key] = assistant[key].clone();
        }
        info["error"] = meta["error"].clone();
    }
    let parts = v1["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| part_from_v1(p, &meta["tool"]))
        .collect();
    (info, with_ids(parts, msg_id))
}

fn part_from_v1(p: &Value, tools: &Value) -> Value {
    match p["type"].as_str() {
        Some("tool-invocation") => {
            let call = &p["toolInvocation"];
            let id = call["toolCallId"].as_str().unwrap_or("");
            json!({
                "type": "tool",
                "callID": id,
                "tool": call["toolName"],
                "state": tool_state_from_v1(call, &tools[id]),
            })
        }
        Some("file") => json!({
            "type": "file",
            "mime": p["mediaType"],
            "filename": p["filename"],
            "url": p["url"],
        }),
        _ => p.clone(),
    }
}

/// `metadata.tool[<callID>]` holds the title, the times and the tool's own metadata.
fn tool_state_from_v1(call: &Value, recorded: &Value) -> Value {
    let mut metadata = recorded.clone();
    if let Some(m) = metadata.as_object_mut() {
        m.remove("title");
        m.remove("time");
    }
    match call["state"].as_str() {
        Some("result") => json!({
            "status": "completed",
            "input": call["args"],
            "output": call["result"],
            "title": recorded["title"],
            "time": recorded["time"],
            "metadata": metadata,
        }),
        Some("call") => json!({"status": "running", "input": call["args"]}),
        _ => json!({"status": "pending", "input": call["args"]}),
    }
}

/// Reads a session file and its messages into a candidate (counts as SPEC §6 defines them).
pub fn scan(session_file: &Path) -> LegacyCursor {
    let mut cursor = LegacyCursor::default();
    let Some(Opened {
        session,
        storage,
        id,
        tally,
    }) = legacy::open(session_file, storage_of, messages, &mut cursor)
    else {
        return cursor;
    };
    let mut meta = legacy::session_meta(&session, id, session_file, &tally);
    meta.cwd = tally.cwd.clone();
    // Outside a repository `path.root` is just the cwd.
    let global = storage.parent().and_then(Path::file_name) == Some(GLOBAL.as_ref());
    meta.repo_root = tally.root.clone().filter(|r| !global && r != "/");
    // 0.1 touches the session file only for its title, 0.5 for each prompt.
    let updated = session["time"]["updated"].as_i64().max(tally.last_time);
    meta.updated_at = updated.and_then(chrono::DateTime::from_timestamp_millis);
    cursor.candidate = Some(Candidate {
        origin: Origin::Project,
        // The file's own value decides between copies: 1.0 copied the file as it was.
        time_updated: session["time"]["updated"].as_i64().unwrap_or(0),
        meta,
    });
    cursor
}

/// One part of a session, for blobs.
pub fn part(session_file: &Path, part_id: &str) -> Option<Value> {
    let storage = storage_of(session_file)?;
    let mut problems = Vec::new();
    messages(storage, &stem(session_file), &mut problems)
        .into_iter()
        .flat_map(|(_, _, parts)| parts)
        .find(|p| p["id"] == part_id)
}

/// What a scan keeps about one 0.x session: its files' stamps and what they gave.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tracked {
    /// (size, mtime) of the session file and of its message folder. 0.x rewrites a message
    /// file (by rename, so the folder changes) as each message completes, while the session
    /// file changes only with the title (0.1) or a new prompt (0.5).
    pub stamps: Vec<(u64, i64)>,
    pub cursor: LegacyCursor,
}

fn stamps(session_file: &Path) -> Vec<(u64, i64)> {
    let messages = storage_of(session_file)
        .map(|s| s.join("session/message").join(stem(session_file)))
        .unwrap_or_default();
    [session_file, messages.as_path()]
        .iter()
        .map(|p| files::stat(p).unwrap_or((0, 0)))
        .collect()
}

/// Brings the tracked 0.x sessions up to date: a session is read again only when its file or
/// message folder changed.
pub fn refresh(
    found: Vec<PathBuf>,
    prev: &BTreeMap<PathBuf, Tracked>,
    progress: &ScanProgress,
) -> BTreeMap<PathBuf, Tracked> {
    progress.add_total(found.len() as u64, 0);
    let mut next = BTreeMap::new();
    for file in found {
        let stamps = stamps(&file);
        let tracked = match prev.get(&file) {
            Some(t) if t.stamps == stamps => t.clone(),
            _ => Tracked {
                cursor: scan(&file),
                stamps,
            },
        };
        progress.add_done(1, 0);
        next.insert(file, tracked);
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_0_1_tool_invocation_becomes_a_tool_part_with_its_recorded_metadata() {
        let v1 = json!({
            "id": "msg_1", "role": "assistant",
            "parts": [
                {"type": "step-start"},
                {"type": "tool-invocation", "toolInvocation": {
                    "state": "result", "toolCallId": "t1", "toolName": "bash",
                    "args": {"command": "ls"}, "result": "a.txt"}},
                {"type": "tool-invocation", "toolInvocation": {
                    "state": "partial-call", "toolCallId": "t2", "toolName": "read", "args": {}}}
            ],
            "metadata": {
                "sessionID": "ses_1", "time": {"created": 5, "completed": 9},
                "tool": {"t1": {"title": "ls", "time": {"start": 6, "end": 7}, "exit": 0}},
                "assistant": {"modelID": "m", "path": {"cwd": "/w", "root": "/w"},
                              "tokens": {"input": 1, "output": 2}, "cost": 0.5}
            }
        });
        let (info, parts) = from_v1(&v1, "msg_1");
        assert_eq!(info["modelID"], "m");
        assert_eq!(info["path"]["cwd"], "/w");
        assert_eq!(info["time"]["created"], 5);
        assert_eq!(parts[1]["type"], "tool");
        assert_eq!(parts[1]["id"], "msg_1.1");
        assert_eq!(
            parts[1]["state"],
            json!({"status": "completed", "input": {"command": "ls"}, "output": "a.txt",
                   "title": "ls", "time": {"start": 6, "end": 7}, "metadata": {"exit": 0}})
        );
        assert_eq!(parts[2]["state"]["status"], "pending");
    }

    #[test]
    fn session_files_are_told_from_the_1_x_layout() {
        assert!(is_session_file(Path::new(
            "/r/project/tmp-demo/storage/session/info/ses_1.json"
        )));
        assert!(!is_session_file(Path::new(
            "/r/storage/session/info/ses_1.json"
        )));
        assert!(!is_session_file(Path::new(
            "/r/storage/session/prj/ses_1.json"
        )));
    }
}
