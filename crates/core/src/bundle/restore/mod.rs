//! Restore (SPEC §7): a complete bundle's records written into the source agent's own store,
//! under a directory the user chose, so that the agent's own resume command continues the
//! session there. Two steps:
//!
//! 1. [`preview`] checks everything (the bundle, that its records say the ids, parents and
//!    titles its manifest says (`records`), the directory, the store, that no session of
//!    the bundle is there already or live) and says exactly what would be written; it hands
//!    out a short-lived token ([`super::token`]) binding the bundle's hash and the target.
//! 2. [`restore`] requires that token, opens and checks the bundle again, checks every refusal
//!    again, and writes: all or nothing.
//!
//! The directory is rewritten wherever the agent records it (`docs/bundle-format.md`): each
//! record's `cwd` (Claude, Codex) and Claude's environment `workingDirectory`, the session's `directory` and each message's
//! `path.cwd`/`path.root` (OpenCode), and the environment the agent wrote into the history
//! (Claude's "Primary working directory: …", Codex's `<cwd>…</cwd>`). Tool inputs and outputs
//! are history and stay as they were. Nothing is ever overwritten: a session whose id is
//! there already is refused, or restored as a copy with new ids (`as_copy`; not for OpenCode,
//! whose ids OpenCode alone makes).
//!
//! What is agent's own comes from its descriptor (`registry::Agent::bundles`, each agent's
//! `bundle.rs`): where its records name the directory, how a copy's ids are made, what its
//! records must say, and how they reach its store ([`Writes`]): files created where the agent
//! keeps them (with a row each in the agent's index where it has one), or one document per
//! session imported by the agent's own command or written as rows ([`documents`]).

mod append;
mod documents;
mod files;
mod records;

use crate::provider::capability::bundle::{Restore as AgentRestore, Way, Writes};
use crate::provider::registry;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use super::manifest::{is_unsafe_char, Mode};
use super::reader::Bundle;
use super::token::{Binding, Tokens};
use super::BundleError;
use crate::catalog::Catalog;
use crate::error::Error;
use crate::model::{ProviderKind, SessionMeta};

/// Where to restore: the agent's store root and the directory the session continues in.
#[derive(Debug, Clone)]
pub struct Target {
    pub root: PathBuf,
    pub dir: PathBuf,
    /// New ids for every session of the bundle (Claude, Codex).
    pub as_copy: bool,
}

/// The agents' command lines a restore may use: the programs of the agents whose restore runs
/// their own import command, found once per restore.
#[derive(Debug, Clone, Default)]
pub struct Agents(BTreeMap<ProviderKind, PathBuf>);

impl Agents {
    /// The importing agents found on `PATH` or where their installers put them.
    pub fn from_path() -> Agents {
        let host = crate::actions::terminal::Host::this();
        let importers = registry::AGENTS
            .iter()
            .filter(|a| matches!(a.bundles.restore.writes, Writes::Documents(_)));
        Agents(
            importers
                .filter_map(|a| {
                    Some((
                        a.kind,
                        crate::actions::locate::find_agent(&host, a.program)?,
                    ))
                })
                .collect(),
        )
    }

    /// These agents, with `kind`'s program at `program` (a stand-in, in tests).
    pub fn with(mut self, kind: ProviderKind, program: impl Into<PathBuf>) -> Agents {
        self.0.insert(kind, program.into());
        self
    }

    /// The program of `kind` when its restore runs its own import command.
    fn importer(&self, kind: ProviderKind) -> Option<&Path> {
        self.0.get(&kind).map(PathBuf::as_path)
    }
}

/// How the records get into the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "RestoreMethod")]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Method {
    /// New files, each created where nothing is.
    Files { files: Vec<PathBuf> },
    /// The agent's own import command, once per session.
    Import { program: PathBuf },
    /// Rows inserted into the agent's database in one transaction.
    Rows { db: PathBuf },
    /// `bytes` appended to `file` (created when absent), whose first `from_len` bytes stay.
    Append {
        file: PathBuf,
        from_len: u64,
        bytes: u64,
    },
}

impl From<Way> for Method {
    fn from(way: Way) -> Method {
        match way {
            Way::Import { program } => Method::Import { program },
            Way::Rows { db } => Method::Rows { db },
        }
    }
}

