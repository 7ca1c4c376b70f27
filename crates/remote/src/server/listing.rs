//! The listing every method starts from, kept for the connection's life: the server process
//! lives as long as its connection, so it keeps its libraries open and refreshes them, and a
//! second `list` (or the `show`, `log`, `search` naming a session after it) costs a refresh —
//! a `stat` per file and what was appended — not a scan of every store. Without a usable cache
//! on the host this matters most: a fresh library would scan every file on every call, where a
//! kept one refreshes from what its last scan found (core's `library::Scanned`).
//!
//! Every agent's listing on the cache is the service's: its calls' library, which shares the
//! cache (or, without one, the memory of the scans) with the change feed's loop, and whose
//! refreshes go in that feed. So a change found by a `list` is still reported by `changes` and
//! `watch` (a library of its own would take it from the loop unseen), and the first `changes`
//! after a `list` on a host without a cache does not name every session again. A listing of
//! some agents only, or without the cache (`list --no-cache`), is answered by one more kept
//! library, opened again only when another such listing is asked for.

use agent_sessions_core::{Error as CoreError, Library, ProviderKind, ScanProgress, ScanReport};

use super::{lock, State};

/// A library kept for the listings the service does not answer.
pub(super) struct Other {
    providers: Vec<ProviderKind>,
    cached: bool,
    lib: Library,
}

/// A refreshed listing and what the client is told with it.
pub(super) struct Listed {
    pub report: ScanReport,
    pub warnings: Vec<String>,
    /// A cursor for `changes`/`watch`: every change after it is not in `report`.
    pub seq: u64,
}

/// The sessions of `providers` (every agent's when empty), refreshed, from the cache when
/// `cached` (and the host has one).
pub(super) fn listing(
    state: &State,
    providers: &[ProviderKind],
    cached: bool,
) -> Result<Listed, CoreError> {
    if providers.is_empty() && cached {
        return from_service(state);
    }
    let seq = state.seq();
    let mut other = lock(&state.other);
    let lib = match other.take() {
        Some(o) if o.providers == providers && o.cached == cached => o.lib,
        _ => Library::open(&state.roots(), providers, state.cache_dir(cached)),
    };
    let kept = other.insert(Other {
        providers: providers.to_vec(),
        cached,
        lib,
    });
    let report = kept.lib.sessions(&ScanProgress::default())?;
    Ok(Listed {
        report,
        warnings: kept.lib.warnings().to_vec(),
        seq,
    })
}

/// The service's listing after its refresh (the changes it finds go in the feed). Until the
/// feed's loop runs, only these refreshes add to the feed, one at a time: the sequence read
/// after one is then exactly what its listing holds. Once the loop runs, it may add a change
/// between a listing and that read, so the sequence from before the refresh is given (a change
/// the listing already holds may be named again; none is missed).
fn from_service(state: &State) -> Result<Listed, CoreError> {
    let _one_at_a_time = lock(&state.listing);
    let service = state.service();
    let before = service.seq();
    let report = service.refresh()?;
    let seq = if state.loop_started() {
        before
    } else {
        service.seq()
    };
    let warnings = service.library().warnings().to_vec();
    Ok(Listed {
        report,
        warnings,
        seq,
    })
}
