//! Trash and delete (SPEC §7, M4): a session leaves its agent's store, by the safest means that
//! agent has, only when the user turned it on, never while an agent may still write it, and
//! never half-done.
//!
//! A front end first asks for a [`Plan`]: exactly what will be moved or removed, and by which
//! means (the OS trash, the agent's own command, a rename inside the store, rows in one SQL
//! transaction). It shows the plan, asks, and hands the same plan to [`execute`], which checks
//! every refusal again (the session may have come alive meanwhile) and runs the plan's steps in
//! order. At most one step cannot be undone (the agent's command, a committed transaction) and
//! it comes last: when it fails, the steps before it are undone (files put back from the
//! trash), so a failure leaves the session whole and says why.
//!
//! What makes up a session, and which of the two modes an agent has, is the agent's answer
//! (`provider::capability::trash`, filled in `<agent>/trash.rs` of the providers): plain steps
//! this engine checks ([`guard`]) and runs, never asking which agent it acts for. Each agent's
//! means are in docs/trash.md.

pub(crate) mod agent;
mod archive;
mod cut;
pub(crate) mod guard;
mod os_trash;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::config::ActionSettings;
use crate::error::Error;
use crate::model::path::names;
use crate::model::{ProviderKind, SessionMeta};
use crate::provider::capability::trash::{Ask, Refusal};
use crate::provider::registry::agent;
use crate::provider::SessionKey;

pub(crate) use crate::provider::capability::trash::open_for_writing;
pub use crate::provider::capability::trash::{Cut, Item, Mode, Move, Step};
pub use agent::Tools;

/// Sessions updated less than this many minutes ago are left alone: an agent may still be
/// writing them (a live check misses an agent that starts again, or one on another machine
/// sharing the folder).
pub const RECENT_MINUTES: i64 = 10;

/// What the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub mode: Mode,
    /// Whether the session's subagent sessions go with it; `None`: not decided yet (a plan
    /// then lists them, and cannot be executed while it has any).
    pub subagents: Option<bool>,
}

/// A session the plan acts on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "TrashTarget")]
pub struct Target {
    pub provider: ProviderKind,
    pub id: String,
    pub title: Option<String>,
    #[serde(with = "crate::model::path::os")]
    #[ts(type = "string")]
    pub source_path: PathBuf,
    pub updated_at: Option<DateTime<Utc>>,
}

impl Target {
    fn of(s: &SessionMeta) -> Self {
        Target {
            provider: s.provider,
            id: s.id.clone(),
            title: s.title.clone(),
            source_path: s.source_path.clone(),
            updated_at: s.updated_at,
        }
    }

    fn key(&self) -> SessionKey {
        SessionKey {
            provider: self.provider,
            id: self.id.clone(),
            source_path: self.source_path.clone(),
        }
    }
}

/// Exactly what will happen to a session, for the user to confirm (read back by a remote
/// client, which sends the plan it showed to have it run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "TrashPlan")]
pub struct Plan {
    pub mode: Mode,
    pub session: Target,
    /// The session's subagent sessions (all descendants).
    pub subagents: Vec<Target>,
    /// Whether they go too; `None` while undecided (then the plan cannot run).
    pub include_subagents: Option<bool>,
    pub steps: Vec<Step>,
    /// Said to the user beside the steps (how to get the session back, what stays).
    pub notes: Vec<String>,
}

impl Plan {
    /// The sessions that leave the list.
    pub fn targets(&self) -> Vec<&Target> {
        let mut out = vec![&self.session];
        if self.include_subagents == Some(true) {
            out.extend(&self.subagents);
        }
        out
    }

    /// The sessions the cache should drop once the plan ran.
    pub fn keys(&self) -> Vec<SessionKey> {
        self.targets().into_iter().map(Target::key).collect()
    }

