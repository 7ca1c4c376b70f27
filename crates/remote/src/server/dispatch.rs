//! One function per method, each the same calls into the core that the CLI's command of the
//! same name makes (a library on the roots, refreshed, then the catalog, index, stats or
//! follower), so a remote answer is what the command prints locally. The libraries are kept
//! for the connection's life ([`super::listing`]): a call after the first costs a refresh.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use agent_sessions_core::actions::resume::ResumeCommand;
use agent_sessions_core::health::CacheInfo;
use agent_sessions_core::index::{self, SearchFilter};
use agent_sessions_core::model::ProviderKind;
use agent_sessions_core::stats::{self, By};
use agent_sessions_core::{blob, Catalog, Error as CoreError, ProviderError, SessionMeta};
use base64::Engine;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use super::listing::listing;
use super::{actions, bundle, State};
use crate::protocol::*;

type Answer = Result<Value, WireError>;

/// The answer to `request`; none when it is a stream that answers on its own later.
pub(super) fn call(state: &Arc<State>, request: Request) -> Option<Answer> {
    let Request { id, method, params } = request;
    let answer = match method.as_str() {
        method::FOLLOW => return start_stream(state, id, params, super::follow::run),
        method::WATCH => return start_stream(state, id, params, super::watch::run),
        method::ROOTS => run(params, |p| roots(state, p)),
        method::HANDOFF_PREPARE => run(params, |p| actions::handoff_prepare(state, p)),
        method::LIST => run(params, |p| list(state, p)),
        method::CHANGES => run(params, |p| changes(state, p)),
        method::SHOW => run(params, |p| show(state, p)),
        method::SEARCH => run(params, |p| search(state, p)),
        method::LOG => run(params, |p| log(state, p)),
        method::CANCEL => run(params, |p: CancelParams| {
            Ok(json!({ "cancelled": state.cancel(p.id) }))
        }),
        method::BLOB => run(params, |p| blob(state, p)),
        method::STATS => run(params, |p| stats(state, p)),
        method::DIAGNOSTICS => run(params, |p| diagnostics(state, p)),
        method::RESUME => run(params, |p| resume(state, p)),
        method::BUNDLE_EXPORT => read_params(params).and_then(|p| bundle::export(state, id, p)),
        method::UPLOAD_START => read_params(params).and_then(|p| bundle::upload_start(state, p)),
        method::UPLOAD_CHUNK => read_params(params).and_then(|p| bundle::upload_chunk(state, p)),
        method::BUNDLE_IMPORT => read_params(params).and_then(|p| bundle::import(state, p)),
        method::TRASH => run(params, |p| actions::trash(state, p)),
        method::HANDOFF => run(params, |p| actions::handoff(state, p)),
        method::RAW => read_params(params).and_then(|p| super::raw::records(state, p)),
        other => Err(WireError::new(
            "unknown_method",
            format!(
                "no method {other:?}; this server (protocol {PROTOCOL_VERSION}) knows {}",
                METHODS.join(", ")
            ),
        )),
    };
    Some(answer)
}

/// Reads the parameters, runs `f`, and turns its result or error into an answer.
fn run<P: DeserializeOwned, R: Serialize>(
    params: Value,
    f: impl FnOnce(P) -> Result<R, CoreError>,
) -> Answer {
    let params = read_params(params)?;
    let result = f(params).map_err(|e| core_error(&e))?;
    serde_json::to_value(result).map_err(|e| WireError::new("internal", e.to_string()))
}

pub(super) fn read_params<P: DeserializeOwned>(params: Value) -> Result<P, WireError> {
    // A method without parameters may be sent without `params`.
    let params = if params.is_null() { json!({}) } else { params };
    serde_json::from_value(params)
        .map_err(|e| WireError::new("bad_params", format!("bad parameters: {e}")))
}

pub(super) fn core_error(e: &CoreError) -> WireError {
    WireError::new(e.code(), e.to_string())
}

fn roots(state: &State, p: RootsParams) -> Result<Value, CoreError> {
    let mut roots = agent_sessions_core::Roots::default();
    for (kind, dir) in p.roots {
        roots.get_mut(kind).push(dir);
    }
    state.set_roots(roots)?;
    Ok(json!({}))
}

/// Refreshed and listed, as `scan` does, by the libraries the connection keeps.
fn list(state: &State, p: ListParams) -> Result<ListResult, CoreError> {
    let listed = listing(state, &p.providers, !p.no_cache)?;
    Ok(ListResult {
        sessions: listed.report.sessions,
        diagnostics: listed.report.diagnostics,
        seq: listed.seq,
        warnings: listed.warnings,
    })
}

fn changes(state: &State, p: ChangesParams) -> Result<Value, CoreError> {
    // The loop keeps the change sequence; it runs from the first call on this connection.
    let service = state.service_running();
    Ok(json!(service.delta(p.cursor)?))
}

