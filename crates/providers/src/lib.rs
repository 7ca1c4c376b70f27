//! agent-sessions-providers: the provider interface (SPEC §3.1) and the explicit set of providers.
//!
//! A provider knows one agent's store: where it lives, how to list its sessions incrementally,
//! how to load a transcript, where large outputs live, and how to resume a session. Adding an
//! agent means one new module here plus its fixtures; nothing else changes.
//!
//! This crate is the middle layer (docs/architecture.md, "Layers"): it depends on the model and
//! on libraries, never on the core, so a provider cannot reach the actions, the index, the
//! catalog or the configuration file. It also holds what providers need to read files and
//! processes that other agents write ([`tail`], [`process`]). The core re-exports it as
//! `agent_sessions_core::provider`.
//!
//! Everything here parses text from files and processes we do not control, so slicing a string
//! by byte index (which panics inside a multi-byte character) is denied: use `split_once`,
//! `strip_prefix`, `char_indices` or `str::get`. (Tests may slice their own ASCII fixtures.)
#![cfg_attr(not(test), deny(clippy::string_slice))]

/// The `Provider` methods an agent's `transcript` module answers (load, load_each, load_from,
/// blob): each calls the module's function of the same name (`load_each` with the default
/// window of held messages). For Claude and Codex, whose
/// transcripts are their JSONL files.
macro_rules! transcript_methods {
    ($module:ident) => {
        fn load(&self, session: &SessionMeta) -> Result<Transcript, Error> {
            $module::load(session)
        }

        fn load_each(
            &self,
            session: &SessionMeta,
            each: &mut dyn FnMut(agent_sessions_model::Message),
        ) -> Result<agent_sessions_model::Diagnostics, Error> {
            $module::load_each_from(session, None, crate::held::Held::default(), each)
                .map(|(d, _)| d)
        }

        fn load_from(
            &self,
            session: &SessionMeta,
            from: crate::tail::LineStart,
        ) -> Result<Transcript, Error> {
            $module::load_from(session, from)
        }

        fn load_each_from(
            &self,
            session: &SessionMeta,
            resume: Option<&crate::tail::Resume>,
            each: &mut dyn FnMut(agent_sessions_model::Message),
        ) -> Result<
            (
                agent_sessions_model::Diagnostics,
                Option<crate::tail::Resume>,
            ),
            Error,
        > {
            $module::load_each_from(session, resume, crate::held::Held::default(), each)
        }

        fn load_each_linked(
            &self,
            session: &SessionMeta,
            resume: Option<&crate::tail::Resume>,
            links: &mut crate::tail::Links,
            each: &mut dyn FnMut(agent_sessions_model::Message),
        ) -> crate::tail::Streamed {
            $module::load_each_linked(session, resume, links.held(), links, each)
        }

        fn blob(&self, session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error> {
            $module::blob(session, key)
        }
    };
}

pub mod aider;
pub mod blob;
mod build;
pub mod capability;
pub mod claude;
pub mod cline;
pub mod codex;
pub mod copilot;
pub mod error;
pub mod files;
pub mod gemini;
mod genai;
pub mod held;
pub mod ids;
pub mod jsonl;
pub mod lenient;
pub mod opencode;
pub mod process;
pub mod qwen;
pub mod registry;
#[cfg(test)]
mod resume_props;
pub mod sqlite;
pub mod tail;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use agent_sessions_model::{
    Diagnostic, Diagnostics, ProviderKind, ResumeCommand, SessionMeta, Transcript,
};

pub use agent_sessions_model::LiveSession;
pub use error::Error;

/// A provider's own resume state between scans: opaque bytes to everyone else (the index stores
/// them as they are). Empty means "no previous scan"; bytes a provider cannot read (from another
/// version) also mean a full scan, never an error.
pub type ProviderState = Vec<u8>;

/// What an incremental scan found.
#[derive(Debug, Default)]
pub struct ScanOutput {
    /// Sessions that are new or changed since the previous state.
    pub changed: Vec<SessionMeta>,
    /// Source paths whose sessions are gone.
    pub removed: Vec<SessionKey>,
    /// Every diagnostic that currently applies to this provider's stores.
    pub diagnostics: Diagnostics,
    /// The state to hand to the next scan.
    pub state: ProviderState,
}

/// Identifies a session across scans.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SessionKey {
    pub provider: ProviderKind,
    pub id: String,
    #[serde(with = "agent_sessions_model::path::os")]
    pub source_path: PathBuf,
}

