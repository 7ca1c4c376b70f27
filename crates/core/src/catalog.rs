//! The service both front ends call: scan every provider, find a session, load it.
//!
//! The CLI and the desktop app are thin translations of these calls; neither holds logic.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::actions::resume::ResumeCommand;
use crate::error::Error;
use crate::live::events::{self, TurnState};
use crate::live::tail::{self, LineStart};
use crate::model::{Diagnostics, ProviderKind, SessionMeta, Transcript};
use crate::paths::{RecordedWorktrees, RepoRoots};
use crate::provider::capability::launch::Recorded;
use crate::provider::{files, registry};
use crate::provider::{Provider, ProviderSet, Roots, ScanProgress};

/// Turn-state evidence older than this is no evidence.
const STALE_SECS: i64 = 600;
/// How much of a live session's end its turn state is read from, at first and at most.
const TURN_WINDOW: u64 = 256 << 10;
const MAX_TURN_WINDOW: u64 = 64 << 20;

pub struct Catalog {
    providers: ProviderSet,
    /// The worktrees agents recorded, read again only when their files change.
    worktrees: Mutex<Option<Worktrees>>,
}

/// [`RecordedWorktrees`] and the stamps of the files they were read from.
struct Worktrees {
    stamps: Vec<(u64, i64)>,
    recorded: Arc<RecordedWorktrees>,
}

/// Every session found, newest first, with what went wrong on the way.
#[derive(Debug, Default, serde::Serialize, ts_rs::TS)]
pub struct ScanReport {
    pub sessions: Vec<SessionMeta>,
    pub diagnostics: Diagnostics,
}

impl Catalog {
    pub fn new(roots: &Roots, only: &[ProviderKind]) -> Self {
        Catalog {
            providers: ProviderSet::new(roots, only),
            worktrees: Mutex::new(None),
        }
    }

    pub fn providers(&self) -> &ProviderSet {
        &self.providers
    }

    /// A full scan of every provider (no cache), providers side by side.
    pub fn scan(&self, progress: &ScanProgress) -> Result<ScanReport, Error> {
        let states = vec![Vec::new(); self.providers.iter().count()];
        let mut report = ScanReport::default();
        // Two passes: an agent found where the user works looks in the others' directories.
        self.providers
            .scan_each_near(&states, progress, &[], &mut |_, output| {
                report.diagnostics.merge(&output.diagnostics);
                report.sessions.extend(output.changed);
                Ok::<(), Error>(())
            })?;
        self.enrich(&mut report.sessions);
        report.sessions.sort_by(SessionMeta::newest_first);
        Ok(report)
    }

    /// Fills what no single provider knows: cost estimates (`pricing`), directories normalised,
    /// repo roots (worktrees folded under their main repository), live flags, and the turn state of live sessions (from the
    /// end of their transcripts, which only live sessions cost a read for).
    pub fn enrich(&self, sessions: &mut [SessionMeta]) {
        let mut repos = RepoRoots::default();
        let mut cached = None;
        let mut recorded = || {
            cached
                .get_or_insert_with(|| self.recorded_worktrees())
                .clone()
        };
        let mut live: HashMap<(ProviderKind, String), Option<String>> = HashMap::new();
        for p in self.providers.iter() {
            let own: Vec<&SessionMeta> =
                sessions.iter().filter(|s| s.provider == p.kind()).collect();
            for l in p.live_sessions(&own) {
                live.insert((p.kind(), l.id), l.status);
            }
        }
        let prices = crate::pricing::current();
        for s in sessions.iter_mut() {
            prices.price(s);
            // One directory is one string however the agent wrote it (trailing `/`, `..`,
            // a symlink), and its repository is the main one its worktrees fold under. A
            // provider that knows the repo (OpenCode's project worktree) has said so already;
            // the worktrees agents recorded place the directories git cannot.
            s.dir = s.cwd.as_deref().map(|d| repos.normalize(d));
            s.repo_root = match (&s.repo_root, &s.dir) {
                (Some(root), _) => Some(repos.main_of(root)),
                (None, Some(dir)) => repos.repo_of(dir, &mut recorded),
                (None, None) => None,
            };
            let status = live.get(&(s.provider, s.id.clone()));
            s.live = status.is_some();
            s.turn = status.map(|status| self.turn_state(s, status.as_deref()));
        }
        // `C:\Users\Ann\proj` and `c:\users\ann\proj\` are one Windows directory, even where
        // it is not here to ask for its spelling.
        let places = sessions
            .iter_mut()
            .flat_map(|s| [&mut s.dir, &mut s.repo_root]);
        crate::paths::one_spelling_per_dir(places.flatten());
    }

