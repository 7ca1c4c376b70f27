//! Where the tools read sessions from: this machine's stores (through the cache, as the CLI's
//! commands do) or another machine's, through the remote protocol (`--host`). Both answer in
//! core's types, so every tool formats one way whichever machine read the store.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use agent_sessions_core::index::{SearchFilter, SearchResults};
use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::live::events::Event;
use agent_sessions_core::live::follow::Follower;
use agent_sessions_core::{
    Error, Library, Message, ProviderKind, Roots, ScanProgress, SessionMeta,
};
use agent_sessions_remote::protocol::{ListParams, SearchParams, SessionRef};
use agent_sessions_remote::{Client, Error as RemoteError};

/// A tool's failure: a stable code and a sentence saying what went wrong and what to do.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub code: String,
    pub message: String,
}

impl Failure {
    pub fn new(code: &str, message: impl Into<String>) -> Failure {
        Failure {
            code: code.to_owned(),
            message: message.into(),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::new(e.code(), e.to_string())
    }
}

impl From<RemoteError> for Failure {
    fn from(e: RemoteError) -> Failure {
        Failure::new(e.code(), e.to_string())
    }
}

/// Sessions, hits and transcripts from one machine.
pub trait Source: Send {
    /// Every session (of `providers`, all when empty), newest first, and the listing's warnings.
    fn list(&mut self, providers: &[ProviderKind]) -> Result<Listed, Failure>;
    fn search(&mut self, query: &str, filter: &SearchFilter) -> Result<Searched, Failure>;
    /// The session named by `id` (an id, a prefix of one, or its file), its messages handed to
    /// `each` in order until it breaks.
    fn messages(
        &mut self,
        id: &str,
        each: &mut dyn FnMut(&SessionMeta, Message) -> ControlFlow<()>,
    ) -> Result<SessionMeta, Failure>;
    /// The session named by `id` and its activity timeline so far.
    fn timeline(&mut self, id: &str) -> Result<(SessionMeta, Vec<Event>), Failure>;
}

pub struct Listed {
    pub sessions: Vec<SessionMeta>,
    pub warnings: Vec<String>,
}

pub struct Searched {
    pub results: SearchResults,
    pub warnings: Vec<String>,
}

/// This machine's stores, read through the cache (its directory: `default_cache_dir`).
pub struct Local {
    roots: Roots,
    cache_dir: Option<PathBuf>,
    recent: Recent,
}

impl Local {
    pub fn new(roots: Roots) -> Local {
        Local {
            roots,
            cache_dir: default_cache_dir(),
            recent: Recent::default(),
        }
    }

    /// A library per call: it holds SQLite connections that are not shared between threads,
    /// and opening one is cheap next to any call's reading.
    fn open(&self) -> Library {
        Library::open(&self.roots, &[], self.cache_dir.clone())
    }

    fn find(&self, lib: &mut Library, id: &str) -> Result<SessionMeta, Failure> {
        let report = lib.sessions(&ScanProgress::default())?;
        Ok(lib.catalog().find(&report.sessions, id)?.clone())
    }
}

impl Source for Local {
    fn list(&mut self, providers: &[ProviderKind]) -> Result<Listed, Failure> {
        let mut lib = self.open();
        let mut report = lib.sessions(&ScanProgress::default())?;
        if !providers.is_empty() {
            report.sessions.retain(|s| providers.contains(&s.provider));
        }
        Ok(Listed {
            sessions: report.sessions,
            warnings: lib.warnings().to_vec(),
        })
    }

    fn search(&mut self, query: &str, filter: &SearchFilter) -> Result<Searched, Failure> {
        let mut lib = self.open();
        let results = lib.search(query, filter, &ScanProgress::default())?;
        Ok(Searched {
            results,
            warnings: lib.warnings().to_vec(),
        })
    }

