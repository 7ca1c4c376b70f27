//! The running service a front end that stays open keeps: the desktop app today, the remote
//! server (`agent-sessions-cli serve`, issue 14) next. It keeps the cache fresh on a thread of
//! its own and answers calls in between:
//!
//! - The refresh loop: woken by the file watcher (or a poll without one), it refreshes (cheap
//!   when nothing changed), reports [`Event::Changed`], then indexes message text in small
//!   batches so search fills in behind the list ([`Event::Indexing`]). A scan reports
//!   [`Event::Progress`] every 150 ms while it runs. New roots ([`Service::switch`]) wake it to
//!   start over on them.
//! - The calls: the listing (remembered, so a session named by (provider, id) resolves to its
//!   files without a path ever coming from the caller), the transcript cache, and the change
//!   sequence ([`Service::changes_since`]).
//!
//! The loop has its own library (its own connection to the cache), so the calls keep answering
//! from the cache while a long first scan runs. Without a cache (no folder for it can be found
//! or opened) both libraries keep the scans in one shared memory instead
//! ([`crate::library::Scanned`]), so the loop still finds only what changed and the change
//! sequence hears it exactly as with a cache. Events are plain data handed to a callback; the
//! front end forwards them (the app as Tauri events).

mod changes;
pub mod index_process;
mod transcript;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::Serialize;

use crate::catalog::ScanReport;
use crate::error::Error;
use crate::library::{Library, Scanned};
use crate::model::{ProviderKind, SessionMeta, Transcript};
use crate::provider::{Roots, ScanOutput, ScanProgress};
use crate::watch;

pub use changes::{Changes, Delta};
pub use index_process::IndexProcess;

use changes::{ChangeLog, Seen};
use transcript::TranscriptCache;
pub use transcript::TranscriptReads;

/// Events closer than this are one change.
const DEBOUNCE: Duration = Duration::from_millis(100);
/// With a watcher: how often live flags are re-checked when nothing is written.
const TICK: Duration = Duration::from_secs(5);
/// With a watcher and no session live: how often the stores are looked at all the same. A
/// session turns live only with a write (its file, or Claude's `sessions/<pid>.json`), which
/// the watcher reports at once; what only time changes — a live flag dropping when its agent
/// exits, a turn state — belongs to live sessions. The tick still catches what a watch misses
/// (a folder made after the watch began is watched only through its parent), within this.
/// Half the idle app's CPU (issue 36).
const QUIET_TICK: Duration = Duration::from_secs(10);
/// Without a watcher: how often the stores are polled.
const POLL: Duration = Duration::from_secs(2);
/// Text indexing runs in steps of at most this many sessions and about [`INDEX_STEP`], with a
/// refresh of the list between them (the bench measures a cold start in these steps). Steps
/// of 20 sessions made a cold start of the 300 MB corpus 29 steps, a third slower than one pass
/// (each step fills and drains its pipeline), and its segments were never merged.
pub const INDEX_BATCH: usize = 1000;
/// See [`INDEX_BATCH`]: a live change waits about this for the list (more when the step's
/// last session is a big one: a step ends after the session it is writing).
pub const INDEX_STEP: Duration = Duration::from_secs(1);
/// How often a running scan reports its progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(150);

/// What the loop reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Event {
    /// Something the user should know that did not stop the loop (no file watching: polling).
    Warning(String),
    /// A scan's progress, while it runs.
    Progress(Progress),
    /// The cache may list something else now: read the list again.
    Changed(Changed),
    /// Sessions still to text-index, after each indexing step.
    Indexing { pending: usize },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(rename = "ScanProgress")]
