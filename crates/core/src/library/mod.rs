//! The front ends' entry point: the providers plus the cache, with the fallbacks a user
//! expects — a cache that cannot be opened costs speed (and a warning), never the session list;
//! a cache found damaged while in use is rebuilt (and a warning) and the call runs again.
//! Without a cache, what the stores' last scans found is kept in memory ([`Scanned`]), so a
//! refresh still finds and reports only what changed.

mod memory;

use std::path::PathBuf;
use std::sync::Arc;

use crate::catalog::{Catalog, ScanReport};
use crate::error::Error;
use crate::index::{self, Hit, Index, RefreshReport, SearchFilter, SearchResults};
use crate::model::{Diagnostics, ProviderKind, SessionMeta, Transcript};
use crate::provider::{ProviderSet, Roots, ScanOutput, ScanProgress};

pub use memory::Scanned;

pub struct Library {
    catalog: Catalog,
    index: Option<Index>,
    /// Without a cache: the last scans' results, which refreshes start from and lists read.
    scanned: Arc<Scanned>,
    /// Why there is no cache, when there is none: what a search needing it reports.
    no_cache: Option<Error>,
    only: Vec<ProviderKind>,
    warnings: Vec<String>,
}

impl Library {
    /// Providers over `roots` (restricted to `only` when not empty), with the cache in
    /// `cache_dir` (none: no cache; then this library keeps its scans in memory).
    pub fn open(roots: &Roots, only: &[ProviderKind], cache_dir: Option<PathBuf>) -> Self {
        Self::open_with(roots, only, cache_dir, Arc::default())
    }

    /// [`Library::open`], keeping its scans in `scanned` when there is no cache: libraries that
    /// share it (a service's loop and its calls) see one another's refreshes, as they would
    /// through a cache file, so a change is found (and reported) once.
    pub fn open_with(
        roots: &Roots,
        only: &[ProviderKind],
        cache_dir: Option<PathBuf>,
        scanned: Arc<Scanned>,
    ) -> Self {
        let mut warnings = Vec::new();
        let (index, no_cache) = match cache_dir.map(|dir| Index::open(&dir, roots)) {
            Some(Ok(mut i)) => {
                warnings.extend(i.take_warnings());
                (Some(i), None)
            }
            Some(Err(e)) => {
                warnings.push(format!("{e}; listing without the cache"));
                (None, Some(e))
            }
            None => (
                None,
                Some(Error::Cache {
                    path: PathBuf::new(),
                    reason: "no cache directory is set; set AGENT_SESSIONS_CACHE_DIR to a writable directory".into(),
                }),
            ),
        };
        Library {
            catalog: Catalog::new(roots, only),
            index,
            scanned,
            no_cache,
            only: only.to_vec(),
            warnings,
        }
    }

    /// Runs `op` on the cache (`None` without one). When the cache file turns out to be damaged,
    /// it is rebuilt — it is disposable: `op` refills it from the stores — and `op` runs again.
    fn healing<T>(
        &mut self,
        mut op: impl FnMut(&mut Index, &ProviderSet) -> Result<T, Error>,
    ) -> Option<Result<T, Error>> {
        let index = self.index.as_mut()?;
        Some(match op(index, self.catalog.providers()) {
            Err(Error::CacheCorrupt { reason, .. }) => {
                if let Err(e) = index.rebuild() {
                    return Some(Err(e));
                }
                self.warnings
                    .push(index::rebuilt_warning(index.path(), &reason));
                op(index, self.catalog.providers())
            }
            other => other,
        })
    }

    /// The error a call that needs the cache reports when there is none.
    fn needs_cache(&self, what: &str) -> Error {
        let (path, reason) = match &self.no_cache {
            Some(
                Error::Cache { path, reason }
                | Error::CacheBusy { path, reason }
                | Error::CacheCorrupt { path, reason }
                | Error::CacheUnwritable { path, reason },
            ) => (path.clone(), reason.clone()),
            Some(other) => (PathBuf::new(), other.to_string()),
            None => (PathBuf::new(), "the cache is not open".into()),
        };
        let reason = format!("{what} needs the session cache: {reason}");
        match &self.no_cache {
            Some(Error::CacheUnwritable { .. }) => Error::CacheUnwritable { path, reason },
            Some(Error::CacheBusy { .. }) => Error::CacheBusy { path, reason },
            Some(Error::CacheCorrupt { .. }) => Error::CacheCorrupt { path, reason },
            _ => Error::Cache { path, reason },
        }
    }

    /// Ok when the cache is open; otherwise the error a call that needs it reports.
    pub fn require_cache(&self, what: &str) -> Result<(), Error> {
        match self.index {
            Some(_) => Ok(()),
            None => Err(self.needs_cache(what)),
        }
    }

