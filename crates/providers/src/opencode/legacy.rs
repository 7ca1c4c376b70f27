//! OpenCode's legacy JSON storage (1.0.x–1.1.x, still on disk after upgrades because 1.18 no
//! longer migrates it): `storage/session/<projectID>/<id>.json`,
//! `storage/message/<sessionID>/<msgID>.json`, `storage/part/<msgID>/<partID>.json`,
//! `storage/project/<projectID>.json`. Ids sort by creation time, so file names give the order.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::parts;
use super::{Candidate, Origin};
use crate::error::Error;
use crate::files::{self, Kind, Walker};
use agent_sessions_model::{Message, ProviderKind, SessionMeta};

/// Every session file under `root/storage/session`; what could not be listed goes to `walker`.
pub fn discover(root: &Path, walker: &mut Walker) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for project in walker.entries(&root.join("storage/session")) {
        if !walker.descend(&project) {
            continue;
        }
        for file in walker.entries(&project.path) {
            if file.name.ends_with(".json") && walker.is(&file, Kind::File) {
                out.push(file.path);
            }
        }
    }
    out.sort();
    out
}

/// The storage root of a session file (`<root>/storage/session/<project>/<id>.json`).
pub fn root_of(session_file: &Path) -> Option<&Path> {
    session_file.ancestors().nth(4)
}

pub(super) fn read_json(path: &Path) -> Result<Value, String> {
    let bytes =
        files::read_document(path, files::MAX_DOCUMENT).map_err(|e| format!("cannot read: {e}"))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("invalid JSON ({e})"))
}

/// The JSON files of a directory, in name order; what could not be listed is a problem.
fn json_files(dir: &Path, problems: &mut Vec<String>) -> Vec<PathBuf> {
    json_files_listed(dir, problems, Walker::entries)
}

/// [`json_files`] with the folder listed by `list` (the 0.x layout checks for links first).
pub(super) fn json_files_listed(
    dir: &Path,
    problems: &mut Vec<String>,
    list: fn(&mut Walker, &Path) -> Vec<files::Entry>,
) -> Vec<PathBuf> {
    let mut walker = Walker::default();
    let mut files = Vec::new();
    for e in list(&mut walker, dir) {
        if e.name.ends_with(".json") && walker.is(&e, Kind::File) {
            files.push(e.path);
        }
    }
    for (path, reason) in walker.problems {
        problems.push(format!("{}: {reason}", path.display()));
    }
    files
}

/// Messages of a session with their parts, in order. Unreadable files are skipped and reported.
pub fn messages(root: &Path, id: &str, problems: &mut Vec<String>) -> Vec<StoredMessage> {
    let mut out = Vec::new();
    for (msg_id, msg) in session_messages(root, id, problems) {
        let parts = match part_folder(root, &msg_id, problems) {
            Some(dir) => read_documents(json_files(&dir, problems), problems),
            None => Vec::new(),
        };
        out.push((msg_id, msg, parts));
    }
    out
}

/// The readable message files of session `id`, each with its id. The ids are names from the
/// records: one that is not a plain file name (`../..`) is a problem, never a folder to list.
fn session_messages(root: &Path, id: &str, problems: &mut Vec<String>) -> Vec<(String, Value)> {
    let Some(dir) = named(&root.join("storage/message"), id, problems) else {
        return Vec::new();
    };
    read_messages(json_files(&dir, problems), problems)
}

/// `storage/part/<msg_id>`, or `None` (a problem) for an id that is not a plain name.
fn part_folder(root: &Path, msg_id: &str, problems: &mut Vec<String>) -> Option<PathBuf> {
    named(&root.join("storage/part"), msg_id, problems)
}

/// `dir/name` when `name` (from a record) is a plain file name; otherwise a problem.
pub(super) fn named(dir: &Path, name: &str, problems: &mut Vec<String>) -> Option<PathBuf> {
    let path = files::child(dir, name);
    if path.is_none() {
        problems.push(format!(
            "{}: not read: the id {name:?} is not a file name",
            dir.display()
        ));
    }
    path
}

/// The readable message files of `files`, each with its id (its `id` field, else the file's
/// name); unreadable ones are reported to `problems`. Both JSON layouts.
pub(super) fn read_messages(
    files: Vec<PathBuf>,
    problems: &mut Vec<String>,
) -> Vec<(String, Value)> {
    files
        .into_iter()
        .filter_map(|file| match read_json(&file) {
            Ok(msg) => {
                let id = msg["id"].as_str().map(str::to_owned);
                Some((id.unwrap_or_else(|| stem(&file)), msg))
            }
            Err(e) => {
                problems.push(format!("{}: {e}", file.display()));
                None
            }
        })
        .collect()
}

/// The readable JSON documents of `files`, in order; unreadable ones are reported.
pub(super) fn read_documents(files: Vec<PathBuf>, problems: &mut Vec<String>) -> Vec<Value> {
    files
        .into_iter()
        .filter_map(|file| {
            read_json(&file)
                .map_err(|e| problems.push(format!("{}: {e}", file.display())))
                .ok()
        })
        .collect()
}

pub(super) fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What a scan keeps about one legacy session file.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LegacyCursor {
    pub candidate: Option<Candidate>,
    pub problems: Vec<String>,
}

/// One message file's id, content and parts.
pub(super) type StoredMessage = (String, Value, Vec<Value>);

/// What both JSON layouts read first of a session file: the file, the storage folder it lies
/// in, its id (the file's name when it names none) and its messages tallied.
pub(super) struct Opened<'p> {
    pub session: Value,
    pub storage: &'p Path,
    pub id: String,
    pub tally: parts::Tally,
}