pub struct Progress {
    pub files_done: u64,
    pub files_total: u64,
    pub bytes_done: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Changed {
    pub changed: usize,
    pub removed: usize,
    /// The first refresh on these roots (the list may have been empty or stale until now).
    pub first: bool,
    /// The refresh is complete (not just one provider's part of it, which a first refresh
    /// reports as each agent's sessions land).
    pub done: bool,
    /// The change sequence after it ([`Service::changes_since`]).
    pub seq: u64,
}

/// How the loop learns of changes, for a diagnostics panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum WatcherState {
    /// The loop has not started (or not yet set up its watcher on these roots).
    NotStarted,
    /// File-system events wake it; these directories (and whether recursively).
    Watching {
        paths: Vec<(PathBuf, bool)>,
    },
    /// No watcher could be set up: it polls the stores every `every_ms`.
    Polling {
        every_ms: u64,
        reason: String,
    },
    Stopped,
}

type Emit = Arc<dyn Fn(Event) + Send + Sync>;

pub struct Service {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

struct Shared {
    cache_dir: Option<PathBuf>,
    /// The roots, and what their scans found when there is no cache (both libraries keep
    /// them there; new roots start a new one, as the cache file is per roots). One lock, so
    /// the loop never pairs one roots' scans with other roots.
    roots: Mutex<(Roots, Arc<Scanned>)>,
    /// The calls' library (the loop opens its own).
    library: Mutex<Library>,
    /// Every session of the last listing, by (provider, id): usually one, more when one
    /// session's file was copied beside it (the same agent and id in two files).
    sessions: Mutex<HashMap<(ProviderKind, String), Vec<SessionMeta>>>,
    transcripts: TranscriptCache,
    /// Bumped (under the change log's lock) when the roots change, so the loop starts over.
    generation: AtomicU64,
    changes: Mutex<ChangeLog>,
    /// The listing as last looked at (held while a look lists, so looks land in order).
    seen: Mutex<Seen>,
    stop: AtomicBool,
    /// Wakes the loop (it waits up to a few seconds between refreshes otherwise).
    wake: Mutex<Option<mpsc::Sender<()>>>,
    watcher: Mutex<WatcherState>,
    /// The loop empties the cache before its next round ([`Service::clear_cache`]).
    clear: AtomicBool,
    /// The generation of roots whose first refresh is done, and its signal
    /// ([`Service::wait_listed`]).
    listed: Mutex<Option<u64>>,
    listed_now: Condvar,
    /// Where a long indexing pass runs, when not in the loop ([`Service::index_elsewhere`]).
    index_process: Mutex<Option<IndexProcess>>,
}

/// A lock that a panic elsewhere does not make unusable: what the service guards stays whole
/// (the library's writes are transactions, the maps are replaced or cleared as a whole), and a
/// panicked call must not take every later call down with it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Service {
    /// A service over `roots` with the cache in `cache_dir` (none: no cache). Nothing runs until
    /// [`Service::start`]; the calls work at once.
    pub fn new(roots: Roots, cache_dir: Option<PathBuf>) -> Self {
        let scanned = Arc::new(Scanned::default());
        let library = Library::open_with(&roots, &[], cache_dir.clone(), scanned.clone());
        Service {
            shared: Arc::new(Shared {
                cache_dir,
                roots: Mutex::new((roots, scanned)),
                library: Mutex::new(library),
                sessions: Mutex::new(HashMap::new()),
                transcripts: TranscriptCache::default(),
                generation: AtomicU64::new(0),
                changes: Mutex::new(ChangeLog::default()),
                seen: Mutex::new(Seen::default()),
                stop: AtomicBool::new(false),
                wake: Mutex::new(None),
                watcher: Mutex::new(WatcherState::NotStarted),
                clear: AtomicBool::new(false),
                listed: Mutex::new(None),
                listed_now: Condvar::new(),
                index_process: Mutex::new(None),
            }),
            thread: Mutex::new(None),
        }
    }

    /// Runs long indexing passes (from [`IndexProcess::at_least`] pending sessions) in a child
    /// process started as `process` says, once per set of roots, instead of in the loop's own
    /// threads: see [`index_process`]. Set before [`Service::start`].
    pub fn index_elsewhere(&self, process: IndexProcess) {
        *lock(&self.shared.index_process) = Some(process);
    }