/// What a restore would do, for the user to confirm; `token` allows exactly this. (Read back
/// by a remote client: the preview comes from the server that restores.)
#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "BundlePreview")]
pub struct Preview {
    pub provider: ProviderKind,
    pub bundle_sha256: String,
    pub root: PathBuf,
    pub dir: PathBuf,
    pub as_copy: bool,
    /// The directory the session was recorded in.
    pub from_dir: Option<String>,
    /// The restored session's id (new when restored as a copy).
    pub session_id: String,
    /// Every session restored: (id in the bundle, id it gets).
    pub sessions: Vec<(String, String)>,
    pub method: Method,
    /// Codex: the state database that gets a `threads` row per restored rollout, so that
    /// Codex lists them (none when Codex has not made one yet: it lists the rollouts when it
    /// does).
    // Any agent's index (`Files::index`); the doc above is the app's generated.ts, kept as is.
    pub state_db: Option<PathBuf>,
    pub notes: Vec<String>,
    pub token: String,
    pub expires_at: DateTime<Utc>,
}

/// What a restore did.
#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct Restored {
    pub provider: ProviderKind,
    pub session_id: String,
    pub sessions: Vec<(String, String)>,
    pub dir: PathBuf,
    pub method: Method,
    /// What the agent's own command said, trimmed.
    pub output: Vec<String>,
}

/// What a restore writes, worked out the same way by the preview and the restore.
pub(crate) struct Plan {
    pub provider: ProviderKind,
    pub root: PathBuf,
    pub dir: PathBuf,
    /// The directory as the records will say it.
    pub dir_text: String,
    pub old_dir: Option<String>,
    /// Old id → new id (the same when not a copy); also by the other form an id takes in the
    /// records (`AgentRestore::alias`).
    pub ids: BTreeMap<String, String>,
    pub sessions: Vec<(String, String)>,
    pub method: Method,
    /// Native file of the archive → where it goes (files methods).
    pub files: Vec<(String, PathBuf)>,
    /// Files the agent writes beside its records, created with them (`Files::markers`):
    /// (path, contents).
    pub markers: Vec<(PathBuf, String)>,
    /// Native documents (`Writes::Documents`): (session id, archive name), parents first.
    pub docs: Vec<(String, String)>,
    /// The agent's index, when there is one (see [`Preview::state_db`]).
    pub state_db: Option<PathBuf>,
    /// How the documents are written (`Writes::Documents`).
    pub way: Option<Way>,
}

/// Checks the bundle and the target and says what a restore would do (see the module doc).
/// `sessions` is a current listing of the target store (its provider's sessions).
pub fn preview(
    bundle: &Bundle,
    catalog: &Catalog,
    sessions: &[SessionMeta],
    target: &Target,
    agents: &Agents,
    tokens: &Tokens,
) -> Result<Preview, Error> {
    let (root, dir) = checked_target(bundle, target)?;
    let state = target_state(bundle, &dir);
    let (token, expires_at) =
        tokens.issue(&binding(bundle, &root, &dir, target, &state), Utc::now());
    let plan = plan(bundle, &root, &dir, target.as_copy, &token, agents)?;
    refuse_existing(&plan, catalog, sessions)?;
    let mut notes = bundle.manifest.notes.clone();
    notes.extend(new_store_note(&plan));
    if let Writes::Files(f) = &restoring(plan.provider).writes {
        notes.extend(f.index.as_ref().map(|i| (i.note)(plan.state_db.as_deref())));
    }
    notes.extend(append::note(&plan));
    Ok(Preview {
        provider: plan.provider,
        bundle_sha256: bundle.sha256.clone(),
        root: plan.root.clone(),
        dir: plan.dir.clone(),
        as_copy: target.as_copy,
        from_dir: plan.old_dir.clone(),
        session_id: plan.sessions[0].1.clone(),
        sessions: plan.sessions.clone(),
        method: plan.method.clone(),
        state_db: plan.state_db.clone(),
        notes,
        token,
        expires_at,
    })
}

