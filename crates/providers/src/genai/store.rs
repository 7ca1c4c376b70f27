//! The incremental scan both agents' stores share: every session is one file, read whole when
//! its stamp (size, mtime, head) changed — a Gemini JSON session is rewritten in place and a
//! JSONL one replaces messages by id, so neither can be resumed from a byte offset — and kept
//! as its summary otherwise. Files laid over the sessions (Gemini's `projects.json`,
//! `trustedFolders.json`: where a session's directory comes from) are stamped too: when one
//! changes, every session is listed again.
//!
//! Where one session can be several files (Gemini's resume stub, `gemini/resumes.rs`), the
//! agent's rule says which files a listing leaves out; it is worked out from every file's
//! summary at each scan, before and after, so a file whose fold changed is listed or dropped
//! though it was not read again, and a later scan lists what a fresh one would.

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::files::{self, FileSet, Tracked, Walker};
use crate::{decode_state, encode_state, ProviderState, ScanOutput, ScanProgress, SessionKey};
use agent_sessions_model::{Diagnostics, ProviderKind, SessionMeta};

/// A session file found in a store.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub path: PathBuf,
    /// The project folder it is filed under (`tmp/<folder>/`, `projects/<folder>/`).
    pub folder: String,
    /// The parent session, for a subagent (the folder it sits in).
    pub parent: Option<String>,
}

/// What a scan keeps of one file between scans.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Summary {
    /// The session, or `None` for a file that is not one. Its `cwd` is the one the file itself
    /// gives (`None` for a Gemini session, whose directory is its folder's).
    pub meta: Option<SessionMeta>,
    /// Absolute paths the file names (tool arguments, `directories`): what a hashed folder is
    /// matched against.
    pub candidates: Vec<String>,
    pub problems: Diagnostics,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    #[serde(with = "agent_sessions_model::path::os_keys")]
    files: FileSet<Summary>,
    over: Vec<(u64, i64)>,
}

/// One agent's scan: `found` files, `over` the files laid over them, `read` a file's summary,
/// `finish` a summary's listed metadata (the folder's directory filled in).
pub(crate) struct Scan<'a> {
    pub kind: ProviderKind,
    pub found: Vec<Found>,
    pub walker: Walker,
    pub over: Vec<PathBuf>,
    pub read: &'a (dyn Fn(&Found) -> Result<Summary, Error> + Sync),
    pub finish: &'a dyn Fn(&Found, &SessionMeta, &[String]) -> SessionMeta,
}

/// The files of a store, with their summaries, a listing leaves out.
pub(crate) type Hidden = dyn Fn(&FileSet<Summary>) -> BTreeSet<PathBuf>;

impl Scan<'_> {
    pub fn run(self, prev: &ProviderState, progress: &ScanProgress) -> ScanOutput {
        self.run_folded(prev, progress, &|_| BTreeSet::new())
    }

    /// [`Scan::run`] for a store where a session can be several files: `hidden` names those
    /// another file of their session stands for.
    pub fn run_folded(
        self,
        prev: &ProviderState,
        progress: &ScanProgress,
        hidden: &Hidden,
    ) -> ScanOutput {
        let over = files::stamps(&self.over);
        let mut prev: State = decode_state(prev).unwrap_or_default();
        if prev.over != over {
            // A file laid over the sessions changed: read every session again (a stamp no
            // file can have makes each one read as replaced).
            for t in prev.files.values_mut() {
                t.stamp.size = u64::MAX;
            }
        }
        // Kept to list again a file not read this time whose fold changed.
        let found = self.found.clone();
        let r = files::refresh_all(
            self.found,
            |f| &f.path,
            &prev.files,
            progress,
            |f, _| (self.read)(f).map_err(into_io),
        );
        let kind = self.kind;
        let to_meta = |f: &Found, t: &Tracked<Summary>| {
            let Some(meta) = &t.cursor.meta else {
                return SessionMeta::new(kind, String::new(), f.path.clone());
            };
            let mut meta = (self.finish)(f, meta, &t.cursor.candidates);
            if meta.updated_at.is_none() {
                meta.updated_at = chrono::DateTime::from_timestamp_nanos(t.stamp.mtime_ns).into();
            }
            meta
        };
        let key_of = |path: &Path, t: &Tracked<Summary>| SessionKey {
            provider: kind,
            id: t
                .cursor
                .meta
                .as_ref()
                .map(|m| m.id.clone())
                .unwrap_or_default(),
            source_path: path.to_path_buf(),
        };
        let is_session = |t: &Tracked<Summary>| t.cursor.meta.is_some();
        let (was_hidden, now_hidden) = (hidden(&prev.files), hidden(&r.next));
        let read: BTreeSet<&Path> = r.changed.iter().map(|f| f.path.as_path()).collect();
        let refolded = found.iter().filter(|f| {
            !read.contains(f.path.as_path())
                && was_hidden.contains(&f.path) != now_hidden.contains(&f.path)
        });
        let mut out = ScanOutput::default();
        let (changed, mut removed) = r.sessions(
            &prev.files,
            r.changed.iter().chain(refolded),
            |f| &f.path,
            is_session,
            to_meta,
            key_of,
        );
        // A file hidden before was not listed: nothing of it to remove.
        removed.retain(|k| !was_hidden.contains(&k.source_path));
        for meta in changed {
            if !now_hidden.contains(&meta.source_path) {
                out.changed.push(meta);
                continue;
            }
            // Hidden now: removed, under the key it was listed with, if it was.
            let path = meta.source_path.as_path();
            let listed = prev.files.get(path).filter(|t| is_session(t));
            if let Some(t) = listed.filter(|_| !was_hidden.contains(path)) {
                removed.push(key_of(path, t));
            }
        }
        out.removed = removed;
        self.walker.report(kind, &mut out.diagnostics);
        r.report_unreadable(kind, &mut out.diagnostics);
        for t in r.next.values() {
            out.diagnostics.merge(&t.cursor.problems);
        }
        out.state = encode_state(&State {
            files: r.next,
            over,
        });
        out
    }
}

fn into_io(e: Error) -> io::Error {
    match e {
        Error::Io { source, .. } => source,
        other => io::Error::other(other.to_string()),
    }
}
