//! `index [--json]`: brings the session list and the full-text index fully up to date and
//! exits, saying how long each step took (what a comparison with other tools times). The work
//! is `Library::refresh` and `Library::index_text`; this is timing and output.

use std::time::Instant;

use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::{Error, Library, Roots};
use serde_json::json;

use crate::envelope::Envelope;
use crate::progress;

pub fn run(roots: &Roots) -> Result<Envelope, Error> {
    let start = Instant::now();
    let mut lib = Library::open(roots, &[], default_cache_dir());
    lib.require_cache("index")?;
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