    /// Whether `shown`, the plan a front end showed and sends back to be run, is this plan
    /// (made again just now): the same in everything, each path naming this plan's. A plan
    /// read back from JSON (a remote client's) has a name that is not UTF-8 lossily, so such a
    /// path names this plan's when it reads as it does (`model::path::names`); what runs is
    /// always this plan, with the names' own bytes.
    pub fn is_shown_as(&self, shown: &Plan) -> bool {
        if self == shown {
            return true;
        }
        let (mine, theirs) = (self.paths(), shown.paths());
        let same_paths =
            mine.len() == theirs.len() && mine.iter().zip(&theirs).all(|(m, t)| names(m, t));
        // All but the paths: compared as the JSON shows them (where those read alike).
        let shown_alike = match (serde_json::to_value(self), serde_json::to_value(shown)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        same_paths && shown_alike
    }

    /// Every path the plan names, in order: its sessions' files, then each step's.
    fn paths(&self) -> Vec<&Path> {
        let targets = std::iter::once(&self.session).chain(&self.subagents);
        let mut out: Vec<&Path> = targets.map(|t| t.source_path.as_path()).collect();
        for step in &self.steps {
            match step {
                Step::OsTrash { items } => out.extend(items.iter().map(|i| i.path.as_path())),
                Step::Agent { removes, .. } => out.extend(removes.iter().map(PathBuf::as_path)),
                Step::Archive { moves, db } => {
                    for m in moves {
                        out.extend([m.from.as_path(), m.to.as_path()]);
                    }
                    out.extend(db.as_deref());
                }
                Step::DeleteRows { db, .. } => out.push(db),
                Step::Cut(c) => {
                    out.extend(std::iter::once(c.file.as_path()).chain(c.keep_as.as_deref()))
                }
            }
        }
        out
    }

    /// Whether the user must still say what happens to the subagents.
    pub fn needs_decision(&self) -> bool {
        self.include_subagents.is_none() && !self.subagents.is_empty()
    }
}

/// What [`execute`] did.
#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "TrashDone")]
pub struct Done {
    pub mode: Mode,
    /// The sessions that left the store.
    pub removed: Vec<Target>,
    /// What each agent command printed (trimmed), for the record.
    pub output: Vec<String>,
}

/// The agent's name as people know it (`Claude Code`), for messages.
fn label(kind: ProviderKind) -> &'static str {
    agent(kind).label
}

/// Why nothing was done (or everything was put back).
#[derive(Debug, thiserror::Error)]
pub enum TrashError {
    #[error(
        "deleting sessions is turned off; turn on actions.allow_delete in the settings to allow it"
    )]
    Disabled,

    #[error("permanent deletion is turned off; turn on actions.allow_permanent_delete in the settings to allow it (it cannot be undone)")]
    PermanentDisabled,

    #[error("the {} session {id} is live (a running {} process has it open); close it first", label(*provider), agent(*provider).program)]
    Live { provider: ProviderKind, id: String },

    #[error("the {} session {id} was updated {ago}; sessions updated in the last {RECENT_MINUTES} minutes are left alone because an agent may still be writing them; try again later", label(*provider))]
    Recent {
        provider: ProviderKind,
        id: String,
        ago: String,
    },

    /// This agent has no such action (Claude: permanent; OpenCode: trash; archived Codex).
    #[error("{0}")]
    Unsupported(String),

    #[error("the session {id} has {count} subagent session(s); say whether they go with it")]
    SubagentsUndecided { id: String, count: usize },

    /// The agent's own command always takes the subagents along.
    #[error("{0}")]
    SubagentsGoAlong(String),

    #[error("{agent} is needed for this and {reason}")]
    AgentMissing { agent: &'static str, reason: String },

    /// The session's id has not its agent's shape: a file in the store names it, and paths
    /// built from it could name anything (`..`, `a/b`).
    #[error("{:?} is not a valid {} session id (it is read from {}), so nothing is planned on it and nothing was done; move that file out of the store if it is not the agent's", crate::model::resume::shown(id), label(*provider), file.display())]
    InvalidId {
        provider: ProviderKind,
        id: String,
        file: PathBuf,
    },

    /// A step names a path that is not a session's own entry inside its store (see `guard`).
    #[error("the plan names {}, which {why}; nothing was done (a name in the store may be made to reach outside the session: look at it by hand)", path.display())]
    UnsafePath { path: PathBuf, why: String },

    /// The store changed between the plan and its execution.
    #[error("the session changed since it was planned ({0}); nothing was done; plan again")]
    Stale(String),

    /// A step failed; `state` says what was left (everything as it was, or what was not).
    #[error("could not {what}: {reason}; {state}")]
    Failed {
        what: String,
        reason: String,
        state: String,
    },
}

impl TrashError {
    pub fn code(&self) -> &'static str {
        match self {
            TrashError::Disabled => "delete_disabled",
            TrashError::PermanentDisabled => "permanent_delete_disabled",
            TrashError::Live { .. } => "session_live",
            TrashError::Recent { .. } => "session_recent",
            TrashError::Unsupported(_) => "unsupported",
            TrashError::SubagentsUndecided { .. } => "subagents_undecided",
            TrashError::SubagentsGoAlong(_) => "subagents_go_along",
            TrashError::AgentMissing { .. } => "agent_missing",
            TrashError::InvalidId { .. } => "invalid_session_id",
            TrashError::UnsafePath { .. } => "unsafe_path",
            TrashError::Stale(_) => "stale_plan",
            TrashError::Failed { .. } => "trash_failed",
        }
    }

    /// A refusal: nothing was touched because of what the user asked or the state of things,
    /// not because something broke.
    pub fn is_refusal(&self) -> bool {
        !matches!(self, TrashError::Failed { .. })
    }
}