/// Restores the bundle at `path` as previewed: `token` must come from [`preview`] of the same
/// bundle bytes and target, by the same `tokens`, and not have expired. Every check runs again
/// on the bundle and store as they are now.
pub fn restore(
    path: &Path,
    catalog: &Catalog,
    sessions: &[SessionMeta],
    target: &Target,
    agents: &Agents,
    tokens: &Tokens,
    token: &str,
) -> Result<Restored, Error> {
    let bundle = Bundle::open(path)?;
    let (root, dir) = checked_target(&bundle, target)?;
    let state = target_state(&bundle, &dir);
    tokens.check(
        token,
        &binding(&bundle, &root, &dir, target, &state),
        Utc::now(),
    )?;
    let plan = plan(&bundle, &root, &dir, target.as_copy, token, agents)?;
    refuse_existing(&plan, catalog, sessions)?;
    let output = match &restoring(plan.provider).writes {
        Writes::Files(f) => {
            files::write_all(&bundle, &plan, f)?;
            Vec::new()
        }
        Writes::Documents(d) => documents::write_all(&bundle, &plan, d)?,
        Writes::Append(a) => {
            append::write(&bundle, &plan, a)?;
            Vec::new()
        }
    };
    Ok(Restored {
        provider: plan.provider,
        session_id: plan.sessions[0].1.clone(),
        sessions: plan.sessions.clone(),
        dir: plan.dir.clone(),
        method: plan.method.clone(),
        output,
    })
}

/// What the token of a restore of `bundle` to `target` binds.
fn binding<'a>(
    bundle: &'a Bundle,
    root: &'a Path,
    dir: &'a Path,
    target: &Target,
    state: &'a str,
) -> Binding<'a> {
    Binding {
        bundle_sha256: &bundle.sha256,
        provider: bundle.manifest.source.provider,
        root,
        dir,
        as_copy: target.as_copy,
        state,
    }
}

/// What the target holds that the restore is planned on (see [`Binding::state`]).
fn target_state(bundle: &Bundle, dir: &Path) -> String {
    match &restoring(bundle.manifest.source.provider).writes {
        Writes::Append(a) => append::state(&dir.join(a.file)),
        _ => String::new(),
    }
}

/// `p` as a folder a session can continue in: existing, a folder, its canonical path valid
/// UTF-8 without control or bidi characters (it reaches the agent's records and a terminal).
/// `missing` says what to do when it does not exist.
pub(super) fn checked_folder(p: &Path, what: &str, missing: &str) -> Result<PathBuf, Error> {
    let bad = |why: String| Error::from(BundleError::Target(why));
    // Without Windows' `\\?\` prefix, which `std::fs::canonicalize` adds there: the folder is
    // written into the agent's records and names its project folder, as the agent itself
    // spells it (`C:\Users\…`), so that the agent run there finds the session.
    let canonical = dunce::canonicalize(p).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => bad(format!(
            "the {what} {} does not exist: {missing}",
            p.display()
        )),
        _ => bad(format!("the {what} {} cannot be used: {e}", p.display())),
    })?;
    if !canonical.is_dir() {
        return Err(bad(format!("the {what} {} is not a folder", p.display())));
    }
    checked_folder_name(&canonical, what)?;
    Ok(canonical)
}

/// What to do about a directory to continue in that does not exist.
pub(super) const CREATE_IT: &str = "create it first, or choose another";

/// The store root and the directory, both existing folders, as absolute paths without links;
/// the bundle a complete one with records of its session.
fn checked_target(bundle: &Bundle, target: &Target) -> Result<(PathBuf, PathBuf), Error> {
    let m = &bundle.manifest;
    if m.mode != Mode::Complete {
        return Err(BundleError::NotRestorable(
            "a share-safe bundle holds no records of the agent's own, so it cannot be restored; continue it in an agent instead".into(),
        )
        .into());
    }
    let main = &m.session.id;
    if !m.native_files().any(|f| f.session.as_ref() == Some(main)) {
        return Err(BundleError::NotRestorable(format!(
            "the bundle holds none of {main}'s own records ({})",
            m.notes.join("; ")
        ))
        .into());
    }
    let provider = m.source.provider;
    if let Some(why) = restoring(provider).lacks {
        return Err(BundleError::Unsupported(why.into()).into());
    }
    if let (true, Err(why)) = (target.as_copy, restoring(provider).copy.get()) {
        return Err(BundleError::Unsupported(why.into()).into());
    }
    let dir = checked_folder(&target.dir, "directory", CREATE_IT)?;
    if let Writes::Append(_) = restoring(provider).writes {
        // No store of its own: the record goes into the directory itself, its root.
        return Ok((dir.clone(), dir));
    }
    let store = format!("{} store", registry::agent(provider).label);
    let root = store_root(&target.root, provider, &store)?;
    if dir.starts_with(&root) {
        return Err(BundleError::Target(format!(
            "the directory {} is inside the {store}; choose a project folder",
            dir.display()
        ))
        .into());
    }
    Ok((root, dir))
}

