//! The server: reads requests from a byte stream, answers each on the other (`serve --stdio`
//! over ssh or wsl.exe, a pipe pair in tests). It says hello first, answers requests in order,
//! runs each `follow` on a thread of its own, and returns when its input ends: nothing keeps
//! running after the connection closes, and nothing listens anywhere.
//!
//! Bad input never stops it: an over-long line, a line that is not JSON, an unknown method or
//! bad parameters are each answered with a coded error, and a panic in a method is caught and
//! answered as `internal`.

mod actions;
mod bundle;
mod dispatch;
mod follow;
mod listing;
mod raw;
mod watch;

pub use dispatch::resume_json as dispatch_resume_json;

use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use agent_sessions_core::live::timeline::Timelines;
use agent_sessions_core::service::Service;
use agent_sessions_core::Catalog;
use agent_sessions_core::{Error as CoreError, Roots};
use serde_json::Value;

use crate::lines::{write_line, Line, LineReader};
use crate::protocol::{Hello, Request, ServerLine, WireError, MAX_REQUEST_LINE, MAX_STREAMS};

/// Checks and completes the roots a client names (the CLI's own root resolution).
pub type ResolveRoots = Box<dyn Fn(&Roots) -> Result<Roots, CoreError> + Send + Sync>;

/// What a server reads.
pub struct Options {
    /// The roots the server reads until a client names others.
    pub roots: Roots,
    /// The cache directory (none: read the stores directly).
    pub cache_dir: Option<PathBuf>,
    pub resolve: ResolveRoots,
}

/// The output stream, shared by the request loop and the follow threads (one line at a time).
#[derive(Clone)]
pub(crate) struct Out(Arc<Mutex<Box<dyn Write + Send>>>);

impl Out {
    pub(crate) fn send(&self, line: &ServerLine) -> io::Result<()> {
        write_line(&mut **lock(&self.0), line)
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    crate::server_lock(m)
}

/// What the requests of one connection share.
pub(crate) struct State {
    roots: Mutex<Roots>,
    cache_dir: Option<PathBuf>,
    resolve: ResolveRoots,
    /// Made at the first call that needs it (`list`, `changes`, `show`); kept with its
    /// libraries for the connection's life (see [`listing`]).
    service: Mutex<Option<Arc<Service>>>,
    /// Set before the service's loop starts (`changes`, `watch`): from then on the loop adds to
    /// the change feed too.
    loop_started: AtomicBool,
    /// One listing of the service's at a time (see [`listing`]).
    listing: Mutex<()>,
    /// The library kept for a listing of some agents only, or without the cache.
    other: Mutex<Option<listing::Other>>,
    /// The roots' agents, for reading the sessions a listing found (kept: an OpenCode store's
    /// worktrees are read once).
    catalog: Mutex<Arc<Catalog>>,
    /// Running streams by request id: set the flag to stop one.
    streams: Mutex<HashMap<u64, Arc<AtomicBool>>>,
    /// Uploads and the restore tokens' key; the uploads' folder goes with the connection.
    transfers: Mutex<bundle::Transfers>,
    /// The followers of the sessions `log` answered for last: asked again as a session grows
    /// (the app's Timeline tab), `log` reads about what was appended.
    timelines: Mutex<Timelines>,
    out: Out,
}

/// Serves one connection: hello, then a reply for every request until `input` ends.
pub fn serve(
    input: impl Read,
    output: impl Write + Send + 'static,
    options: Options,
) -> io::Result<()> {
    let out = Out(Arc::new(Mutex::new(Box::new(output))));
    out.send(&ServerLine {
        hello: Some(Hello::ours()),
        ..ServerLine::default()
    })?;
    let state = Arc::new(State {
        catalog: Mutex::new(Arc::new(Catalog::new(&options.roots, &[]))),
        roots: Mutex::new(options.roots),
        cache_dir: options.cache_dir,
        resolve: options.resolve,
        service: Mutex::new(None),
        loop_started: AtomicBool::new(false),
        listing: Mutex::new(()),
        other: Mutex::new(None),
        streams: Mutex::new(HashMap::new()),
        transfers: Mutex::default(),
        timelines: Mutex::default(),
        out: out.clone(),
    });
    let mut reader = LineReader::new(BufReader::new(input), MAX_REQUEST_LINE);
    let result = loop {
        let line = match reader.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        };
        if let Some(reply) = handle(&state, line) {
            if let Err(e) = out.send(&reply) {
                break Err(e);
            }
        }
    };
    state.stop_streams();
    if let Some(service) = lock(&state.service).take() {
        service.stop();
    }
    // Uploads end with their connection.
    *lock(&state.transfers) = bundle::Transfers::default();
    result
}