impl From<Refusal> for TrashError {
    fn from(r: Refusal) -> Self {
        match r {
            Refusal::Unsupported(why) => TrashError::Unsupported(why),
            Refusal::SubagentsGoAlong(why) => TrashError::SubagentsGoAlong(why),
            Refusal::AgentMissing { agent, reason } => TrashError::AgentMissing { agent, reason },
            Refusal::Stale(why) => TrashError::Stale(why),
        }
    }
}

/// The opt-ins, checked before anything else is looked at.
fn check_allowed(mode: Mode, settings: &ActionSettings) -> Result<(), TrashError> {
    if !settings.allow_delete {
        return Err(TrashError::Disabled);
    }
    if mode == Mode::Permanent && !settings.allow_permanent_delete {
        return Err(TrashError::PermanentDisabled);
    }
    Ok(())
}

/// Every descendant of `session` among `sessions` (its subagents and theirs), oldest first.
/// When two files hold one session (a project folder copied beside itself), each copy's
/// subagents are its own (see [`nearest`]), so trashing one copy never reaches the other's.
fn descendants<'a>(sessions: &'a [SessionMeta], session: &'a SessionMeta) -> Vec<&'a SessionMeta> {
    let mut out: Vec<&SessionMeta> = Vec::new();
    let mut parents = vec![session];
    while let Some(parent) = parents.pop() {
        for s in sessions.iter().filter(|s| {
            s.provider == session.provider
                && s.parent_id.as_deref() == Some(parent.id.as_str())
                && s.id != session.id
                && nearest(sessions, parent, s)
        }) {
            if !out
                .iter()
                .any(|o| o.id == s.id && o.source_path == s.source_path)
            {
                out.push(s);
                parents.push(s);
            }
        }
    }
    out.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    out
}

/// Whether `parent` is the copy of its session whose file is nearest `child`'s (shares the
/// longest leading part of its path): the one the child belongs to when another file holds
/// the same session. Alone in its listing, a parent is always its children's.
pub(crate) fn nearest(sessions: &[SessionMeta], parent: &SessionMeta, child: &SessionMeta) -> bool {
    let shared = |s: &SessionMeta| {
        let (a, b) = (s.source_path.components(), child.source_path.components());
        a.zip(b).take_while(|(x, y)| x == y).count()
    };
    let mine = shared(parent);
    sessions
        .iter()
        .filter(|s| s.provider == parent.provider && s.id == parent.id)
        .filter(|s| s.source_path != parent.source_path)
        .all(|other| shared(other) < mine)
}

/// Refuses a session an agent has open, or may still be writing: live now, or updated (by its
/// records or its file's modification time) in the last [`RECENT_MINUTES`].
fn check_quiet(catalog: &Catalog, s: &SessionMeta, now: DateTime<Utc>) -> Result<(), TrashError> {
    if catalog.is_live(s) {
        return Err(TrashError::Live {
            provider: s.provider,
            id: s.id.clone(),
        });
    }
    // A database is written for every session in it: only a session's own file says anything.
    let own_file = s.source_path.extension().is_none_or(|e| e != "db");
    let modified = own_file
        .then(|| {
            std::fs::metadata(&s.source_path)
                .and_then(|m| m.modified())
                .ok()
        })
        .flatten()
        .map(DateTime::<Utc>::from);
    let latest = s.updated_at.into_iter().chain(modified).max();
    if let Some(t) = latest {
        let age = now - t;
        if age < chrono::Duration::minutes(RECENT_MINUTES) {
            let ago = if age < chrono::Duration::zero() {
                format!("at {} (in the future)", t.to_rfc3339())
            } else if age.num_seconds() < 60 {
                format!("{} seconds ago", age.num_seconds())
            } else {
                format!("{} minutes ago", age.num_minutes())
            };
            return Err(TrashError::Recent {
                provider: s.provider,
                id: s.id.clone(),
                ago,
            });
        }
    }
    Ok(())
}

/// The store roots this program reads for `kind`.
fn roots_of(catalog: &Catalog, kind: ProviderKind) -> &[PathBuf] {
    catalog.providers().get(kind).map_or(&[], |p| p.roots())
}