/// The session a reference names, in a refreshed listing (an id prefix works as in the CLI),
/// and the agents to read it with.
pub(super) fn find(
    state: &State,
    session: &SessionRef,
) -> Result<(Arc<Catalog>, SessionMeta), CoreError> {
    let (catalog, _, found) = find_listed(state, session)?;
    Ok((catalog, found))
}

/// [`find`], with the listing it was found in (of the reference's agent, when it names one).
pub(super) fn find_listed(
    state: &State,
    session: &SessionRef,
) -> Result<(Arc<Catalog>, Vec<SessionMeta>, SessionMeta), CoreError> {
    let mut report = listing(state, &[], true)?.report;
    if let Some(kind) = session.provider {
        report.sessions.retain(|s| s.provider == kind);
    }
    // The file picks among the listed copies of a session; it is never read as given. The
    // listing handed back stays whole: trash and bundle find the session's subagents and its
    // other copy in it.
    let catalog = state.catalog();
    let found = match &session.source_path {
        Some(path) => {
            let copies: Vec<SessionMeta> = report
                .sessions
                .iter()
                .filter(|s| agent_sessions_core::model::path::names(&s.source_path, path))
                .cloned()
                .collect();
            catalog.find(&copies, &session.id)?.clone()
        }
        None => catalog.find(&report.sessions, &session.id)?.clone(),
    };
    Ok((catalog, report.sessions, found))
}

fn show(state: &State, p: ShowParams) -> Result<ShowResult, CoreError> {
    let service = state.service();
    // Later pages name the session exactly: the service resolves it without a new scan.
    let (session, resume) = match (p.offset, p.session.provider) {
        (offset, Some(kind)) if offset > 0 => {
            let at = p.session.source_path.as_deref();
            let session = service.resolve_at(kind, &p.session.id, at)?;
            (session, Value::Null)
        }
        _ => {
            let (catalog, session) = find(state, &p.session)?;
            let resume = resume_json(catalog.resume_command(&session).as_ref());
            (session, resume)
        }
    };
    let limit = match p.limit {
        0 => PAGE_MESSAGES,
        n => n.min(PAGE_MESSAGES),
    };
    service.with_transcript_of(&session.clone(), |t| {
        let (messages, next) = page(&t.messages, p.offset, limit);
        ShowResult {
            session,
            messages,
            next,
            total: t.messages.len(),
            diagnostics: t.diagnostics.clone(),
            resume_command: resume,
        }
    })
}

/// Messages from `offset`: at most `limit`, and no more once [`PAGE_BYTES`] are reached (at
/// least one, so a page always moves on).
fn page<T: Serialize + Clone>(all: &[T], offset: usize, limit: usize) -> (Vec<T>, Option<usize>) {
    let mut out = Vec::new();
    let mut bytes = 0;
    for m in all.iter().skip(offset).take(limit) {
        bytes += serde_json::to_vec(m).map_or(0, |v| v.len());
        if bytes > PAGE_BYTES && !out.is_empty() {
            break;
        }
        out.push(m.clone());
    }
    let end = offset + out.len();
    (out, (end < all.len()).then_some(end))
}

/// A resume command as `show --json` prints it.
pub fn resume_json(resume: Result<&ResumeCommand, &CoreError>) -> Value {
    use agent_sessions_core::actions::resume::ShellCommand;
    match resume {
        Ok(r) => json!({
            "argv": std::iter::once(r.program()).chain(r.args().iter().map(String::as_str)).collect::<Vec<_>>(),
            "cwd": r.cwd(),
            "shell": r.for_this_platform(),
        }),
        Err(e) => json!({ "error": { "code": e.code(), "message": e.to_string() } }),
    }
}

/// The cache refreshed (its changes in the feed) and searched, as `search` does.
fn search(state: &State, p: SearchParams) -> Result<Value, CoreError> {
    let warnings = listing(state, &[], true)?.warnings;
    let filter = SearchFilter {
        providers: p.providers,
        dir: p.dir,
        since_ms: p.since_ms,
        until_ms: p.until_ms,
        limit: p.limit,
    };
    let results = state.service().library().search_now(&p.query, &filter)?;
    Ok(json!({ "results": results, "warnings": warnings }))
}

/// Every event of the session from its start, from the follower kept for it (a client asking
/// again as the session grows reads about the append).
fn log(state: &State, p: SessionRef) -> Result<LogResult, CoreError> {
    let (catalog, session) = find(state, &p)?;
    let whole = state.timelines().read(&catalog, &session)?;
    Ok(LogResult {
        session,
        events: whole.events,
        cursor: whole.cursor,
        truncated: whole.truncated,
        ended: whole.ended,
    })
}

/// What a stream runs on its thread until it ends, is cancelled (`stop` set) or the connection
/// closes; its answer is sent last.
type StreamRun<P> = fn(&State, u64, P, &AtomicBool) -> Result<Value, CoreError>;

