//! Where the tools read sessions from: this machine's stores (through the cache, as the CLI's
//! commands do) or another machine's, through the remote protocol (`--host`). Both answer in
//! core's types, so every tool formats one way whichever machine read the store.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Mutex;

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
}

impl Local {
    pub fn new(roots: Roots) -> Local {
        Local {
            roots,
            cache_dir: default_cache_dir(),
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
        // The provider reads the whole file as a stream; past a break the messages are dropped.
        let mut stopped = false;
        lib.catalog().load_each(&session, &mut |m| {
            if !stopped {
                stopped = each(&session, m).is_break();
            }
        })?;
        Ok(session)
    }

    fn timeline(&mut self, id: &str) -> Result<(SessionMeta, Vec<Event>), Failure> {
        let mut lib = self.open();
        let session = self.find(&mut lib, id)?;
        let update = Follower::new(session.clone(), 0).poll(lib.catalog())?;
        Ok((session, update.events))
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