/// The store root as an absolute path without links. A machine the agent never ran on has no
/// store yet (a bundle's usual destination): an agent whose records are files gets its folder
/// made by the restore (the preview says so, [`new_store_note`]); an agent whose store is a
/// database only it can set up is refused, with what to do.
fn store_root(root: &Path, provider: ProviderKind, store: &str) -> Result<PathBuf, Error> {
    let agent = registry::agent(provider);
    let creatable = matches!(restoring(provider).writes, Writes::Files(_));
    if std::fs::symlink_metadata(root).is_ok() || !creatable {
        let missing = if creatable {
            "it is a link to nothing: remove it, or choose another".to_owned()
        } else {
            format!(
                "{label} keeps its sessions in a database that only {label} can set up (its \
                 schema comes from its own migrations), which it makes when it first runs here: \
                 run `{}` once (or name its store in the settings), then restore again",
                agent.program,
                label = agent.label
            )
        };
        return checked_folder(root, store, &missing);
    }
    let absolute = std::path::absolute(root).map_err(|e| {
        BundleError::Target(format!(
            "the {store} {} cannot be used: {e}",
            root.display()
        ))
    })?;
    // The nearest folder that exists, made canonical; the missing names go below it as given.
    let existing = absolute
        .ancestors()
        .find(|a| std::fs::symlink_metadata(a).is_ok())
        .unwrap_or(Path::new("/"));
    let missing = absolute.strip_prefix(existing).unwrap_or(&absolute);
    if missing
        .components()
        .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(BundleError::Target(format!(
            "the {store} {} names a parent folder (..); give it without",
            root.display()
        ))
        .into());
    }
    let parent = checked_folder(existing, "folder", CREATE_IT)?;
    let made = parent.join(missing);
    checked_folder_name(&made, store)?;
    Ok(made)
}

/// Refuses a path that is not valid UTF-8 or holds control or bidi characters (it reaches the
/// agent's records and a terminal).
fn checked_folder_name(p: &Path, what: &str) -> Result<(), Error> {
    let bad = |why: String| Error::from(BundleError::Target(why));
    let text = p
        .to_str()
        .ok_or_else(|| bad(format!("the {what} {} is not valid UTF-8", p.display())))?;
    if text.chars().any(is_unsafe_char) {
        return Err(bad(format!(
            "the {what} {:?} holds control or bidi characters",
            super::manifest::shown(text)
        )));
    }
    Ok(())
}

/// The preview's note on a store the restore creates (none when it exists).
fn new_store_note(plan: &Plan) -> Option<String> {
    let label = registry::agent(plan.provider).label;
    (std::fs::symlink_metadata(&plan.root).is_err()).then(|| {
        format!(
            "will create {}: {label} has not run here yet, and the restore makes its store as {label} lays it out",
            plan.root.display()
        )
    })
}

fn plan(
    bundle: &Bundle,
    root: &Path,
    dir: &Path,
    as_copy: bool,
    seed: &str,
    agents: &Agents,
) -> Result<Plan, Error> {
    let m = &bundle.manifest;
    let provider = m.source.provider;
    let agent = restoring(provider);
    let mut ids = BTreeMap::new();
    let mut sessions = Vec::new();
    for s in m.sessions() {
        let new = match agent.copy.get() {
            Ok(copy) if as_copy => copy(&s.id, &derived(&s.id, seed)),
            _ => s.id.clone(),
        };
        if let (Some(old), Some(fresh)) = ((agent.alias)(&s.id), (agent.alias)(&new)) {
            ids.insert(old.to_owned(), fresh.to_owned());
        }
        ids.insert(s.id.clone(), new.clone());
        sessions.push((s.id.clone(), new));
    }
    let mut plan = Plan {
        provider,
        root: root.to_path_buf(),
        dir: dir.to_path_buf(),
        dir_text: dir.to_string_lossy().into_owned(),
        old_dir: m.session.cwd.clone(),
        ids,
        sessions,
        method: Method::Files { files: Vec::new() },
        files: Vec::new(),
        markers: Vec::new(),
        docs: Vec::new(),
        state_db: None,
        way: None,
    };
    match &agent.writes {
        Writes::Files(f) => {
            plan.files = files::targets(bundle, &plan, f);
            let targets: Vec<PathBuf> = plan.files.iter().map(|(_, t)| t.clone()).collect();
            plan.state_db = f.index.as_ref().and_then(|i| (i.find)(root, &targets));
            plan.markers = f
                .markers
                .map(|m| m(root, &plan.dir_text))
                .unwrap_or_default();
            let records = plan.files.iter().map(|(_, t)| t.clone());
            let markers = plan.markers.iter().map(|(p, _)| p.clone());
            plan.method = Method::Files {
                files: records.chain(markers).collect(),
            };
        }
        Writes::Documents(d) => {
            plan.docs = m
                .sessions()
                .filter_map(|s| {
                    m.native_files()
                        .find(|f| f.session.as_ref() == Some(&s.id))
                        .map(|f| (s.id.clone(), f.path.clone()))
                })
                .collect();
            let version = m.source.tool_version.as_deref();
            let way = (d.way)(
                root,
                agents.importer(provider),
                version,
                &documents::Engine(provider),
            )
            .map_err(BundleError::NotRestorable)?;
            plan.method = way.clone().into();
            plan.way = Some(way);
        }
        Writes::Append(a) => append::plan(bundle, &mut plan, a)?,
    }
    records::check(bundle, &plan)?;
    Ok(plan)
}