impl SessionKey {
    pub fn of(meta: &SessionMeta) -> Self {
        SessionKey {
            provider: meta.provider,
            id: meta.id.clone(),
            source_path: meta.source_path.clone(),
        }
    }
}

/// Progress of a running scan, shared between the scanning threads and whoever shows it.
#[derive(Debug, Default)]
pub struct ScanProgress {
    pub files_total: AtomicU64,
    pub files_done: AtomicU64,
    pub bytes_total: AtomicU64,
    pub bytes_done: AtomicU64,
}

impl ScanProgress {
    pub fn add_total(&self, files: u64, bytes: u64) {
        self.files_total.fetch_add(files, Ordering::Relaxed);
        self.bytes_total.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn add_done(&self, files: u64, bytes: u64) {
        self.files_done.fetch_add(files, Ordering::Relaxed);
        self.bytes_done.fetch_add(bytes, Ordering::Relaxed);
    }

    /// (files done, files total, bytes done, bytes total)
    pub fn snapshot(&self) -> (u64, u64, u64, u64) {
        (
            self.files_done.load(Ordering::Relaxed),
            self.files_total.load(Ordering::Relaxed),
            self.bytes_done.load(Ordering::Relaxed),
            self.bytes_total.load(Ordering::Relaxed),
        )
    }
}

/// One agent's store.
pub trait Provider: Send + Sync {
    fn kind(&self) -> ProviderKind;

    /// The store roots this provider reads.
    fn roots(&self) -> &[PathBuf];

    /// Whether any root holds this agent's data.
    fn detect(&self) -> bool;

    /// Lists sessions changed since `prev` (a state this provider returned before, or `Null`).
    fn scan(&self, prev: &ProviderState, progress: &ScanProgress) -> Result<ScanOutput, Error>;

    /// Whether this agent's sessions are kept where the user works rather than in a store of
    /// its own (Aider's history file in each repository): then [`ProviderSet::scan_each_near`]
    /// scans it after the others, with [`Provider::scan_near`] and the directories their
    /// sessions ran in.
    fn looks_near(&self) -> bool {
        false
    }

    /// [`Provider::scan`], also looking in `near`: directories other agents' sessions ran in,
    /// and any a front end names (the CLI's current directory).
    fn scan_near(
        &self,
        prev: &ProviderState,
        progress: &ScanProgress,
        near: &[PathBuf],
    ) -> Result<ScanOutput, Error> {
        let _ = near;
        self.scan(prev, progress)
    }

    /// The full transcript of a session this provider listed.
    fn load(&self, session: &SessionMeta) -> Result<Transcript, Error>;

    /// Whether `session` is one append-only file that [`Provider::load_from`] reads from any
    /// line start: then a live session's turn state and a follower read only its end, so their
    /// work is bounded by a window, not by the file.
    fn reads_in_part(&self, session: &SessionMeta) -> bool {
        let _ = session;
        false
    }

    /// The transcript from `from` (a line start of the session's file) to its end. Only called
    /// where [`Provider::reads_in_part`] says so; otherwise the whole session.
    fn load_from(
        &self,
        session: &SessionMeta,
        from: crate::tail::LineStart,
    ) -> Result<Transcript, Error> {
        let _ = from;
        self.load(session)
    }

    /// The transcript's messages in order, each handed to `each` once nothing later can change
    /// it: providers whose builders can release messages stream a transcript of any size with
    /// bounded memory; the default loads it whole first.
    fn load_each(
        &self,
        session: &SessionMeta,
        each: &mut dyn FnMut(agent_sessions_model::Message),
    ) -> Result<Diagnostics, Error> {
        let t = self.load(session)?;
        t.messages.into_iter().for_each(each);
        Ok(t.diagnostics)
    }