    /// Starts the refresh loop on its own thread, reporting to `on_event` (called from the
    /// loop's threads). A second call while it runs does nothing.
    pub fn start(&self, on_event: impl Fn(Event) + Send + Sync + 'static) {
        let mut thread = lock(&self.thread);
        if thread.is_some() {
            return;
        }
        self.shared.stop.store(false, Ordering::SeqCst);
        let shared = self.shared.clone();
        let emit: Emit = Arc::new(on_event);
        *thread = Some(std::thread::spawn(move || run(&shared, &emit)));
    }

    /// Stops the loop and waits for it: at once when it is idle, after the step it is in
    /// otherwise (a scan, or one batch of indexing).
    pub fn stop(&self) {
        let Some(thread) = lock(&self.thread).take() else {
            return;
        };
        self.shared.stop.store(true, Ordering::SeqCst);
        self.wake();
        let _ = thread.join();
    }

    /// Refresh now rather than at the next tick (after an action changed a store).
    pub fn wake(&self) {
        if let Some(wake) = lock(&self.shared.wake).clone() {
            let _ = wake.send(());
        }
    }

    /// Reads other roots from now on: a new library for the calls, the listing and transcript
    /// forgotten, the change sequence started over, and the loop woken to start over on them.
    pub fn switch(&self, roots: Roots) {
        let shared = &self.shared;
        let scanned = Arc::new(Scanned::default());
        *lock(&shared.library) =
            Library::open_with(&roots, &[], shared.cache_dir.clone(), scanned.clone());
        *lock(&shared.roots) = (roots, scanned);
        shared.transcripts.clear();
        lock(&shared.sessions).clear();
        {
            let mut log = lock(&shared.changes);
            log.reset();
            shared.generation.fetch_add(1, Ordering::SeqCst);
        }
        self.wake();
    }

    pub fn roots(&self) -> Roots {
        lock(&self.shared.roots).0.clone()
    }

    /// Whether the loop is woken by file-system events or polls, and what it watches.
    pub fn watcher_state(&self) -> WatcherState {
        lock(&self.shared.watcher).clone()
    }

    pub fn cache_dir(&self) -> Option<PathBuf> {
        self.shared.cache_dir.clone()
    }

    /// Empties the cache of these roots (ours only: no agent's store is touched) and starts
    /// over on them as [`Service::switch`] does, so the loop fills it again from the stores.
    /// A running loop empties it itself before its next round: a step it was in (a scan that
    /// commits provider states) must not land after the emptying, or the next scan would find
    /// those states and list nothing of them again. (A failure then is a warning event.)
    pub fn clear_cache(&self) -> Result<(), Error> {
        if lock(&self.thread).is_some() {
            self.shared.clear.store(true, Ordering::SeqCst);
        } else {
            self.library().clear_cache()?;
        }
        self.switch(self.roots());
        Ok(())
    }

