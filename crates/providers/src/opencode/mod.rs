//! OpenCode (SPEC §4.3): `opencode.db` in its v1 tables (`session`/`message`/`part`, 1.2–1.18)
//! and v2 tables (`session_v2`/`session_message`), plus the legacy JSON storage of 0.6–1.1 and
//! the per-project JSON storage of 0.1–0.5. One session id can live in several of them;
//! [`winner`] decides which copy is shown, for the scan and for loading alike.

pub mod bundle;
mod db;
pub mod ids;
mod launch;
pub mod legacy;
pub mod parts;
pub mod perproject;
mod project;
mod restore;
pub mod trash;
pub mod worktrees;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::blob::BlobKey;
use crate::error::Error;
use crate::files::{self, FileSet};
use crate::sqlite;
use crate::{
    decode_state, encode_state, title_from_text, Provider, ProviderState, ScanOutput, ScanProgress,
    SessionKey, TITLE_CHARS,
};
use agent_sessions_model::ResumeCommand;
use agent_sessions_model::{Diagnostic, ProviderKind, SessionMeta, Transcript};

/// Where a copy of a session lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Origin {
    /// Legacy JSON storage.
    Json,
    /// `session` + `message` + `part`.
    V1,
    /// `session_v2` + `session_message`.
    V2,
    /// The per-project JSON storage of 0.x (`project/<slug>/storage/session/…`), the oldest.
    Project,
}

impl Origin {
    /// Storage generations, oldest first.
    fn generation(self) -> u8 {
        match self {
            Origin::Project => 0,
            Origin::Json => 1,
            Origin::V1 => 2,
            Origin::V2 => 3,
        }
    }
}

/// One copy of a session's metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub origin: Origin,
    /// Milliseconds, as OpenCode stores it.
    pub time_updated: i64,
    pub meta: SessionMeta,
}

/// The copy that represents a session: the newest by `time_updated`; on a tie the later
/// storage generation (v2 over v1 over JSON over 0.x per-project JSON). So the v2 row wins
/// unless the v1 row is strictly newer (SPEC §4.3), and a session both migrated and left
/// behind (1.2 from JSON into the DB, 1.0 from the 0.x folders into JSON, both copying) appears
/// once.
pub fn winner<'a>(candidates: impl IntoIterator<Item = &'a Candidate>) -> Option<&'a Candidate> {
    candidates
        .into_iter()
        .max_by_key(|c| (c.time_updated, c.origin.generation()))
}

pub struct OpencodeProvider {
    roots: Vec<PathBuf>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct RootState {
    /// (size, mtime) of `opencode.db` and its `-wal`.
    db_stamps: Vec<(u64, i64)>,
    /// Every DB session copy, keyed by [`db_key`].
    db: BTreeMap<String, Candidate>,
    db_error: Option<String>,
    #[serde(with = "agent_sessions_model::path::os_keys")]
    json: FileSet<legacy::LegacyCursor>,
    /// 0.x session files.
    #[serde(with = "agent_sessions_model::path::os_keys")]
    projects: BTreeMap<PathBuf, perproject::Tracked>,
    /// The metadata last reported per id.
    shown: BTreeMap<String, SessionMeta>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    #[serde(with = "agent_sessions_model::path::os_keys")]
    roots: BTreeMap<PathBuf, RootState>,
}

/// State keys must be strings (the state is JSON).
fn db_key(origin: Origin, id: &str) -> String {
    format!("{origin:?}:{id}")
}

fn db_path(root: &Path) -> PathBuf {
    root.join("opencode.db")
}

fn db_stamps(root: &Path) -> Vec<(u64, i64)> {
    files::stamps(&sqlite::with_wal(&db_path(root)))
}

/// Brings the DB copies up to date: the session list is re-read only when the DB or its WAL
/// changed, and full rows and aggregates only for sessions whose `time_updated` moved.
fn refresh_db(root: &Path, prev: &mut RootState) {
    let stamps = db_stamps(root);
    if stamps == prev.db_stamps {
        return;
    }
    prev.db_stamps = stamps;
    let path = db_path(root);
    if !path.exists() {
        prev.db.clear();
        prev.db_error = None;
        return;
    }
    let result = sqlite::open_read_only(&path).and_then(|conn| {
        let rows = db::list(&conn)?;
        prev.db
            .retain(|_, c| rows.contains_key(&(c.origin, c.meta.id.clone())));
        for origin in [Origin::V1, Origin::V2] {
            let stale: Vec<String> = rows
                .iter()
                .filter(|((o, id), updated)| {
                    *o == origin
                        && prev
                            .db
                            .get(&db_key(origin, id))
                            .is_none_or(|c| c.time_updated != **updated)
                })
                .map(|((_, id), _)| id.clone())
                .collect();
            for c in db::sessions(&conn, &path, origin, &stale)? {
                prev.db.insert(db_key(origin, &c.meta.id), c);
            }
        }
        Ok(())
    });
    prev.db_error = result.err().map(|e| e.to_string());
}

/// Titles are shown on one line, as for the other agents.
fn tidy_title(meta: &mut SessionMeta) {
    if let Some(t) = &meta.title {
        meta.title = title_from_text(t, TITLE_CHARS);
    }
}

impl OpencodeProvider {
    pub fn new(roots: Vec<PathBuf>) -> Self {
        OpencodeProvider { roots }
    }