    /// [`Provider::load_each`] from `resume` (`None`: from the start; one this provider returned
    /// for the same file, whose bytes before it the caller found unchanged), also returning
    /// where a later read of the file, grown since, can start again. A read from there hands
    /// out what a whole read would from there on (but for the `parent_id` of a message whose
    /// parent is before it): the messages whose records all lie there or later. So a live
    /// session's full-text index reads what it holds open, not the file, at each append.
    /// `None` where it cannot say (a store that is not one append-only file): read it whole.
    fn load_each_from(
        &self,
        session: &SessionMeta,
        resume: Option<&crate::tail::Resume>,
        each: &mut dyn FnMut(agent_sessions_model::Message),
    ) -> Result<(Diagnostics, Option<crate::tail::Resume>), Error> {
        let _ = resume;
        Ok((self.load_each(session, each)?, None))
    }

    /// [`Provider::load_each_from`] for a reader that keeps every message it read and, after
    /// an append, reads from the resume point and splices (the app's open transcript). `links`
    /// goes from one read to the next ([`Links::default`](crate::tail::Links) for a read from
    /// the start; the one the read before left for a read resumed where it said): with it a
    /// resumed read gives each message the `parent_id` a whole read does, and
    /// [`Links::earlier_changed`](crate::tail::Links::earlier_changed) says when a message
    /// before the point would now read otherwise (then read whole). Its memory is kept as long
    /// as the transcript (Claude: each record's uuid).
    fn load_each_linked(
        &self,
        session: &SessionMeta,
        resume: Option<&crate::tail::Resume>,
        links: &mut crate::tail::Links,
        each: &mut dyn FnMut(agent_sessions_model::Message),
    ) -> crate::tail::Streamed {
        let _ = links;
        self.load_each_from(session, resume, each)
    }

    /// The stored records behind message `message_id` of a store without lines (rows, JSON
    /// files), each with where it is (`message msg_…`, `part prt_…`). Line-oriented stores
    /// return nothing: their messages name their lines (`Message::source_lines`).
    fn raw_records(
        &self,
        session: &SessionMeta,
        message_id: &str,
    ) -> Result<Vec<(String, serde_json::Value)>, Error> {
        let _ = (session, message_id);
        Ok(Vec::new())
    }