    /// The worktrees agents recorded in their stores (their descriptor's `Worktrees::recorded`),
    /// kept while their files are unchanged. A store that cannot be read records none (its
    /// scan says why).
    fn recorded_worktrees(&self) -> Arc<RecordedWorktrees> {
        let stores: Vec<(Recorded, &Path)> = self
            .providers
            .iter()
            .filter_map(|p| Some((registry::agent(p.kind()).worktrees.recorded?, p.roots())))
            .flat_map(|(recorded, roots)| roots.iter().map(move |r| (recorded, r.as_path())))
            .collect();
        let stamps: Vec<(u64, i64)> = stores
            .iter()
            .flat_map(|(recorded, root)| (recorded.sources)(root))
            .map(|p| files::stat(&p).unwrap_or((0, 0)))
            .collect();
        let mut cache = self.worktrees.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = cache.as_ref().filter(|c| c.stamps == stamps) {
            return hit.recorded.clone();
        }
        let pairs = stores
            .iter()
            .filter_map(|(recorded, root)| (recorded.read)(root))
            .flatten();
        let recorded = Arc::new(RecordedWorktrees::new(pairs));
        *cache = Some(Worktrees {
            stamps,
            recorded: recorded.clone(),
        });
        recorded
    }

    /// A live session's turn state: the agent's own idle flag where it writes one, else what the
    /// transcript's last events say — read from the end of its file, so a list costs the same
    /// for a live session of 1 GB as of 1 MB.
    fn turn_state(&self, session: &SessionMeta, status: Option<&str>) -> TurnState {
        if status == Some("idle") {
            return TurnState::Waiting;
        }
        let mut window = TURN_WINDOW;
        loop {
            let anchor = self.unnumbered_end(session, window);
            let Ok((t, start)) = self.load_tail(session, window, anchor) else {
                return TurnState::Unknown;
            };
            let events = events::project_window(&t.messages, start.offset == 0, false);
            // A window holding no whole record yet (one huge tool output) says nothing: widen it.
            if events.is_empty() && start.offset > 0 && window < MAX_TURN_WINDOW {
                window *= 4;
                continue;
            }
            return events::turn_state(&events, chrono::Utc::now(), STALE_SECS);
        }
    }

    /// Where the last `max_bytes` of a session read in part begin (the first line start in
    /// them), numbered as if no line came before: a turn state needs no line numbers, so the
    /// lines before the window are not even counted (that read the whole file). The file's
    /// start for a session read whole, or one that cannot be read.
    fn unnumbered_end(&self, session: &SessionMeta, max_bytes: u64) -> LineStart {
        let in_part = self.provider(session.provider);
        if !in_part.is_ok_and(|p| p.reads_in_part(session)) {
            return LineStart::default();
        }
        let start = std::fs::File::open(&session.source_path).and_then(|mut file| {
            let size = file.metadata()?.len();
            tail::line_start_at_or_after(&mut file, size.saturating_sub(max_bytes))
        });
        LineStart {
            offset: start.unwrap_or(0),
            line: 0,
        }
    }

    /// The end of a session: from `anchor` (a line start whose number is known) when at most
    /// `max_bytes` follow it, else about its last `max_bytes`, read from the first line start in
    /// them (counting lines from `anchor`, so the messages keep their real line numbers); and
    /// where that window starts. A session that cannot be read in part is read whole (the window
    /// starts at 0).
    pub fn load_tail(
        &self,
        session: &SessionMeta,
        max_bytes: u64,
        anchor: LineStart,
    ) -> Result<(Transcript, LineStart), Error> {
        let p = self.provider(session.provider)?;
        if !p.reads_in_part(session) {
            return Ok((p.load(session)?, LineStart::default()));
        }
        let path = &session.source_path;
        let size = files::stat(path).map_err(|e| Error::io(path, e))?.0;
        let start = match size.checked_sub(anchor.offset) {
            Some(rest) if rest <= max_bytes => anchor,
            _ => tail::window(path, max_bytes, anchor).map_err(|e| Error::io(path, e))?,
        };
        Ok((p.load_from(session, start)?, start))
    }