    /// Waits at most `limit` for the loop's first refresh on the current roots to end (at once
    /// when no loop runs): whether it has. A search before it would miss every session not
    /// listed yet, with nothing to say so: the app's first search after a cold start waits
    /// for the list (0.4–0.6 s at 300 MB), not for the text index.
    pub fn wait_listed(&self, limit: Duration) -> bool {
        if lock(&self.thread).is_none() {
            return true;
        }
        let deadline = std::time::Instant::now() + limit;
        let mut listed = lock(&self.shared.listed);
        loop {
            if *listed == Some(self.shared.generation.load(Ordering::SeqCst)) {
                return true;
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            listed = self
                .shared
                .listed_now
                .wait_timeout(listed, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// The calls' library, for what the service has no call of its own for (search, actions).
    pub fn library(&self) -> MutexGuard<'_, Library> {
        lock(&self.shared.library)
    }

    /// What the cache lists now (without refreshing: the loop does that), remembered so its
    /// sessions can be named by (provider, id). Take [`Service::seq`] before listing to ask
    /// for the changes after it.
    pub fn list(&self) -> Result<ScanReport, Error> {
        let report = self.library().listed(&ScanProgress::default())?;
        self.remember(&report.sessions);
        Ok(report)
    }

    /// Refreshes the cache now, on the calls' library (after an action wrote a store, so its
    /// result is listed at once, whatever the loop's next refresh takes), then lists as
    /// [`Service::list`] does. Its changes go in the change sequence as the loop's do, and so
    /// does what the listing shows changed since the last look (another process's changes).
    pub fn refresh(&self) -> Result<ScanReport, Error> {
        let generation = self.shared.generation.load(Ordering::SeqCst);
        let mut found = Vec::new();
        let refreshed = self
            .library()
            .refresh_with(&ScanProgress::default(), &mut |_, output| {
                found.push(changes::found(output));
            });
        let mut seen = lock(&self.shared.seen);
        let listed = refreshed.and_then(|_| self.list());
        let sessions = listed.as_ref().ok().map(|r| r.sessions.clone());
        self.shared.look(&mut seen, generation, sessions, &found);
        listed
    }

    /// Keeps a listing, so later calls can name its sessions by (provider, id) and, when two
    /// files hold one session, its file.
    pub fn remember(&self, sessions: &[SessionMeta]) {
        let mut known = lock(&self.shared.sessions);
        known.clear();
        for s in sessions {
            known
                .entry((s.provider, s.id.clone()))
                .or_default()
                .push(s.clone());
        }
    }

    /// Drops sessions from the remembered listing (they were trashed).
    pub fn forget_listed(&self, sessions: &[(ProviderKind, String)]) {
        let mut known = lock(&self.shared.sessions);
        for key in sessions {
            known.remove(key);
        }
    }

    /// The session named by (provider, id), as the cache lists it (its files included); an
    /// [`Error::AmbiguousId`] when two files hold that session (see [`Service::resolve_at`]).
    pub fn resolve(&self, provider: ProviderKind, id: &str) -> Result<SessionMeta, Error> {
        self.resolve_at(provider, id, None)
    }

    /// The session named by (provider, id) and, when given, the file it was listed from (what
    /// tells two copies of one session apart). A file only picks among the listed sessions of
    /// that agent and id: it is never read as given. Without one, an id two files hold is an
    /// [`Error::AmbiguousId`] naming both, never a silent pick (a trash of the one shown must
    /// not reach the other). A session not in the last listing is looked up in a fresh one
    /// before it counts as not found.
    pub fn resolve_at(
        &self,
        provider: ProviderKind,
        id: &str,
        source: Option<&Path>,
    ) -> Result<SessionMeta, Error> {
        let key = (provider, id.to_string());
        let pick = |known: &HashMap<_, Vec<SessionMeta>>| {
            let listed: Vec<&SessionMeta> = known
                .get(&key)
                .into_iter()
                .flatten()
                .filter(|s| source.is_none_or(|p| crate::model::path::names(&s.source_path, p)))
                .collect();
            match listed.as_slice() {
                [] => None,
                [only] => Some(Ok((*only).clone())),
                _ => Some(Err(Error::ambiguous(id, &listed))),
            }
        };
        if let Some(found) = pick(&lock(&self.shared.sessions)) {
            return found;
        }
        self.list()?;
        pick(&lock(&self.shared.sessions)).unwrap_or_else(|| Err(Error::session_not_found(id)))
    }

    /// Runs `f` on the transcript of the session named by (provider, id), read again only when
    /// the session or its source file changed since the last call.
    pub fn with_transcript<T>(
        &self,
        provider: ProviderKind,
        id: &str,
        f: impl FnOnce(&Transcript) -> T,
    ) -> Result<T, Error> {
        let meta = self.resolve(provider, id)?;
        self.with_transcript_of(&meta, f)
    }

    /// [`Service::with_transcript`] of a session already resolved (by
    /// [`Service::resolve_at`] or in a listing), so it is that file's transcript.
    pub fn with_transcript_of<T>(
        &self,
        meta: &SessionMeta,
        f: impl FnOnce(&Transcript) -> T,
    ) -> Result<T, Error> {
        self.shared.transcripts.with(&self.shared.library, meta, f)
    }

    /// How many times the transcripts asked for were read whole, and from where the read
    /// before left off after an append.
    pub fn transcript_reads(&self) -> TranscriptReads {
        self.shared.transcripts.reads()
    }

    /// Transcripts read from now on hold `keep` messages open (`keep_at_most` while the
    /// oldest waits for a tool's result) instead of the providers' defaults: what a read after
    /// an append reads again. For tests, whose small fixture sessions a default window holds
    /// whole.
    pub fn set_transcript_window(&self, keep: usize, keep_at_most: usize) {
        self.shared.transcripts.set_window(keep, keep_at_most);
    }

    /// The change sequence now: a cursor for [`Service::changes_since`].
    pub fn seq(&self) -> u64 {
        lock(&self.shared.changes).seq()
    }

    /// The sessions changed or removed after `cursor`, and the cursor to ask with next: what
    /// this service's refreshes found, and what the listing after each showed changed since
    /// the one before (live flags and turn states, which change with time; changes another
    /// process's refresh of the same cache took, such as a CLI `scan`; sessions another front
    /// end trashed, whose rows it dropped at once). A change may be named twice, never missed.
    pub fn changes_since(&self, cursor: u64) -> Changes {
        lock(&self.shared.changes).since(cursor)
    }

    /// [`Service::changes_since`] with the sessions themselves, as listed now, so a client
    /// merges them into the list it holds instead of listing again. Live flags and turn states
    /// are in it too: the loop notes the sessions they changed for on every tick. Nothing
    /// changed: nothing is listed.
    pub fn delta(&self, cursor: u64) -> Result<Delta, Error> {
        let changes = self.changes_since(cursor);
        if changes.reset || (changes.changed.is_empty() && changes.removed.is_empty()) {
            return Ok(Delta::pick(changes, Vec::new()));
        }
        Ok(Delta::pick(changes, self.list()?.sessions))
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Shared {
    fn current(&self, generation: u64) -> bool {
        !self.stop.load(Ordering::SeqCst) && self.generation.load(Ordering::SeqCst) == generation
    }

    /// Puts one provider's committed scan in the change sequence, unless the roots switched
    /// since the refresh began (its changes are about the old roots); the sequence after it.
    fn record(&self, generation: u64, output: &ScanOutput) -> u64 {
        let mut log = lock(&self.changes);
        if self.generation.load(Ordering::SeqCst) == generation {
            log.record(output);
        }
        log.seq()
    }
}

impl Shared {
    /// Puts what a refresh `found` and what `sessions` (listed under `seen`'s lock after it;
    /// none when it could not list) shows changed since the last look in the change sequence
    /// at once (see [`ChangeLog::refreshed`]), unless the roots switched meanwhile.
    fn look(
        &self,
        seen: &mut Seen,
        generation: u64,
        sessions: Option<Vec<SessionMeta>>,
        found: &[ScanOutput],
    ) {
        let since = seen.seq;
        let (changed, removed) = match sessions {
            Some(sessions) => seen.look(generation, sessions),
            None => (Vec::new(), Vec::new()),
        };
        let mut log = lock(&self.changes);
        if self.generation.load(Ordering::SeqCst) == generation {
            log.refreshed(found, since, &changed, &removed);
        }
        seen.seq = log.seq();
    }

    /// [`Shared::look`] at what `lib` lists now (which reads only live sessions' ends).
    fn look_at(&self, generation: u64, lib: &Library, found: &[ScanOutput]) {
        let mut seen = lock(&self.seen);
        let listed = lib.listed(&ScanProgress::default()).ok();
        self.look(&mut seen, generation, listed.map(|l| l.sessions), found);
    }
}

/// The loop: one round per generation of roots until stopped.
fn run(shared: &Shared, emit: &Emit) {
    while !shared.stop.load(Ordering::SeqCst) {
        let generation = shared.generation.load(Ordering::SeqCst);
        let (roots, scanned) = lock(&shared.roots).clone();
        let mut lib = Library::open_with(&roots, &[], shared.cache_dir.clone(), scanned);
        if shared.clear.swap(false, Ordering::SeqCst) {
            if let Err(e) = lib.clear_cache() {
                emit(Event::Warning(format!(
                    "the cache could not be cleared: {e}"
                )));
            }
        }
        // Store changes wake the loop; without a watcher it polls. A change of roots or a stop
        // wakes it too, so it starts over (or ends) at once.
        let (tx, rx) = mpsc::channel();
        *lock(&shared.wake) = Some(tx.clone());
        let targets = watch::targets(lib.catalog().providers());
        let watcher = watch::watch(&targets, DEBOUNCE, move |_| {
            let _ = tx.send(());
        });
        let (idle, state) = match &watcher {
            Ok(w) => (
                TICK,
                WatcherState::Watching {
                    paths: w.watched.clone(),
                },
            ),
            Err(e) => {
                emit(Event::Warning(e.clone()));
                let every_ms = POLL.as_millis() as u64;
                let reason = e.clone();
                (POLL, WatcherState::Polling { every_ms, reason })
            }
        };
        *lock(&shared.watcher) = state;
        let mut first = true;
        // The change sequence the last `Changed` event named.
        let mut said = 0;
        let mut index_failed: Option<String> = None;
        // The indexing pass in a child process: at most one per set of roots, ended when the
        // loop starts over or stops (dropped).
        let mut pass: Option<index_process::Running> = None;
        let mut passed = false;
        while shared.current(generation) {
            let progress = Arc::new(ScanProgress::default());
            // On a first scan each agent's sessions show as soon as that agent is done (the
            // first look names nothing); later, with the look after the refresh.
            let mut found = Vec::new();
            let report = with_progress(emit, &progress, || {
                lib.refresh_with(&progress, &mut |_, output| {
                    if !first {
                        return found.push(changes::found(output));
                    }
                    let seq = shared.record(generation, output);
                    emit(Event::Changed(Changed {
                        changed: 0,
                        removed: 0,
                        first,
                        done: false,
                        seq,
                    }));
                })
            });
            // The list is re-read on every tick, and at once after a change: live flags and
            // turn states change with time (an agent exits), and another process's refresh or
            // trash changes the cache without this refresh finding it.
            if report.is_err() {
                // What the scans committed before it failed changed all the same.
                shared.look(&mut lock(&shared.seen), generation, None, &found);
            }
            if let Ok(r) = report {
                shared.look_at(generation, &lib, &found);
                // A tick that found nothing new says nothing: every event wakes the window,
                // which then asks what changed (two calls across the IPC, every 5 s, forever).
                let seq = lock(&shared.changes).seq();
                if first || seq != said {
                    emit(Event::Changed(Changed {
                        changed: r.changed,
                        removed: r.removed,
                        first,
                        done: true,
                        seq,
                    }));
                    said = seq;
                }
            }
            if first {
                *lock(&shared.listed) = Some(generation);
                shared.listed_now.notify_all();
            }
            first = false;
            // Whether the pass ended is asked before the count, so a count after its end is final.
            let ended = pass.as_mut().map(index_process::Running::ended);
            let pending = lib.pending_text();
            if let Some(ended) = ended {
                emit(Event::Indexing { pending });
                if !ended {
                    // Refreshes go on meanwhile, woken by the watcher or every step.
                    let _ = rx.recv_timeout(INDEX_STEP);
                    while rx.try_recv().is_ok() {}
                    continue;
                }
                // What it left undone is indexed below.
                pass = None;
            } else if !passed {
                if let Some((process, cache_dir, lock)) = pass_wanted(shared, &lib, pending) {
                    // Tried once: a pass that cannot start is not tried at every step.
                    passed = true;
                    pass = process.start(&roots, cache_dir, lock);
                    if pass.is_some() {
                        continue;
                    }
                }
            }
            if pending > 0 {
                let step = lib.index_text_step(INDEX_BATCH, INDEX_STEP, &ScanProgress::default());
                // Said once per failure, not at every step that fails the same way.
                let failed = step
                    .as_ref()
                    .err()
                    .map(|e| format!("text indexing failed: {e}"));
                if failed.is_some() && failed != index_failed {
                    emit(Event::Warning(failed.clone().unwrap_or_default()));
                }
                index_failed = failed;
                let done = step.unwrap_or(0);
                emit(Event::Indexing {
                    pending: lib.pending_text(),
                });
                // More to index: the next batch after a refresh (cheap when nothing changed).
                // A wake meanwhile asked for that refresh anyway; it is not waited for again
                // (the app's worker once took it here and then slept a whole tick).
                if done > 0 {
                    while rx.try_recv().is_ok() {}
                    continue;
                }
            }
            release_idle_memory(shared, &lib);
            let quiet = watcher.is_ok() && !lock(&shared.seen).any_live();
            let _ = rx.recv_timeout(if quiet { QUIET_TICK } else { idle });
            while rx.try_recv().is_ok() {}
        }
        drop(watcher);
    }
    *lock(&shared.wake) = None;
    *lock(&shared.watcher) = WatcherState::Stopped;
}

/// What starts the indexing pass in a child process — how, the cache folder and its indexing
/// lock — when the service has one set up, a cache (`lib`'s), and enough sessions `pending`.
fn pass_wanted(
    shared: &Shared,
    lib: &Library,
    pending: usize,
) -> Option<(IndexProcess, PathBuf, PathBuf)> {
    let process = lock(&shared.index_process)
        .as_ref()
        .filter(|p| pending > 0 && pending >= p.at_least)?
        .clone();
    let cache_dir = shared.cache_dir.clone()?;
    let lock = crate::index::lock::lock_path(lib.index()?.path());
    Some((process, cache_dir, lock))
}

/// Gives back the memory the loop's and the calls' cache connections hold whenever the loop
/// goes to sleep: their page caches (SQLite keeps a connection's last pages until it next
/// reads, up to 2 MB per file and connection) and what glibc then keeps of them. The calls'
/// library is skipped while a call holds it (the next sleep has it).
fn release_idle_memory(shared: &Shared, lib: &Library) {
    let calls = shared.library.try_lock();
    let calls = calls.as_ref().ok().and_then(|c| c.index());
    let shrunk = [calls, lib.index()]
        .into_iter()
        .flatten()
        .fold(false, |any, index| index.shrink_caches() | any);
    if shrunk {
        crate::index::release_freed_memory();
    }
}

/// Runs `work` while a ticker reports its progress every [`PROGRESS_EVERY`] it runs, when the
/// progress moved, and once more at its end. Work that ends sooner, or that finds every file
/// done when first looked at (an idle tick's refresh), reports nothing: the ticker hears the
/// end at once instead of waking the window with one last report after it.
fn with_progress<T>(emit: &Emit, progress: &Arc<ScanProgress>, work: impl FnOnce() -> T) -> T {
    let (done, ended) = mpsc::channel::<()>();
    let ticker = {
        let (emit, progress) = (emit.clone(), progress.clone());
        std::thread::spawn(move || {
            let mut said = None;
            while let Err(mpsc::RecvTimeoutError::Timeout) = ended.recv_timeout(PROGRESS_EVERY) {
                let (files_done, files_total, bytes_done, _) = progress.snapshot();
                let now = Progress {
                    files_done,
                    files_total,
                    bytes_done,
                };
                let news = match &said {
                    None => now.files_done < now.files_total,
                    Some(said) => *said != now,
                };
                if news {
                    said = Some(now.clone());
                    emit(Event::Progress(now));
                }
            }
            // A scan that was said to be under way is said to be over, or the window would
            // show it running until the next change (a refresh that changed nothing sends no
            // `Changed` event).
            if said.is_some() {
                let (files_done, files_total, bytes_done, _) = progress.snapshot();
                emit(Event::Progress(Progress {
                    files_done,
                    files_total,
                    bytes_done,
                }));
            }
        })
    };
    let out = work();
    drop(done);
    let _ = ticker.join();
    out
}
