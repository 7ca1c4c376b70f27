//! `search`: the text index, and the sessions not in it yet read directly; then, once the hits
//! are printed, it leaves the index better than it found it: what had to be read directly is
//! indexed, for about as long as the search took (at least [`LEAST`], at most [`MOST`]), and
//! what is left stays pending in the cache for the next run (a search, `index`, the app, a
//! running `mcp`) to go on with. Repeated searches so get faster by themselves.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use agent_sessions_core::index::SearchFilter;
use agent_sessions_core::{Error, Library, Roots};

use crate::envelope::Envelope;
use crate::progress;

/// The least and most time a search spends indexing what it read directly.
const LEAST: Duration = Duration::from_millis(500);
const MOST: Duration = Duration::from_secs(3);

thread_local! {
    /// The library a search read directly with, and how long it may index: what
    /// [`after_output`] goes on with once the hits are out.
    static AFTER: RefCell<Option<(Library, Duration)>> = const { RefCell::new(None) };
}

pub fn run(roots: &Roots, query: &str, filter: &SearchFilter) -> Result<Envelope, Error> {
    let mut lib = crate::open(roots, &[], true);
    let started = Instant::now();
    let results = progress::run("scanning", |p| lib.search(query, filter, p))?;
    let took = started.elapsed();
    let read_directly = results.read_directly;
    let mut out = Envelope::search(results);
    out.warn(lib.warnings());
    if read_directly > 0 {
        AFTER.with(|after| *after.borrow_mut() = Some((lib, took.clamp(LEAST, MOST))));
    }
    Ok(out)
}

/// Indexes what the search read directly, within its time (called once its output is out). A
/// failure costs only speed: the sessions stay pending, and the next search reads them again.
pub fn after_output() {
    let Some((mut lib, time)) = AFTER.with(|after| after.borrow_mut().take()) else {
        return;
    };
    let _ = progress::run("indexing", |p| lib.index_text_step(usize::MAX, time, p));
}