    fn root_of(&self, session: &SessionMeta) -> Option<&PathBuf> {
        self.roots
            .iter()
            .find(|r| session.source_path.starts_with(r))
    }

    /// Every copy of one session id under a root, read fresh (for loading).
    /// Every copy of session `id` under `root`. A database row's metadata is only what ranks it
    /// (its time) and where it is: the rest is aggregated over the session's rows, a pass over
    /// all of them (a twentieth of indexing the text, `docs/performance.md`), which
    /// [`described`] makes for the one copy shown.
    fn copies(&self, root: &Path, id: &str) -> Vec<Candidate> {
        let mut out = Vec::new();
        if let Ok(conn) = sqlite::open_read_only(&db_path(root)) {
            if let Ok(rows) = db::list(&conn) {
                for origin in [Origin::V1, Origin::V2] {
                    if let Some(&time_updated) = rows.get(&(origin, id.to_owned())) {
                        let meta =
                            SessionMeta::new(ProviderKind::Opencode, id.to_owned(), db_path(root));
                        out.push(Candidate {
                            origin,
                            time_updated,
                            meta,
                        });
                    }
                }
            }
        }
        // A file is a copy of `id` when it says so: one named `<id>.json` whose record names
        // another session is that one's (the scan lists it so), and an action on `id` must not
        // take it along.
        let is_id = |c: &Candidate| c.meta.id == id;
        for file in legacy::discover(root, &mut files::Walker::default()) {
            if file.file_stem().is_some_and(|s| s == id) {
                out.extend(legacy::scan(&file).candidate.filter(is_id));
            }
        }
        for file in perproject::discover(root, &mut files::Walker::default()) {
            if file.file_stem().is_some_and(|s| s == id) {
                out.extend(perproject::scan(&file).candidate.filter(is_id));
            }
        }
        out
    }
}

/// The copy of session `id` under `root` that represents it (see [`winner`]), read fresh: where
/// it is, and for a JSON copy its metadata (a database row's is not aggregated).
pub fn winning_copy(root: &Path, id: &str) -> Option<Candidate> {
    let copies = OpencodeProvider::new(Vec::new()).copies(root, id);
    winner(&copies).cloned()
}

impl OpencodeProvider {
    /// The copy of session `id` under `root` that is shown (see [`winner`]).
    fn winner_of(&self, root: &Path, id: &str) -> Result<Candidate, Error> {
        let copies = self.copies(root, id);
        winner(&copies)
            .cloned()
            .ok_or_else(|| Error::SessionNotFound(id.to_owned()))
    }
}

/// `copy` with its metadata whole: a database row's aggregated over its rows. A row that
/// cannot be read is an error (a header with no title, folder or times would pass for one).
fn described(root: &Path, copy: Candidate) -> Result<Candidate, Error> {
    if !matches!(copy.origin, Origin::V1 | Origin::V2) {
        return Ok(copy);
    }
    let path = db_path(root);
    let conn = sqlite::open_read_only(&path).map_err(|e| db_error(&path, e))?;
    let ids = [copy.meta.id.clone()];
    let mut whole =
        db::sessions(&conn, &path, copy.origin, &ids).map_err(|e| db_error(&path, e))?;
    whole
        .pop()
        .ok_or_else(|| Error::SessionNotFound(copy.meta.id.clone()))
}

/// The messages of session `id` in `copy`.
fn messages(
    root: &Path,
    copy: &Candidate,
    id: &str,
) -> Result<Vec<agent_sessions_model::Message>, Error> {
    let file = &copy.meta.source_path;
    Ok(match copy.origin {
        Origin::Json => legacy::load(file, id, legacy::root_of, legacy::messages)?,
        Origin::Project => legacy::load(file, id, perproject::storage_of, perproject::messages)?,
        origin => {
            let path = db_path(root);
            let conn = sqlite::open_read_only(&path).map_err(|e| db_error(&path, e))?;
            let loaded = match origin {
                Origin::V2 => db::load_v2(&conn, id),
                _ => db::load_v1(&conn, id),
            };
            loaded.map_err(|e| db_error(&path, e))?
        }
    })
}

/// Where each copy of session `id` under `root` is kept: the database for a v1 or v2 row, the
/// session file for a JSON copy (legacy or 0.x). What deleting a session must remove.
pub fn copies_of(root: &Path, id: &str) -> Vec<(Origin, PathBuf)> {
    OpencodeProvider::new(Vec::new())
        .copies(root, id)
        .into_iter()
        .map(|c| (c.origin, c.meta.source_path))
        .collect()
}

impl Provider for OpencodeProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Opencode
    }

    fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn detect(&self) -> bool {
        self.roots.iter().any(|r| {
            db_path(r).exists()
                || crate::is_dir(&r.join("storage/session"))
                || crate::is_dir(&r.join("project"))
        })
    }

    fn scan(&self, prev: &ProviderState, progress: &ScanProgress) -> Result<ScanOutput, Error> {
        let mut state: State = decode_state(prev).unwrap_or_default();
        let mut out = ScanOutput::default();
        let mut next = State::default();
        for root in &self.roots {
            let mut rs = state.roots.remove(root).unwrap_or_default();
            refresh_db(root, &mut rs);
            let mut walker = files::Walker::default();
            let r = files::refresh_all(
                legacy::discover(root, &mut walker),
                |p| p.as_path(),
                &rs.json,
                progress,
                |p, _| Ok(legacy::scan(p)),
            );
            let found = perproject::discover(root, &mut walker);
            rs.projects = perproject::refresh(found, &rs.projects, progress);
            walker.report(ProviderKind::Opencode, &mut out.diagnostics);
            r.report_unreadable(ProviderKind::Opencode, &mut out.diagnostics);
            rs.json = r.next;

            let mut by_id: BTreeMap<&str, Vec<&Candidate>> = BTreeMap::new();
            let json = rs.json.values().map(|t| &t.cursor);
            let projects = rs.projects.values().map(|t| &t.cursor);
            let files = json.chain(projects).filter_map(|c| c.candidate.as_ref());
            for c in rs.db.values().chain(files) {
                by_id.entry(c.meta.id.as_str()).or_default().push(c);
            }
            let mut shown = BTreeMap::new();
            for (id, copies) in by_id {
                let Some(best) = winner(copies) else {
                    continue;
                };
                let mut meta = best.meta.clone();
                tidy_title(&mut meta);
                if rs.shown.get(id) != Some(&meta) {
                    out.changed.push(meta.clone());
                }
                shown.insert(id.to_owned(), meta);
            }
            for (id, meta) in &rs.shown {
                if !shown.contains_key(id) {
                    out.removed.push(SessionKey {
                        provider: ProviderKind::Opencode,
                        id: id.clone(),
                        source_path: meta.source_path.clone(),
                    });
                }
            }
            rs.shown = shown;
            if let Some(e) = &rs.db_error {
                out.diagnostics.push(Diagnostic {
                    provider: ProviderKind::Opencode,
                    path: db_path(root),
                    line: None,
                    reason: format!("cannot read the database: {e}"),
                });
            }
            let json = rs.json.iter().map(|(path, t)| (path, &t.cursor));
            let projects = rs.projects.iter().map(|(path, t)| (path, &t.cursor));
            for (path, cursor) in json.chain(projects) {
                for p in &cursor.problems {
                    out.diagnostics.push(Diagnostic {
                        provider: ProviderKind::Opencode,
                        path: path.clone(),
                        line: None,
                        reason: p.clone(),
                    });
                }
            }
            next.roots.insert(root.clone(), rs);
        }
        out.state = encode_state(&next);
        Ok(out)
    }

    fn load(&self, session: &SessionMeta) -> Result<Transcript, Error> {
        let root = self
            .root_of(session)
            .ok_or_else(|| Error::SessionNotFound(session.id.clone()))?;
        let best = described(root, self.winner_of(root, &session.id)?)?;
        let messages = messages(root, &best, &session.id)?;
        let mut meta = best.meta;
        tidy_title(&mut meta);
        meta.live = session.live;
        Ok(crate::build::transcript(
            &meta,
            messages,
            Default::default(),
        ))
    }

    /// The messages of the copy shown, without its metadata (see [`OpencodeProvider::copies`]).
    fn load_each(
        &self,
        session: &SessionMeta,
        each: &mut dyn FnMut(agent_sessions_model::Message),
    ) -> Result<agent_sessions_model::Diagnostics, Error> {
        let root = self
            .root_of(session)
            .ok_or_else(|| Error::SessionNotFound(session.id.clone()))?;
        let best = self.winner_of(root, &session.id)?;
        messages(root, &best, &session.id)?
            .into_iter()
            .for_each(each);
        Ok(Default::default())
    }

    /// The database rows of the copy shown; a JSON copy's files are parsed instead.
    fn each_raw_record(
        &self,
        session: &SessionMeta,
        each: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<bool, Error> {
        let root = self
            .root_of(session)
            .ok_or_else(|| Error::SessionNotFound(session.id.clone()))?;
        let best = self.winner_of(root, &session.id)?;
        if !matches!(best.origin, Origin::V1 | Origin::V2) {
            return Ok(false);
        }
        let path = db_path(root);
        let conn = sqlite::open_read_only(&path).map_err(|e| db_error(&path, e))?;
        db::each_raw(&conn, best.origin == Origin::V2, &session.id, each)
            .map_err(|e| db_error(&path, e))
    }

    fn raw_records(
        &self,
        session: &SessionMeta,
        message_id: &str,
    ) -> Result<Vec<(String, serde_json::Value)>, Error> {
        let root = self
            .root_of(session)
            .ok_or_else(|| Error::SessionNotFound(session.id.clone()))?;
        let best = self.winner_of(root, &session.id)?;
        match best.origin {
            Origin::Json => Ok(legacy::raw(&best.meta.source_path, &session.id, message_id)),
            // The 0.x folders are shown through their messages only.
            Origin::Project => Ok(Vec::new()),
            origin => {
                let path = db_path(root);
                let conn = sqlite::open_read_only(&path).map_err(|e| db_error(&path, e))?;
                db::raw(&conn, origin == Origin::V2, &session.id, message_id)
                    .map_err(|e| db_error(&path, e))
            }
        }
    }

    fn blob(&self, session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error> {
        let missing = |reason: &str| crate::blob::not_found(session, key, reason);
        let BlobKey::Part(part_id) = crate::blob::parse(session, key)? else {
            return Err(missing("unknown blob kind"));
        };
        let part_id = part_id.as_str();
        let part = if session.source_path.extension().is_some_and(|e| e == "db") {
            let conn = sqlite::open_read_only(&session.source_path)
                .map_err(|e| db_error(&session.source_path, e))?;
            db::part(&conn, part_id).map_err(|e| db_error(&session.source_path, e))?
        } else if perproject::is_session_file(&session.source_path) {
            perproject::part(&session.source_path, part_id)
        } else {
            legacy::part(&session.source_path, &session.id, part_id)
        };
        let part = part.ok_or_else(|| missing("no such part"))?;
        if let Some(out) = parts::full_output(&part) {
            return Ok(out.into_bytes());
        }
        // A file part: inline data URL, or the file it names.
        let url = part["url"]
            .as_str()
            .ok_or_else(|| missing("part has no content"))?;
        if let Some((_, data)) = url.split_once(";base64,") {
            use base64::Engine;
            return base64::engine::general_purpose::STANDARD
                .decode(data)
                .map_err(|_| missing("data is not base64"));
        }
        Err(missing("the file is not stored in the session"))
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        self.roots
            .iter()
            .flat_map(|r| {
                let db = sqlite::with_wal(&db_path(r));
                db.into_iter().chain([r.join("storage"), r.join("project")])
            })
            .collect()
    }

    fn resume_command(&self, session: &SessionMeta) -> Result<ResumeCommand, Error> {
        if !ids::is_session_id(&session.id) {
            return Err(crate::ids::invalid_id(ProviderKind::Opencode, &session.id));
        }
        ResumeCommand::new(
            AGENT.program,
            &["--session", &session.id],
            session.cwd.as_deref(),
        )
        .map_err(Error::from)
    }
}

fn db_error(path: &Path, e: rusqlite::Error) -> Error {
    Error::io(path, std::io::Error::other(e.to_string()))
}

/// OpenCode in the registry (`crate::registry::AGENTS`).
pub static AGENT: crate::registry::Agent = crate::registry::Agent {
    kind: ProviderKind::Opencode,
    label: "OpenCode",
    program: "opencode",
    env_var: "XDG_DATA_HOME",
    env_subdir: Some("opencode"),
    // XDG everywhere: its `xdg-basedir` falls back to `~/.local/share` on macOS and Windows.
    home_store: |_| &[".local", "share", "opencode"],
    fixture_store: "local-share-opencode",
    colours: [["#dfe0f5", "#3b3f8f"], ["#2c2e4f", "#c5c8f4"]],
    provider: |roots| Box::new(OpencodeProvider::new(roots)),

    // Trash and delete, and ids.
    session_id: ids::is_session_id,
    subagent_id: None,
    trash: trash::TRASH,
    // Launch (capability::launch).
    launch: launch::LAUNCH,
    worktrees: launch::WORKTREES,
    plan_tools: launch::PLAN_TOOLS,
    // Bundles: export, restore and the resume check.
    bundles: bundle::BUNDLES,
    which_copy: None,
};

#[cfg(test)]
mod tests {
    /// A session written to just now is live while a `opencode` process runs; an old one is not.
    #[cfg(target_os = "linux")]
    #[test]
    fn sessions_are_live_while_opencode_runs_and_they_were_just_written() {
        crate::process::live_while_running(&super::AGENT);
    }
}