/// The store a restore of `kind` goes into: the agent's first root, or the directory `dir`
/// itself for an agent with no store of its own (its record is appended to a file there);
/// `None` when the agent has no root.
pub fn store_for(kind: ProviderKind, roots: &crate::Roots, dir: &Path) -> Option<PathBuf> {
    if matches!(restoring(kind).writes, Writes::Append(_)) {
        // As the restore names the file (canonical), so the listing of it names it so too.
        return Some(dunce::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()));
    }
    roots.for_kind(kind).first().cloned()
}

/// The agent's restore capability.
pub(super) fn restoring(kind: ProviderKind) -> &'static AgentRestore {
    &registry::agent(kind).bundles.restore
}

/// The random bytes a copy's new id for `old` is made of, derived from the token, so the
/// preview and the restore it allows give the same ids.
fn derived(old: &str, seed: &str) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(seed.as_bytes()).expect("HMAC takes any key");
    mac.update(old.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// Refuses when a session the restore would make is in the store already (live or not), or a
/// file it would create exists.
fn refuse_existing(plan: &Plan, catalog: &Catalog, sessions: &[SessionMeta]) -> Result<(), Error> {
    append::refuse_live(plan, catalog, sessions)?;
    for (_, id) in &plan.sessions {
        let found = sessions
            .iter()
            .find(|s| s.provider == plan.provider && &s.id == id)
            .cloned()
            .or_else(|| documents::existing(plan, id));
        let Some(s) = found else { continue };
        if s.live || catalog.is_live(&s) {
            return Err(BundleError::Live {
                provider: plan.provider,
                id: id.clone(),
            }
            .into());
        }
        return Err(BundleError::Exists(exists_message(plan, id, &s.source_path)).into());
    }
    for (_, target) in &plan.files {
        if std::fs::symlink_metadata(target).is_ok() {
            let id = &plan.sessions[0].1;
            return Err(BundleError::Exists(exists_message(plan, id, target)).into());
        }
    }
    Ok(())
}

fn exists_message(plan: &Plan, id: &str, at: &Path) -> String {
    let label = registry::agent(plan.provider).label;
    let way_out = match restoring(plan.provider).copy.get() {
        Ok(_) => "restore it as a copy, which gives it a new id".to_owned(),
        Err(_) => format!("{label} sessions cannot be restored as a copy"),
    };
    format!(
        "the {} session {id} is in the store already ({}); it is never overwritten: {way_out}",
        plan.provider,
        at.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Aider's restore goes into the directory, named as the restore names the file it
    /// appends to (canonical), so that the listing it is checked against (a live run of that
    /// file) names the file the same way; other agents keep their root.
    #[test]
    fn a_restore_into_the_directory_names_it_canonically() {
        let work = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(work.path().join("a/b")).unwrap();
        let given = work.path().join("a/b/../b");
        let roots = crate::Roots::default().with(ProviderKind::Claude, [work.path()]);
        let canonical = dunce::canonicalize(&given).unwrap();
        assert_eq!(
            store_for(ProviderKind::Aider, &roots, &given),
            Some(canonical)
        );
        assert_eq!(
            store_for(ProviderKind::Claude, &roots, &given),
            Some(work.path().to_path_buf())
        );
        assert_eq!(store_for(ProviderKind::Codex, &roots, &given), None);
    }
}