    /// Hands `each` the session's records as stored, each whole (a row's JSON text), for a
    /// search's raw filter: every text [`Provider::load_each`] hands out for the session is in
    /// them, JSON-escaped at most. `each` returns false to stop. `Ok(false)`: this store (or
    /// this session's copy) has no such records, and a search must parse the session. A
    /// one-file session ([`Provider::reads_in_part`]) is its file, read by the search itself.
    fn each_raw_record(
        &self,
        session: &SessionMeta,
        each: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<bool, Error> {
        let _ = (session, each);
        Ok(false)
    }

    /// The bytes behind a blob key found in a transcript (large tool output, image).
    fn blob(&self, session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error>;

    /// At most the first `max` bytes behind a blob key, and how many there are in all: what a
    /// window is shown of a blob. A provider whose blobs can be files of their own (Claude's
    /// spilled tool results) reads only `max` of them, so a huge one costs `max` of memory;
    /// a blob inside a record is read with its record.
    fn blob_head(
        &self,
        session: &SessionMeta,
        key: &str,
        max: usize,
    ) -> Result<(Vec<u8>, u64), Error> {
        let mut bytes = self.blob(session, key)?;
        let size = bytes.len() as u64;
        bytes.truncate(max);
        Ok((bytes, size))
    }

    /// Files and directories whose changes may change the session list.
    fn watch_paths(&self) -> Vec<PathBuf>;

    /// The command that resumes exactly this session, or why there is none (an id not of the
    /// agent's shape, a directory name a shell cannot be given safely).
    fn resume_command(&self, session: &SessionMeta) -> Result<ResumeCommand, Error>;

    /// Sessions open in a running agent process right now; `sessions` are this provider's
    /// listed sessions. By default, with no pid file naming a session: those written to in the
    /// last two minutes while the agent's program runs (docs/formats.md, "Live sessions").
    fn live_sessions(&self, sessions: &[&SessionMeta]) -> Vec<LiveSession> {
        process::recently_active(registry::agent(self.kind()).program, sessions)
    }
}

/// The explicit set of providers a front end works with.
pub struct ProviderSet {
    providers: Vec<Box<dyn Provider>>,
    /// [`Roots::near_dirs`].
    near: Vec<PathBuf>,
}

/// Where each provider's stores are, by agent. An agent with no roots (absent or empty) is not
/// used. Keyed by [`ProviderKind`] so adding an agent adds no field here.
#[derive(Debug, Clone, Default)]
pub struct Roots(BTreeMap<ProviderKind, Vec<PathBuf>>, Near);

/// Directories a front end asks the agents that keep their sessions where the user works
/// ([`Provider::looks_near`]) to look in: the CLI's current directory. Not part of where the
/// stores are (the cache is the same whatever directory the CLI runs in).
#[derive(Debug, Clone, Default)]
struct Near(Vec<PathBuf>);

impl Roots {
    /// One agent's roots (empty when it has none).
    pub fn get(&self, kind: ProviderKind) -> &[PathBuf] {
        self.0.get(&kind).map_or(&[], Vec::as_slice)
    }

    /// Same as [`Roots::get`] (the name callers used before the registry).
    pub fn for_kind(&self, kind: ProviderKind) -> &[PathBuf] {
        self.get(kind)
    }

    /// One agent's roots, to change in place.
    pub fn get_mut(&mut self, kind: ProviderKind) -> &mut Vec<PathBuf> {
        self.0.entry(kind).or_default()
    }

    /// Replaces one agent's roots.
    pub fn set(&mut self, kind: ProviderKind, dirs: impl IntoIterator<Item = impl Into<PathBuf>>) {
        *self.get_mut(kind) = dirs.into_iter().map(Into::into).collect();
    }

    /// These roots with one agent's replaced: `Roots::default().with(Claude, [dir])`.
    pub fn with(
        mut self,
        kind: ProviderKind,
        dirs: impl IntoIterator<Item = impl Into<PathBuf>>,
    ) -> Self {
        self.set(kind, dirs);
        self
    }

    /// Every agent's roots from `of`, agent by agent (the registry's order).
    pub fn from_fn(mut of: impl FnMut(ProviderKind) -> Vec<PathBuf>) -> Self {
        Roots(
            registry::AGENTS
                .iter()
                .map(|a| (a.kind, of(a.kind)))
                .collect(),
            Near::default(),
        )
    }

    /// These roots, with `dirs` looked in by the agents that keep their sessions where the user
    /// works ([`Provider::looks_near`]): the CLI passes its current directory.
    pub fn near(mut self, dirs: Vec<PathBuf>) -> Self {
        self.1 = Near(dirs);
        self
    }

    /// The directories given with [`Roots::near`].
    pub fn near_dirs(&self) -> &[PathBuf] {
        &self.1 .0
    }

    /// Every agent this build knows with its roots (empty for one not used), in the registry's
    /// order.
    pub fn iter(&self) -> impl Iterator<Item = (ProviderKind, &[PathBuf])> {
        registry::AGENTS.iter().map(|a| (a.kind, self.get(a.kind)))
    }
}

/// Equal when every agent has the same roots (no roots and an empty list are the same).
impl PartialEq for Roots {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl ProviderSet {
    /// Every provider this build knows, over the given roots, restricted to `only` when it is
    /// not empty.
    pub fn new(roots: &Roots, only: &[ProviderKind]) -> Self {
        let wanted = |k: ProviderKind| only.is_empty() || only.contains(&k);
        let providers = registry::AGENTS
            .iter()
            .filter(|a| wanted(a.kind))
            .map(|a| (a.provider)(roots.get(a.kind).to_vec()))
            .collect();
        ProviderSet {
            providers,
            near: roots.near_dirs().to_vec(),
        }
    }

    /// A set of the given providers, in this order: for a front end (or a test) that brings
    /// providers of its own instead of the registry's.
    pub fn of(providers: Vec<Box<dyn Provider>>) -> Self {
        ProviderSet {
            providers,
            near: Vec::new(),
        }
    }

    /// The providers, in this set's order (to make a set of some of them and others).
    pub fn into_vec(self) -> Vec<Box<dyn Provider>> {
        self.providers
    }

    pub fn iter(&self) -> impl Iterator<Item = &dyn Provider> {
        self.providers.iter().map(|p| p.as_ref())
    }

    pub fn get(&self, kind: ProviderKind) -> Option<&dyn Provider> {
        self.iter().find(|p| p.kind() == kind)
    }

    /// Scans every provider from its state (`states`, in this set's order) side by side — the
    /// scans only read — and hands each result to `landed` on this thread as that scan
    /// finishes, so a caller can commit or keep an agent's sessions as soon as they are there.
    /// Stops at the first error of a scan or of `landed`. A provider that panics (a defect of
    /// ours, met on some input) lands as a scan that found nothing new, with that as its one
    /// diagnostic and its state as it was: the other agents' sessions still land, and its own
    /// stay listed as they were, where the panic used to end the whole refresh.
    pub fn scan_each<E: From<Error>>(
        &self,
        states: &[ProviderState],
        progress: &ScanProgress,
        landed: &mut dyn FnMut(ProviderKind, ScanOutput) -> Result<(), E>,
    ) -> Result<(), E> {
        self.scan_each_near(states, progress, &[], landed)
    }

    /// [`ProviderSet::scan_each`] in two passes: the agents with stores of their own first;
    /// then those that keep their sessions where the user works ([`Provider::looks_near`]),
    /// looking in `known` (the directories of the sessions listed before this scan), the
    /// directories of the sessions the first pass found changed, and [`Roots::near_dirs`].
    /// Without such an agent in the set, one pass as before.
    pub fn scan_each_near<E: From<Error>>(
        &self,
        states: &[ProviderState],
        progress: &ScanProgress,
        known: &[PathBuf],
        landed: &mut dyn FnMut(ProviderKind, ScanOutput) -> Result<(), E>,
    ) -> Result<(), E> {
        let pairs: Vec<(&dyn Provider, &ProviderState)> = self.iter().zip(states).collect();
        let (followers, leaders): (Vec<_>, Vec<_>) =
            pairs.into_iter().partition(|(p, _)| p.looks_near());
        let mut near: std::collections::BTreeSet<PathBuf> = known.iter().cloned().collect();
        near.extend(self.near.iter().cloned());
        let no_dirs = Vec::new();
        scan_side_by_side(&leaders, progress, &no_dirs, &mut |kind, output| {
            near.extend(session_dirs(&output.changed));
            landed(kind, output)
        })?;
        if followers.is_empty() {
            return Ok(());
        }
        let near: Vec<PathBuf> = near.into_iter().collect();
        scan_side_by_side(&followers, progress, &near, landed)
    }
}

/// The directories sessions ran in, as paths.
pub fn session_dirs<'a>(
    sessions: impl IntoIterator<Item = &'a SessionMeta> + 'a,
) -> impl Iterator<Item = PathBuf> + 'a {
    sessions.into_iter().filter_map(|s| {
        s.cwd
            .as_deref()
            .filter(|c| !c.is_empty())
            .map(PathBuf::from)
    })
}

/// Scans `providers` (each with its state) on threads of their own, handing each result to
/// `landed` on this thread as it finishes; see [`ProviderSet::scan_each`].
fn scan_side_by_side<E: From<Error>>(
    providers: &[(&dyn Provider, &ProviderState)],
    progress: &ScanProgress,
    near: &[PathBuf],
    landed: &mut dyn FnMut(ProviderKind, ScanOutput) -> Result<(), E>,
) -> Result<(), E> {
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        for &(p, state) in providers {
            let tx = tx.clone();
            s.spawn(move || {
                let scanned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    if p.looks_near() {
                        p.scan_near(state, progress, near)
                    } else {
                        p.scan(state, progress)
                    }
                }));
                let output = scanned.unwrap_or_else(|panic| Ok(stopped(p, state, &*panic)));
                let _ = tx.send((p.kind(), output));
            });
        }
        drop(tx);
        for (kind, output) in rx {
            landed(kind, output?)?;
        }
        Ok(())
    })
}

