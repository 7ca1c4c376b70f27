//! The cache's stand-in when there is none (no cache folder can be found or opened): what the
//! stores' last scans found, kept in memory — each provider's scan state, its sessions and its
//! diagnostics, nothing else. A refresh then scans from those states as it does from the
//! cache's, so it finds only what changed and hands it on the same way (a service's change
//! feed hears appends and new sessions with or without a cache).
//!
//! Memory: one entry per session in the stores (the listing a front end holds anyway), the
//! providers' states (what the cache's `provider_state` rows hold: per file a few stamps and
//! bounded rings) and at most [`Diagnostics::MAX_ITEMS`] diagnostics per provider. No message
//! text is kept (search needs the cache), and nothing grows with the number of refreshes or the
//! size of a file.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Mutex;

use crate::error::Error;
use crate::index::RefreshReport;
use crate::model::{Diagnostics, ProviderKind, SessionMeta};
use crate::provider::{
    session_dirs, ProviderSet, ProviderState, ScanOutput, ScanProgress, SessionKey,
};

/// The last scans' results, shared by the libraries that stand for one cache (a service's
/// loop and its calls), as the cache file is.
#[derive(Default)]
pub struct Scanned {
    inner: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    /// A provider is here once its first scan landed.
    states: BTreeMap<ProviderKind, ProviderState>,
    sessions: HashMap<SessionKey, SessionMeta>,
    diagnostics: BTreeMap<ProviderKind, Diagnostics>,
}

impl Scanned {
    /// Scans every provider of `set` from its last state, side by side (reads only), and keeps
    /// each provider's result as its scan finishes, handing it to `landed` then — as
    /// [`crate::index::Index::refresh_with`] commits to the cache.
    pub(crate) fn refresh(
        &self,
        set: &ProviderSet,
        progress: &ScanProgress,
        landed: &mut dyn FnMut(ProviderKind, &ScanOutput),
    ) -> Result<RefreshReport, Error> {
        let (states, known): (Vec<ProviderState>, Vec<PathBuf>) = {
            let held = lock(&self.inner);
            let states = set
                .iter()
                .map(|p| held.states.get(&p.kind()).cloned().unwrap_or_default())
                .collect();
            let mut known: Vec<PathBuf> = session_dirs(held.sessions.values()).collect();
            known.sort();
            known.dedup();
            (states, known)
        };
        let mut report = RefreshReport::default();
        set.scan_each_near(
            &states,
            progress,
            &known,
            &mut |kind, output| -> Result<(), Error> {
                self.keep(kind, &output);
                report.changed += output.changed.len();
                report.removed += output.removed.len();
                landed(kind, &output);
                Ok(())
            },
        )?;
        Ok(report)
    }

    /// One provider's scan: its sessions changed and removed, its diagnostics and state.
    fn keep(&self, kind: ProviderKind, output: &ScanOutput) {
        let mut held = lock(&self.inner);
        for key in &output.removed {
            held.sessions.remove(key);
        }
        for meta in &output.changed {
            held.sessions.insert(SessionKey::of(meta), meta.clone());
        }
        held.diagnostics.insert(kind, output.diagnostics.clone());
        held.states.insert(kind, output.state.clone());
    }

    /// The sessions of `kinds`, newest first (not enriched), and their diagnostics; `None`
    /// until every one of them has been scanned (nothing is known of it yet).
    pub(crate) fn listing(
        &self,
        kinds: &[ProviderKind],
    ) -> Option<(Vec<SessionMeta>, Diagnostics)> {
        let held = lock(&self.inner);
        if !kinds.iter().all(|k| held.states.contains_key(k)) {
            return None;
        }
        let mut sessions: Vec<SessionMeta> = held
            .sessions
            .values()
            .filter(|s| kinds.contains(&s.provider))
            .cloned()
            .collect();
        // One order whatever the map's: should two files claim one id, by path.
        sessions.sort_by(|a, b| {
            SessionMeta::newest_first(a, b).then_with(|| a.source_path.cmp(&b.source_path))
        });
        // Merged as a scan without a cache merges them (in the providers' order, capped).
        let mut diagnostics = Diagnostics::default();
        for d in kinds.iter().filter_map(|k| held.diagnostics.get(k)) {
            diagnostics.merge(d);
        }
        Some((sessions, diagnostics))
    }

    /// Drops sessions at once (trashed); a refresh reports them removed once their files are
    /// gone, as it does with the cache.
    pub(crate) fn forget(&self, keys: &[SessionKey]) {
        let mut held = lock(&self.inner);
        for key in keys {
            held.sessions.remove(key);
        }
    }

    /// Forgets everything: the next refresh scans every store whole.
    pub(crate) fn clear(&self) {
        *lock(&self.inner) = Held::default();
    }
}

/// A lock that a panic elsewhere does not make unusable: every change to what it guards is
/// made whole under it.
fn lock(m: &Mutex<Held>) -> std::sync::MutexGuard<'_, Held> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