    /// Whether a running agent process has `session` open now.
    pub fn is_live(&self, session: &SessionMeta) -> bool {
        self.provider(session.provider).is_ok_and(|p| {
            p.live_sessions(&[session])
                .iter()
                .any(|l| l.id == session.id)
        })
    }

    /// The session `name` names: the one whose id it is, else the one read from the file it is
    /// the path of, else the only one whose id starts with it. Two sessions named alike (one
    /// session's file copied beside it: the same agent and id in two files) are an
    /// [`Error::AmbiguousId`] listing their files, never a silent pick.
    pub fn find<'a>(
        &self,
        sessions: &'a [SessionMeta],
        name: &str,
    ) -> Result<&'a SessionMeta, Error> {
        let exact: Vec<&SessionMeta> = sessions.iter().filter(|s| s.id == name).collect();
        if !exact.is_empty() {
            return one(name, exact);
        }
        let file = in_file(sessions, std::path::Path::new(name));
        if !file.is_empty() {
            return one(name, file);
        }
        let matches: Vec<&SessionMeta> =
            sessions.iter().filter(|s| s.id.starts_with(name)).collect();
        match matches.len() {
            0 => Err(Error::session_not_found(name)),
            _ => one(name, matches),
        }
    }

    fn provider(&self, kind: ProviderKind) -> Result<&dyn Provider, Error> {
        self.providers
            .get(kind)
            .ok_or_else(|| Error::session_not_found(format!("{kind} provider is not enabled")))
    }

    pub fn load(&self, session: &SessionMeta) -> Result<Transcript, Error> {
        Ok(self.provider(session.provider)?.load(session)?)
    }

    /// The transcript's messages one at a time, in order (see [`Provider::load_each`]): what
    /// a front end that writes a transcript out uses, so its memory does not grow with it.
    pub fn load_each(
        &self,
        session: &SessionMeta,
        each: &mut dyn FnMut(crate::model::Message),
    ) -> Result<Diagnostics, Error> {
        Ok(self.provider(session.provider)?.load_each(session, each)?)
    }

    /// The stored records behind a message of a store without lines (see `raw`).
    pub fn raw_records(
        &self,
        session: &SessionMeta,
        message_id: &str,
    ) -> Result<Vec<(String, serde_json::Value)>, Error> {
        Ok(self
            .provider(session.provider)?
            .raw_records(session, message_id)?)
    }

    pub fn blob(&self, session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error> {
        Ok(self.provider(session.provider)?.blob(session, key)?)
    }

    /// At most `max` bytes of a blob and its whole size (see `Provider::blob_head`).
    pub fn blob_head(
        &self,
        session: &SessionMeta,
        key: &str,
        max: usize,
    ) -> Result<(Vec<u8>, u64), Error> {
        Ok(self
            .provider(session.provider)?
            .blob_head(session, key, max)?)
    }

    /// The agent's command that resumes `session`. A copy (its id in another file too) whose
    /// file is not the one the agent would open is refused ([`Error::ResumeOtherCopy`]): for
    /// an agent whose command names the id alone (`registry::Agent::which_copy`).
    pub fn resume_command(&self, session: &SessionMeta) -> Result<ResumeCommand, Error> {
        let command = self.provider(session.provider)?.resume_command(session)?;
        let id = session.parent_id.as_deref().unwrap_or(&session.id);
        crate::actions::resume::which_copy(session, id)?;
        Ok(command)
    }
}

/// The only session of `matches` (not empty), or the error listing them all.
fn one<'a>(name: &str, matches: Vec<&'a SessionMeta>) -> Result<&'a SessionMeta, Error> {
    match matches.as_slice() {
        [only] => Ok(only),
        _ => Err(Error::ambiguous(name, &matches)),
    }
}

/// The sessions read from `path` (as listed, or the same file named another way: relative,
/// through a symlink). Only a listed session is ever named this way: a path no session was
/// read from names none.
pub fn in_file<'a>(sessions: &'a [SessionMeta], path: &std::path::Path) -> Vec<&'a SessionMeta> {
    let direct: Vec<&SessionMeta> = (sessions.iter())
        .filter(|s| crate::model::path::names(&s.source_path, path))
        .collect();
    if !direct.is_empty() {
        return direct;
    }
    let Ok(real) = std::fs::canonicalize(path) else {
        return Vec::new();
    };
    sessions
        .iter()
        .filter(|s| {
            s.source_path == real || std::fs::canonicalize(&s.source_path).is_ok_and(|p| p == real)
        })
        .collect()
}