/// What a scan that panicked (`panic`, its payload) lands as: see [`ProviderSet::scan_each`].
fn stopped(
    p: &dyn Provider,
    state: &ProviderState,
    panic: &(dyn std::any::Any + Send),
) -> ScanOutput {
    let message = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message");
    let mut diagnostics = Diagnostics::default();
    diagnostics.push(Diagnostic {
        provider: p.kind(),
        path: p.roots().first().cloned().unwrap_or_default(),
        line: None,
        reason: format!(
            "the scan of this agent's sessions stopped on a defect in agent-sessions ({message}); \
             its sessions are listed as they were before. Please report it with this message."
        ),
    });
    ScanOutput {
        changed: Vec::new(),
        removed: Vec::new(),
        diagnostics,
        state: state.clone(),
    }
}

/// Longest title kept.
pub const TITLE_CHARS: usize = 200;

/// A user-typed title: the prompt text, one line, at most `max` characters.
pub fn title_from_text(text: &str, max: usize) -> Option<String> {
    let line = text.split('\n').map(str::trim).find(|l| !l.is_empty())?;
    let mut title: String = line.chars().take(max).collect();
    if line.chars().count() > max {
        title.push('…');
    }
    Some(title)
}

/// Cuts `text` to at most `max` bytes on a character boundary, marking the cut.
pub(crate) fn cut(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push('…');
    text
}