/// The store root (of the provider's roots) that holds `path`.
pub(crate) fn root_of<'a>(
    catalog: &'a Catalog,
    kind: ProviderKind,
    path: &Path,
) -> Option<&'a Path> {
    roots_of(catalog, kind)
        .iter()
        .find(|r| path.starts_with(r))
        .map(PathBuf::as_path)
}

/// Whether `kind`'s sessions are found where the user works, outside any root (Aider's
/// history in a repository another agent ran in): there the folder holding a listed
/// session's file is its store.
fn looks_near(catalog: &Catalog, kind: ProviderKind) -> bool {
    catalog
        .providers()
        .get(kind)
        .is_some_and(|p| p.looks_near())
}

/// The roots a plan's paths must be inside: `kind`'s roots, and for an agent found where the
/// user works, the folders of the listed sessions' `files`.
fn guard_roots(catalog: &Catalog, kind: ProviderKind, files: &[&Path]) -> Vec<PathBuf> {
    let mut roots = roots_of(catalog, kind).to_vec();
    if looks_near(catalog, kind) {
        roots.extend(
            files
                .iter()
                .filter_map(|f| f.parent())
                .map(Path::to_path_buf),
        );
    }
    roots
}

/// What would happen to `session` (one of `sessions`, the current listing) on `request`.
/// Refusals come first and touch nothing: the opt-ins, then the live and recent checks (for
/// the subagents too when they go along), then what the agent can do.
pub fn plan(
    catalog: &Catalog,
    sessions: &[SessionMeta],
    session: &SessionMeta,
    request: Request,
    settings: &ActionSettings,
    tools: &Tools,
) -> Result<Plan, Error> {
    check_allowed(request.mode, settings)?;
    let children = descendants(sessions, session);
    let now = Utc::now();
    check_quiet(catalog, session, now)?;
    if request.subagents == Some(true) {
        for c in &children {
            check_quiet(catalog, c, now)?;
        }
    }
    let include = if children.is_empty() {
        Some(false)
    } else {
        request.subagents
    };
    let near = looks_near(catalog, session.provider)
        .then(|| session.source_path.parent())
        .flatten();
    let root = root_of(catalog, session.provider, &session.source_path)
        .or(near)
        .ok_or_else(|| {
            TrashError::Unsupported(format!(
                "{} is not under a {} root this program reads",
                session.source_path.display(),
                session.provider
            ))
        })?;
    // Another file holding this session (a copy beside it) shares what the root keeps by id:
    // one under this session's root first (a third copy in another store must not hide it).
    let twins = || {
        sessions.iter().filter(|s| {
            s.provider == session.provider
                && s.id == session.id
                && s.source_path != session.source_path
        })
    };
    let twin = twins()
        .find(|s| s.source_path.starts_with(root))
        .or_else(|| twins().next())
        .map(|s| s.source_path.as_path());
    let ask = Ask {
        root,
        session,
        twin,
        children: &children,
        include,
        mode: request.mode,
        program: tools.program(session.provider),
        subcommands: &agent::subcommands,
    };
    // Ids are used in paths and command lines: checked before any planner builds on them.
    for g in ask.going() {
        guard::check_id(&Target::of(g))?;
    }
    let planner = agent(session.provider)
        .trash
        .planner(request.mode)
        .map_err(|why| TrashError::Unsupported(why.to_owned()))?;
    let (steps, notes) = planner(&ask).map_err(TrashError::from)?;
    let files: Vec<&Path> = ask
        .going()
        .iter()
        .map(|s| s.source_path.as_path())
        .collect();
    let roots = guard_roots(catalog, session.provider, &files);
    guard::check_steps(&roots, &files, &steps)?;
    debug_assert!(
        steps.iter().rev().skip(1).all(Step::undoable),
        "only the last step may be one that cannot be undone"
    );
    Ok(Plan {
        mode: request.mode,
        session: Target::of(session),
        subagents: children.iter().map(|c| Target::of(c)).collect(),
        include_subagents: include,
        steps,
        notes,
    })
}