    /// How many sessions the cache lists now (0 without a cache).
    pub fn listed_count(&self) -> Result<usize, Error> {
        self.index.as_ref().map_or(Ok(0), Index::session_count)
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub fn index(&self) -> Option<&Index> {
        self.index.as_ref()
    }

    /// Things the user should know that did not stop the command.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Brings the cache up to date with the stores (without one, what is kept in memory).
    pub fn refresh(&mut self, progress: &ScanProgress) -> Result<RefreshReport, Error> {
        self.refresh_with(progress, &mut |_, _| {})
    }

    /// [`Library::refresh`], handing `on_commit` each provider's changes as they land (with or
    /// without a cache: a service's change feed is built from them).
    pub fn refresh_with(
        &mut self,
        progress: &ScanProgress,
        on_commit: &mut dyn FnMut(ProviderKind, &ScanOutput),
    ) -> Result<RefreshReport, Error> {
        match self.healing(|index, providers| index.refresh_with(providers, progress, on_commit)) {
            Some(refreshed) => refreshed,
            None => self
                .scanned
                .refresh(self.catalog.providers(), progress, on_commit),
        }
    }

    /// Every session, newest first, with live flags and repo roots: from the cache (or, without
    /// one, what is kept in memory) after a refresh.
    pub fn sessions(&mut self, progress: &ScanProgress) -> Result<ScanReport, Error> {
        let only = self.only.clone();
        let cached = self.healing(|index, providers| {
            index.refresh(providers, progress)?;
            index.listing(&only)
        });
        let Some(cached) = cached else {
            self.refresh(progress)?;
            return self.listed(progress);
        };
        let (sessions, diagnostics) = cached?;
        Ok(self.enriched(sessions, diagnostics))
    }

    /// What the cache holds now, without refreshing it (without a cache, what the last refresh
    /// kept in memory; a full scan before any, or with a damaged cache, which the next refresh
    /// rebuilds): the list an app shows at once at start, before its refresh completes.
    pub fn listed(&self, progress: &ScanProgress) -> Result<ScanReport, Error> {
        let Some(index) = &self.index else {
            let kinds: Vec<ProviderKind> =
                self.catalog.providers().iter().map(|p| p.kind()).collect();
            return match self.scanned.listing(&kinds) {
                Some((sessions, diagnostics)) => Ok(self.enriched(sessions, diagnostics)),
                None => self.catalog.scan(progress),
            };
        };
        let cached = index.listing(&self.only);
        let (sessions, diagnostics) = match cached {
            Err(Error::CacheCorrupt { .. }) => return self.catalog.scan(progress),
            other => other?,
        };
        Ok(self.enriched(sessions, diagnostics))
    }

    /// A listing of stored sessions (newest first) with what no store records filled in.
    fn enriched(&self, mut sessions: Vec<SessionMeta>, diagnostics: Diagnostics) -> ScanReport {
        self.catalog.enrich(&mut sessions);
        ScanReport {
            diagnostics,
            sessions,
        }
    }

    /// Empties the cache (see [`Index::rebuild`]), or without one forgets what is kept in
    /// memory; the next refresh fills it from the stores.
    pub fn clear_cache(&mut self) -> Result<(), Error> {
        match self.index.as_mut() {
            Some(index) => index.rebuild(),
            None => {
                self.scanned.clear();
                Ok(())
            }
        }
    }

    /// Drops sessions from the cache (or what is kept in memory) at once (see
    /// [`Index::forget`]).
    pub fn forget(&mut self, keys: &[crate::provider::SessionKey]) -> Result<(), Error> {
        self.healing(|index, _| index.forget(keys))
            .unwrap_or_else(|| {
                self.scanned.forget(keys);
                Ok(())
            })
    }

    /// Sessions in the cache not yet text-indexed.
    pub fn pending_text(&self) -> usize {
        self.index
            .as_ref()
            .and_then(|i| i.pending_text().ok())
            .unwrap_or(0)
    }

    /// Indexes the text of at most `max` pending sessions, so an app can index in small steps
    /// and let other calls in between.
    pub fn index_some_text(&mut self, max: usize, progress: &ScanProgress) -> Result<usize, Error> {
        self.healing(|index, providers| index.index_text(providers, Some(max), progress))
            .unwrap_or(Ok(0))
    }

    /// Indexes the text of pending sessions, at most `max`, for about `time` (see
    /// [`Index::index_text_within`]): one step of an app's worker.
    pub fn index_text_step(
        &mut self,
        max: usize,
        time: std::time::Duration,
        progress: &ScanProgress,
    ) -> Result<usize, Error> {
        self.healing(|index, providers| {
            index.index_text_within(providers, Some(max), Some(time), progress)
        })
        .unwrap_or(Ok(0))
    }

    /// Searches the cache as it is now, without refreshing or indexing first: the text index,
    /// and the listed sessions not in it yet read directly (see [`Index::search_all`]).
    pub fn search_now(&self, query: &str, filter: &SearchFilter) -> Result<SearchResults, Error> {
        match &self.index {
            Some(index) => index.search_all(query, filter, self.catalog.providers()),
            None => Err(self.needs_cache("search")),
        }
    }

    /// The hits of [`Library::search_now`].
    pub fn search_indexed(&self, query: &str, filter: &SearchFilter) -> Result<Vec<Hit>, Error> {
        self.search_now(query, filter).map(|r| r.hits)
    }

    pub fn load(&self, session: &SessionMeta) -> Result<Transcript, Error> {
        self.catalog.load(session)
    }

    /// Indexes the text of every session not yet in the search index.
    pub fn index_text(&mut self, progress: &ScanProgress) -> Result<usize, Error> {
        self.healing(|index, providers| index.index_text(providers, None, progress))
            .unwrap_or(Ok(0))
    }

    /// Refreshes the list and searches: the text index, and the sessions not in it yet read
    /// directly, so a search right after a first scan needs no wait for the indexer.
    pub fn search(
        &mut self,
        query: &str,
        filter: &SearchFilter,
        progress: &ScanProgress,
    ) -> Result<SearchResults, Error> {
        let searched = self.healing(|index, providers| {
            index.refresh(providers, progress)?;
            index.search_all(query, filter, providers)
        });
        searched.unwrap_or_else(|| Err(self.needs_cache("search")))
    }
}

/// Where the cache lives for this process (see [`crate::paths::cache_dir_for`]).
pub fn default_cache_dir() -> Option<PathBuf> {
    crate::paths::cache_dir(&crate::paths::process_env)
}