/// Starts a stream that answers on its own when it ends (`follow`, `watch`); refused at once
/// (nothing started) when its parameters are bad or the connection may not start it.
fn start_stream<P: DeserializeOwned + Send + 'static>(
    state: &Arc<State>,
    id: u64,
    params: Value,
    run: StreamRun<P>,
) -> Option<Answer> {
    let started = read_params(params).and_then(|p| {
        let stop = state.start_stream(id)?;
        let on_thread = state.clone();
        let thread = std::thread::Builder::new().name(format!("stream-{id}"));
        let spawned = thread.spawn(move || {
            let state = on_thread;
            let answer = run(&state, id, p, &stop).map_err(|e| core_error(&e));
            state.end_stream(id);
            let _ = state.out.send(&super::reply(Some(id), answer));
        });
        spawned.map(drop).map_err(|e| {
            state.end_stream(id);
            WireError::new(
                "busy",
                format!("the server could not start a thread for the stream ({e}): cancel a stream or try again later"),
            )
        })
    });
    started.err().map(Err)
}

fn blob(state: &State, p: BlobParams) -> Result<BlobResult, CoreError> {
    let (catalog, session) = find(state, &p.session)?;
    let bytes = blob::read(&catalog, &session, &p.key)?;
    if bytes.len() > MAX_BLOB {
        return Err(ProviderError::BlobNotFound {
            session: session.id,
            key: p.key,
            reason: format!(
                "it is {} bytes, over the {MAX_BLOB} a remote sends; read it on the remote",
                bytes.len()
            ),
        }
        .into());
    }
    Ok(BlobResult {
        base64: base64::engine::general_purpose::STANDARD.encode(&bytes),
        bytes: bytes.len(),
    })
}

fn stats(state: &State, p: StatsParams) -> Result<Value, CoreError> {
    let by = match p.by.as_deref() {
        None => By::Dir,
        Some(name) => By::parse(name).ok_or_else(|| {
            CoreError::BadQuery(format!(
                "{name:?} is not dir, repo, agent, model, day or week"
            ))
        })?,
    };
    let report = listing(state, &p.providers, true)?.report;
    Ok(json!(stats::stats(&report.sessions, by)))
}

fn diagnostics(state: &State, p: DiagnosticsParams) -> Result<DiagnosticsResult, CoreError> {
    let report = listing(state, &p.providers, true)?.report;
    let format_versions = index::format_versions(&report.sessions)
        .into_iter()
        .map(|(provider, format_version, sessions)| FormatVersion {
            provider,
            format_version,
            sessions,
        })
        .collect();
    Ok(DiagnosticsResult {
        parse_errors: report.diagnostics.parse_errors,
        items: report.diagnostics.items,
        format_versions,
        places: places(state, &p.providers),
    })
}

/// The connection's roots (of `providers`, all when none) and its cache, as the local
/// Diagnostics panel shows them (core's `CacheInfo::of`).
fn places(state: &State, providers: &[ProviderKind]) -> DiagnosticsPlaces {
    let roots = state.roots();
    let kinds = ProviderKind::ALL
        .into_iter()
        .filter(|k| providers.is_empty() || providers.contains(k));
    let places = kinds
        .flat_map(|kind| roots.for_kind(kind).iter().map(move |r| (kind, r.clone())))
        .map(|(provider, root)| RootPlace {
            provider,
            exists: root.exists(),
            root,
        })
        .collect();
    let cache = CacheInfo::of(state.cache_dir(true).as_deref(), &roots);
    DiagnosticsPlaces {
        roots: places,
        cache: Some(cache.into()),
    }
}

/// The resume command, and with `open` what a terminal about to open there runs, checked as
/// a local one is ([`actions::terminal_ready`]); a refusal is answered as `show` carries one.
fn resume(state: &State, p: ResumeParams) -> Result<Value, CoreError> {
    let (catalog, session) = find(state, &p.session)?;
    Ok(match p.open {
        None => resume_json(catalog.resume_command(&session).as_ref()),
        Some(open) => actions::terminal_ready(&catalog, &session, open)
            .unwrap_or_else(|e| resume_json(Err(&e))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_move_on_and_end() {
        let all: Vec<u32> = (0..5).collect();
        assert_eq!(page(&all, 0, 2), (vec![0, 1], Some(2)));
        assert_eq!(page(&all, 4, 2), (vec![4], None));
        assert_eq!(page(&all, 9, 2), (vec![], None));
    }

    #[test]
    fn a_page_stops_at_its_byte_budget_but_holds_one_message() {
        let big = "x".repeat(PAGE_BYTES / 2 + 1);
        let all = vec![big.clone(), big.clone(), big];
        let (first, next) = page(&all, 0, 10);
        assert_eq!((first.len(), next), (1, Some(1)));
    }
}