/// Runs `plan` (made by [`plan`] and confirmed by the user): the opt-ins and the live and
/// recent checks again, then the steps in order. `sessions` is a fresh listing.
pub fn execute(
    catalog: &Catalog,
    sessions: &[SessionMeta],
    plan: &Plan,
    settings: &ActionSettings,
) -> Result<Done, Error> {
    check_allowed(plan.mode, settings)?;
    if plan.needs_decision() {
        return Err(TrashError::SubagentsUndecided {
            id: plan.session.id.clone(),
            count: plan.subagents.len(),
        }
        .into());
    }
    // The plan may be old, or not made here: what it names is checked again as things are now
    // (a folder replaced by a link since).
    for t in plan.targets() {
        guard::check_id(t)?;
    }
    let files: Vec<&Path> = plan
        .targets()
        .iter()
        .map(|t| t.source_path.as_path())
        .collect();
    let roots = guard_roots(catalog, plan.session.provider, &files);
    guard::check_steps(&roots, &files, &plan.steps)?;
    let now = Utc::now();
    for t in plan.targets() {
        let current = sessions
            .iter()
            .find(|s| s.provider == t.provider && s.id == t.id && s.source_path == t.source_path)
            .ok_or_else(|| {
                TrashError::Stale(format!(
                    "{} is no longer listed from {}",
                    t.id,
                    t.source_path.display()
                ))
            })?;
        check_quiet(catalog, current, now)?;
    }
    // A file cut in part must be exactly as planned: nothing an agent wrote since is lost.
    for step in &plan.steps {
        if let Step::Cut(c) = step {
            cut::check(c)?;
        }
    }
    let mut done: Vec<&Step> = Vec::new();
    let mut output = Vec::new();
    for step in &plan.steps {
        match run_step(plan.session.provider, step) {
            Ok(out) => {
                output.extend(out);
                done.push(step);
            }
            Err(failed) => {
                let state = undo(&done, failed.left);
                return Err(TrashError::Failed {
                    what: failed.what,
                    reason: failed.reason,
                    state,
                }
                .into());
            }
        }
    }
    Ok(Done {
        mode: plan.mode,
        removed: plan.targets().into_iter().cloned().collect(),
        output,
    })
}

/// A step that failed: what it was doing, why it failed, and what of its own work it could not
/// put back (empty: the step changed nothing).
pub(crate) struct StepFailed {
    pub what: String,
    pub reason: String,
    pub left: Vec<String>,
}

impl StepFailed {
    pub fn new(what: impl Into<String>, reason: impl Into<String>) -> Self {
        StepFailed {
            what: what.into(),
            reason: reason.into(),
            left: Vec::new(),
        }
    }
}

/// Runs one step of `kind`'s plan; on failure the step has put back what it did itself, or
/// says what it could not.
fn run_step(kind: ProviderKind, step: &Step) -> Result<Option<String>, StepFailed> {
    let trash = &agent(kind).trash;
    match step {
        Step::OsTrash { items } => os_trash::move_all(items).map(|()| None),
        Step::Agent {
            argv,
            env,
            effect,
            removes,
        } => agent::run(argv, env, removes).map(Some).map_err(|reason| {
            // The agent's own failure is its own to undo: say what it took, if anything.
            let mut failed = StepFailed::new(effect.clone(), reason);
            failed.left.extend(
                removes
                    .iter()
                    .filter(|p| std::fs::symlink_metadata(p).is_err())
                    .map(|p| format!("{} is gone", p.display())),
            );
            failed
        }),
        Step::Archive { moves, db } => {
            archive::run(kind, trash.archive_rows, moves, db.as_deref()).map(|()| None)
        }
        Step::Cut(c) => cut::run(c).map(|()| None),
        Step::DeleteRows { db, ids, .. } => {
            let what = || format!("delete the rows in {}", db.display());
            let delete = trash.delete_rows.ok_or_else(|| {
                StepFailed::new(what(), format!("{} keeps no rows to delete", label(kind)))
            })?;
            delete(db, ids)
                .map(|()| None)
                .map_err(|reason| StepFailed::new(what(), reason))
        }
    }
}

/// Puts back what the steps done so far changed; says what state that left, given what the
/// failed step itself could not put back (`left`).
fn undo(done: &[&Step], mut left: Vec<String>) -> String {
    for step in done.iter().rev() {
        let result = match step {
            Step::OsTrash { items } => os_trash::restore(items),
            // Never reached: only the last step cannot be undone, and a failed step is not done.
            Step::Agent { .. } | Step::Archive { .. } | Step::DeleteRows { .. } | Step::Cut(_) => {
                Ok(())
            }
        };
        if let Err(e) = result {
            left.push(e);
        }
    }
    match (done.is_empty(), left.is_empty()) {
        (_, false) => format!("and not everything could be put back: {}", left.join("; ")),
        (true, true) => "nothing was changed".to_owned(),
        (false, true) => "what had been moved was put back, so the session is as it was".to_owned(),
    }
}