    fn messages(
        &mut self,
        id: &str,
        each: &mut dyn FnMut(&SessionMeta, Message) -> ControlFlow<()>,
    ) -> Result<SessionMeta, Failure> {
        let mut lib = self.open();
        let session = self.find(&mut lib, id)?;
        let Some(key) = Key::of(&session) else {
            // Too large to keep: the provider reads the whole file as a stream; past a break
            // the messages are dropped.
            let mut stopped = false;
            lib.catalog().load_each(&session, &mut |m| {
                if !stopped {
                    stopped = each(&session, m).is_break();
                }
            })?;
            return Ok(session);
        };
        let messages = match self.recent.get(&key) {
            Some(kept) => kept,
            None => {
                let mut all = Vec::new();
                lib.catalog().load_each(&session, &mut |m| all.push(m))?;
                self.recent.keep(key, all)
            }
        };
        for m in messages.iter() {
            if each(&session, m.clone()).is_break() {
                break;
            }
        }
        Ok(session)
    }

    fn timeline(&mut self, id: &str) -> Result<(SessionMeta, Vec<Event>), Failure> {
        let mut lib = self.open();
        let session = self.find(&mut lib, id)?;
        let update = Follower::new(session.clone(), 0).poll(lib.catalog())?;
        Ok((session, update.events))
    }
}

/// How many transcripts [`Recent`] keeps.
const KEPT: usize = 2;
/// The largest file whose transcript [`Recent`] keeps (a larger one is streamed each time, so
/// the server's memory stays bounded).
const KEPT_FILE_BYTES: u64 = 32 << 20;

/// The transcripts of the last sessions read, so that paging through one (`read_session`
/// answers a page at a time) parses it once. Bounded by [`KEPT`] and [`KEPT_FILE_BYTES`]; a
/// session whose listing or file changed since is read again.
#[derive(Default)]
pub struct Recent {
    /// Most recently used last.
    kept: Vec<(Key, Arc<Vec<Message>>)>,
}

/// What a kept transcript was read from: the session as listed, and its file's size and time.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    session: SessionMeta,
    size: u64,
    modified: Option<SystemTime>,
}

impl Key {
    /// The key of `session` as it is now; `None` when its file cannot be read or is too large
    /// to keep.
    pub fn of(session: &SessionMeta) -> Option<Key> {
        let meta = std::fs::metadata(&session.source_path).ok()?;
        (meta.len() <= KEPT_FILE_BYTES).then(|| Key {
            session: session.clone(),
            size: meta.len(),
            modified: meta.modified().ok(),
        })
    }
}

impl Recent {
    /// The transcript kept for `key`, if any.
    pub fn get(&mut self, key: &Key) -> Option<Arc<Vec<Message>>> {
        let at = self.kept.iter().position(|(k, _)| k == key)?;
        let hit = self.kept.remove(at);
        let messages = hit.1.clone();
        self.kept.push(hit);
        Some(messages)
    }

    /// Keeps `messages` as `key`'s (in place of an older copy of the same session), dropping the
    /// least recently used past [`KEPT`].
    pub fn keep(&mut self, key: Key, messages: Vec<Message>) -> Arc<Vec<Message>> {
        let same =
            |k: &Key| k.session.provider == key.session.provider && k.session.id == key.session.id;
        self.kept.retain(|(k, _)| !same(k));
        if self.kept.len() == KEPT {
            self.kept.remove(0);
        }
        let messages = Arc::new(messages);
        self.kept.push((key, messages.clone()));
        messages
    }
}

/// Another machine's stores, through `serve --stdio` there (one connection, one call at a time).
pub struct Remote {
    client: Mutex<Client>,
}

impl Remote {
    pub fn new(client: Client) -> Remote {
        Remote {
            client: Mutex::new(client),
        }
    }