/// Reads a session file, finds its storage with `storage_of` and its messages with
/// `messages`; a file that cannot be read is a problem in `cursor` and `None`.
pub(super) fn open<'p>(
    session_file: &'p Path,
    storage_of: fn(&Path) -> Option<&Path>,
    messages: fn(&Path, &str, &mut Vec<String>) -> Vec<StoredMessage>,
    cursor: &mut LegacyCursor,
) -> Option<Opened<'p>> {
    let session = read_json(session_file)
        .map_err(|e| cursor.problems.push(e))
        .ok()?;
    let storage = storage_of(session_file)?;
    let id = session["id"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| stem(session_file));
    let messages = messages(storage, &id, &mut cursor.problems);
    let tally = parts::tally(messages.iter().map(|(_, m, p)| (m, p.as_slice())));
    Some(Opened {
        session,
        storage,
        id,
        tally,
    })
}

/// Reads a session file and its messages into a candidate (counts as SPEC §6 defines them).
pub fn scan(session_file: &Path) -> LegacyCursor {
    let mut cursor = LegacyCursor::default();
    let Some(Opened {
        session,
        storage: root,
        id,
        tally,
    }) = open(session_file, root_of, messages, &mut cursor)
    else {
        return cursor;
    };
    let mut meta = session_meta(&session, id, session_file, &tally);
    // 1.0 copied 0.x sessions over as they were, without `directory` or `projectID`: the
    // messages say where they ran, and the folder names the project.
    meta.cwd = meta.cwd.or(tally.cwd);
    // `storage/project/<project>.json`: the record's `projectID` (a plain name only), else the
    // folder the session file is in, as it is named (not UTF-8 perhaps).
    let projects = root.join("storage/project");
    let project_file = match session["projectID"].as_str() {
        Some(id) => files::child(&projects, &format!("{id}.json")),
        None => session_file
            .parent()
            .and_then(Path::file_name)
            .map(|folder| {
                let mut name = folder.to_os_string();
                name.push(".json");
                projects.join(name)
            }),
    };
    if let Some(file) = project_file {
        let worktree = read_json(&file)
            .ok()
            .and_then(|p| p["worktree"].as_str().map(str::to_owned));
        meta.repo_root = worktree.filter(|w| w != "/");
    }
    cursor.candidate = Some(Candidate {
        origin: Origin::Json,
        time_updated: session["time"]["updated"].as_i64().unwrap_or(0),
        meta,
    });
    cursor
}

/// The metadata a session file and its tallied messages give; the same in the legacy and the
/// 0.x storage.
pub(super) fn session_meta(
    session: &Value,
    id: String,
    session_file: &Path,
    tally: &parts::Tally,
) -> SessionMeta {
    let mut meta = SessionMeta::new(ProviderKind::Opencode, id, session_file.to_path_buf());
    meta.parent_id = session["parentID"].as_str().map(str::to_owned);
    meta.cwd = session["directory"].as_str().map(str::to_owned);
    meta.title = session["title"].as_str().map(str::to_owned);
    meta.format_version = session["version"].as_str().map(str::to_owned);
    meta.created_at = parts::millis(&session["time"]["created"]);
    meta.updated_at = parts::millis(&session["time"]["updated"]);
    meta.archived = session["time"]["archived"].is_i64();
    if let Some(files) = session["summary"]["files"].as_u64() {
        meta.changes = Some(agent_sessions_model::ChangeSummary {
            additions: session["summary"]["additions"].as_u64().unwrap_or(0),
            deletions: session["summary"]["deletions"].as_u64().unwrap_or(0),
            files,
        });
    }
    meta.counts = tally.counts;
    meta.tokens = tally.tokens;
    meta.cost_usd = tally.cost;
    meta.model = tally.model.clone();
    meta
}

/// The transcript of a session in either JSON layout: `storage_of` finds the folder its
/// messages are in ([`root_of`] here, `perproject::storage_of` for 0.x), `messages` reads them.
pub fn load(
    session_file: &Path,
    id: &str,
    storage_of: fn(&Path) -> Option<&Path>,
    messages: fn(&Path, &str, &mut Vec<String>) -> Vec<StoredMessage>,
) -> Result<Vec<Message>, Error> {
    let root = storage_of(session_file).ok_or_else(|| Error::SessionNotFound(id.to_owned()))?;
    let mut problems = Vec::new();
    Ok(messages(root, id, &mut problems)
        .iter()
        .map(|(mid, msg, parts)| parts::message(mid, msg, parts))
        .collect())
}

/// The message file and part files behind one message, as stored (the raw-JSON view).
pub fn raw(session_file: &Path, id: &str, message: &str) -> Vec<(String, Value)> {
    let Some(root) = root_of(session_file) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    messages(root, id, &mut problems)
        .into_iter()
        .filter(|(mid, _, _)| mid == message)
        .flat_map(|(mid, msg, parts)| {
            let parts = parts.into_iter().map(|p| {
                let place = format!("part {}", p["id"].as_str().unwrap_or("?"));
                (place, p)
            });
            std::iter::once((format!("message {mid}"), msg)).chain(parts)
        })
        .collect()
}

/// One part file of session `id`, for blobs: looked for in the folders of the session's own
/// messages only (`storage/part/<message>/<part>.json`), so a key names nothing of another
/// session, and a part id that is not a plain file name names nothing at all.
pub fn part(session_file: &Path, id: &str, part_id: &str) -> Option<Value> {
    let root = root_of(session_file)?;
    let file = format!("{}.json", files::plain_name(part_id).ok()?);
    let mut problems = Vec::new();
    session_messages(root, id, &mut problems)
        .into_iter()
        .filter_map(|(msg_id, _)| part_folder(root, &msg_id, &mut Vec::new()))
        .map(|dir| dir.join(&file))
        .find(|p| p.is_file())
        .and_then(|p| read_json(&p).ok())
}