/// Marks the layout of every provider state. Postcard data does not describe itself, so a state
/// written by a build whose structs differ could decode into wrong values instead of failing:
/// bump this whenever a state struct changes, and old states mean one full scan. (2: Codex
/// remembers a reply that may be a compaction summary. 3: OpenCode tracks 0.x session files. 4: SessionMeta.dir.
/// 5: paths as the OS's own strings, so a name that is not UTF-8 is kept: `model::path`. 6: SessionMeta's cost estimate.
/// 7: Copilot CLI tracks each session's `workspace.yaml`.)
const STATE_FORMAT: &[u8; 8] = b"ASstate7";

/// Serializes a provider's state, compactly (postcard): it is decoded and re-encoded on every
/// refresh, and as JSON that cost grew with the number of files (≈ 40 ms for 2,000 sessions).
/// It is our own plain data, so failing is a bug: loud in debug builds, a full rescan next time
/// in release builds.
pub(crate) fn encode_state(state: &impl Serialize) -> ProviderState {
    match postcard::to_extend(state, STATE_FORMAT.to_vec()) {
        Ok(bytes) => bytes,
        Err(e) => {
            debug_assert!(false, "provider state does not serialize: {e}");
            Vec::new()
        }
    }
}

/// Reads a state [`encode_state`] wrote; anything else (empty, another version) is `None`,
/// which means a full scan.
pub(crate) fn decode_state<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    postcard::from_bytes(bytes.strip_prefix(STATE_FORMAT)?).ok()
}

/// The diagnostic for a store file that was listed but could not be read.
pub(crate) fn unreadable(provider: ProviderKind, path: PathBuf, e: &std::io::Error) -> Diagnostic {
    Diagnostic {
        provider,
        path,
        line: None,
        reason: format!("cannot read: {e}"),
    }
}

/// True when `path` exists and is a directory we may read.
pub(crate) fn is_dir(path: &Path) -> bool {
    path.metadata().map(|m| m.is_dir()).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_of_another_format_mean_a_full_scan() {
        let state = encode_state(&(7u32, "x".to_owned()));
        assert_eq!(
            decode_state::<(u32, String)>(&state),
            Some((7, "x".to_owned()))
        );
        // The same bytes without the format mark (an older build's state) are not read.
        let old = postcard::to_stdvec(&(7u32, "x".to_owned())).unwrap();
        assert_eq!(decode_state::<(u32, String)>(&old), None);
        assert_eq!(decode_state::<(u32, String)>(&[]), None);
    }

    #[test]
    fn cuts_on_char_boundaries() {
        assert_eq!(cut("héllo".to_owned(), 2), "h…");
        assert_eq!(cut("abc".to_owned(), 5), "abc");
    }

    #[test]
    fn titles_take_the_first_nonblank_line() {
        assert_eq!(
            title_from_text("\n  hello world \nmore", 80).as_deref(),
            Some("hello world")
        );
        assert_eq!(title_from_text("abcdef", 3).as_deref(), Some("abc…"));
        assert_eq!(title_from_text("  \n ", 3), None);
    }
}
