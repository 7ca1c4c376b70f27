//! `index [--json]`: brings the session list and the full-text index fully up to date and
//! exits, saying how long each step took (what a comparison with other tools times). The work
//! is `Library::refresh` and `Library::index_text`; this is timing and output. A run holds the
//! cache's indexing lock (`index::lock`): one started by a search (`--background`) gives up
//! when another run holds it; one the user runs waits for that run to end.

use std::time::{Duration, Instant};

use agent_sessions_core::index::lock::{lock_path, IndexLock};
use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::{Error, Library, Roots};
use serde_json::json;

use crate::envelope::Envelope;
use crate::progress;

#[derive(clap::Args)]
pub struct Args {
    /// Started by a search that read sessions directly: exit at once when another run is
    /// indexing this cache.
    #[arg(long, hide = true)]
    background: bool,
}

pub fn run(roots: &Roots, args: Args) -> Result<Envelope, Error> {
    let start = Instant::now();
    let mut lib = Library::open(roots, &[], default_cache_dir());
    lib.require_cache("index")?;
    let Some(_lock) = take_lock(&lib, args.background)? else {
        return Ok(Envelope::ok(
            json!({ "skipped": "another run is indexing this cache" }),
            "another run is indexing this cache\n".into(),
        ));
    };
    let refreshed = progress::run("scanning", |p| lib.refresh(p))?;
    let listed = start.elapsed();
    let indexed = progress::run("indexing", |p| lib.index_text(p))?;
    let total = start.elapsed();
    let sessions = lib.listed_count()?;
    let ms = |d: std::time::Duration| (d.as_secs_f64() * 1e4).round() / 10.0;
    let text = format!(
        "{sessions} sessions listed ({} new or changed, {} removed) in {:.2} s; text of {indexed} indexed in {:.2} s; {:.2} s in all\n",
        refreshed.changed,
        refreshed.removed,
        listed.as_secs_f64(),
        (total - listed).as_secs_f64(),
        total.as_secs_f64(),
    );
    let mut out = Envelope::ok(
        json!({
            "sessions": sessions,
            "changed": refreshed.changed,
            "removed": refreshed.removed,
            "text_indexed": indexed,
            "pending_text": lib.pending_text(),
            "timings_ms": { "list": ms(listed), "text": ms(total - listed), "total": ms(total) },
        }),
        text,
    );
    out.warn(lib.warnings());
    Ok(out)
}

/// The cache's indexing lock; `None` when another run holds it and this one is a background
/// run. A run the user started waits for the other to end (it is then quick: little is left).
fn take_lock(lib: &Library, background: bool) -> Result<Option<IndexLock>, Error> {
    let Some(index) = lib.index() else {
        return Ok(None);
    };
    let path = lock_path(index.path());
    let failed = |e: std::io::Error| Error::Cache {
        path: path.clone(),
        reason: format!("cannot take the indexing lock: {e}"),
    };
    let mut said = false;
    loop {
        match IndexLock::try_take(&path).map_err(failed)? {
            Ok(lock) => return Ok(Some(lock)),
            Err(_) if background => return Ok(None),
            Err(holder) => {
                if !said {
                    eprintln!(
                        "waiting for the indexing under way (process {}) to end",
                        holder.pid
                    );
                    said = true;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
}