/// The reply to one line; none when a stream answers later on its own.
fn handle(state: &Arc<State>, line: Line) -> Option<ServerLine> {
    let request = match parse(line) {
        Ok(r) => r,
        Err(e) => return Some(reply(None, Err(e))),
    };
    let id = request.id;
    let answer = catch_unwind(AssertUnwindSafe(|| dispatch::call(state, request)))
        .unwrap_or_else(|_| {
            Some(Err(WireError::new(
                "internal",
                "the server failed answering this request (a bug: please report it); other requests still work",
            )))
        });
    answer.map(|a| reply(Some(id), a))
}

fn parse(line: Line) -> Result<Request, WireError> {
    match line {
        Line::TooLong { len } => Err(WireError::new(
            "line_too_long",
            format!("a request line of {len} bytes is over the limit of {MAX_REQUEST_LINE}; it was skipped"),
        )),
        Line::Text(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            WireError::new(
                "bad_request",
                format!("a request must be one JSON object {{\"id\", \"method\", \"params\"}} per line: {e}"),
            )
        }),
    }
}

pub(crate) fn reply(id: Option<u64>, answer: Result<Value, WireError>) -> ServerLine {
    let (result, error) = match answer {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some(e)),
    };
    ServerLine {
        id,
        result,
        error,
        ..ServerLine::default()
    }
}

impl State {
    pub(crate) fn roots(&self) -> Roots {
        lock(&self.roots).clone()
    }

    pub(crate) fn set_roots(&self, roots: Roots) -> Result<(), CoreError> {
        let roots = (self.resolve)(&roots)?;
        if let Some(service) = lock(&self.service).as_ref() {
            service.switch(roots.clone());
        }
        *lock(&self.catalog) = Arc::new(Catalog::new(&roots, &[]));
        *lock(&self.other) = None;
        *lock(&self.roots) = roots;
        lock(&self.timelines).clear();
        Ok(())
    }

    pub(crate) fn timelines(&self) -> MutexGuard<'_, Timelines> {
        lock(&self.timelines)
    }

    pub(crate) fn cache_dir(&self, cached: bool) -> Option<PathBuf> {
        self.cache_dir.clone().filter(|_| cached)
    }

    pub(crate) fn service(&self) -> Arc<Service> {
        lock(&self.service)
            .get_or_insert_with(|| Arc::new(Service::new(self.roots(), self.cache_dir.clone())))
            .clone()
    }

    /// The service with its refresh loop running (the change feed of `changes` and `watch`).
    pub(crate) fn service_running(&self) -> Arc<Service> {
        let service = self.service();
        self.loop_started.store(true, Ordering::SeqCst);
        service.start(|_| {});
        service
    }

    fn loop_started(&self) -> bool {
        self.loop_started.load(Ordering::SeqCst)
    }

    /// The roots' agents (to read a listed session with).
    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        lock(&self.catalog).clone()
    }

    /// The change sequence now (0 before anything asked for changes).
    pub(crate) fn seq(&self) -> u64 {
        lock(&self.service).as_ref().map_or(0, |s| s.seq())
    }

    /// Registers stream `id` and hands back its stop flag; refused when `id` runs already (its
    /// cancel handle would be lost) or the connection holds [`MAX_STREAMS`] (a thread each).
    pub(crate) fn start_stream(&self, id: u64) -> Result<Arc<AtomicBool>, WireError> {
        let mut streams = lock(&self.streams);
        if streams.contains_key(&id) {
            return Err(WireError::new(
                "stream_id_in_use",
                format!("request {id} is a stream still running on this connection: give each request an id of its own, or cancel {id} first"),
            ));
        }
        if streams.len() >= MAX_STREAMS {
            return Err(WireError::new(
                "too_many_streams",
                format!("this connection runs {MAX_STREAMS} follow and watch streams already: cancel one, or open another connection"),
            ));
        }
        let stop = Arc::new(AtomicBool::new(false));
        streams.insert(id, stop.clone());
        Ok(stop)
    }

    pub(crate) fn end_stream(&self, id: u64) {
        lock(&self.streams).remove(&id);
    }

    /// Stops stream `id`; false when no such stream runs.
    pub(crate) fn cancel(&self, id: u64) -> bool {
        lock(&self.streams)
            .get(&id)
            .map(|stop| stop.store(true, Ordering::SeqCst))
            .is_some()
    }

    fn stop_streams(&self) {
        for stop in lock(&self.streams).values() {
            stop.store(true, Ordering::SeqCst);
        }
    }
}