    fn client(&self) -> std::sync::MutexGuard<'_, Client> {
        self.client.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Source for Remote {
    fn list(&mut self, providers: &[ProviderKind]) -> Result<Listed, Failure> {
        let listed = self.client().list(&ListParams {
            providers: providers.to_vec(),
            no_cache: false,
        })?;
        Ok(Listed {
            sessions: listed.sessions,
            warnings: listed.warnings,
        })
    }

    fn search(&mut self, query: &str, filter: &SearchFilter) -> Result<Searched, Failure> {
        let answer = self.client().search(&SearchParams {
            query: query.to_owned(),
            limit: filter.limit,
            providers: filter.providers.clone(),
            dir: filter.dir.clone(),
            since_ms: filter.since_ms,
            until_ms: filter.until_ms,
        })?;
        Ok(Searched {
            results: answer.results.into(),
            warnings: answer.warnings,
        })
    }

    fn messages(
        &mut self,
        id: &str,
        each: &mut dyn FnMut(&SessionMeta, Message) -> ControlFlow<()>,
    ) -> Result<SessionMeta, Failure> {
        let mut client = self.client();
        let first = client.first_page(SessionRef::named(id))?;
        let session = first.session.clone();
        client.each_message(first, &mut |m| each(&session, m))?;
        Ok(session)
    }

    fn timeline(&mut self, id: &str) -> Result<(SessionMeta, Vec<Event>), Failure> {
        let answer = self.client().log(&SessionRef::named(id))?;
        Ok((answer.session, answer.events))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session of its own file in `dir`.
    fn session(dir: &std::path::Path, id: &str) -> SessionMeta {
        let path = dir.join(format!("{id}.jsonl"));
        std::fs::write(&path, "{}\n").unwrap();
        SessionMeta::new(ProviderKind::Claude, id.to_owned(), path)
    }

    #[test]
    fn a_kept_transcript_is_reused_until_its_session_or_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let mut recent = Recent::default();
        let a = session(dir.path(), "a");
        let kept = recent.keep(Key::of(&a).unwrap(), Vec::new());
        let again = recent.get(&Key::of(&a).unwrap()).unwrap();
        assert!(Arc::ptr_eq(&kept, &again), "the second page parsed again");

        // The session grew: its file's size changed.
        std::fs::write(&a.source_path, "{}\n{}\n").unwrap();
        assert!(recent.get(&Key::of(&a).unwrap()).is_none());
        // Its listing changed (a count the cache saw), the file the same.
        let key = Key::of(&a).unwrap();
        recent.keep(key.clone(), Vec::new());
        let mut listed = a.clone();
        listed.counts.user += 1;
        assert!(recent.get(&Key::of(&listed).unwrap()).is_none());
        assert!(recent.get(&key).is_some());
    }

    #[test]
    fn at_most_two_small_transcripts_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mut recent = Recent::default();
        let [a, b, c] = ["a", "b", "c"].map(|id| session(dir.path(), id));
        for s in [&a, &b] {
            recent.keep(Key::of(s).unwrap(), Vec::new());
        }
        // a used last: b is the one dropped for c.
        recent.get(&Key::of(&a).unwrap()).unwrap();
        recent.keep(Key::of(&c).unwrap(), Vec::new());
        assert!(recent.get(&Key::of(&a).unwrap()).is_some());
        assert!(recent.get(&Key::of(&b).unwrap()).is_none());
        assert!(recent.get(&Key::of(&c).unwrap()).is_some());
        // A newer copy of a session replaces its older one, not another session.
        std::fs::write(&a.source_path, "{}\n{}\n").unwrap();
        recent.keep(Key::of(&a).unwrap(), Vec::new());
        assert_eq!(recent.kept.len(), 2);
        assert!(recent.get(&Key::of(&c).unwrap()).is_some());

        // A file too large to keep is not kept (it is streamed).
        let big = session(dir.path(), "big");
        std::fs::File::options()
            .write(true)
            .open(&big.source_path)
            .unwrap()
            .set_len(KEPT_FILE_BYTES + 1)
            .unwrap();
        assert!(Key::of(&big).is_none());
    }
}
