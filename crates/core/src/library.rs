//! The front ends' entry point: the providers plus the cache, with the fallbacks a user
//! expects — a cache that cannot be opened costs speed (and a warning), never the session list.

use std::path::PathBuf;

use crate::catalog::{Catalog, ScanReport};
use crate::error::Error;
use crate::index::{self, Hit, Index, RefreshReport, SearchFilter};
use crate::model::{ProviderKind, SessionMeta, Transcript};
use crate::provider::{Roots, ScanProgress};

pub struct Library {
    catalog: Catalog,
    index: Option<Index>,
    only: Vec<ProviderKind>,
    warnings: Vec<String>,
}

impl Library {
    /// Providers over `roots` (restricted to `only` when not empty), with the cache in
    /// `cache_dir` (none: no cache).
    pub fn open(roots: &Roots, only: &[ProviderKind], cache_dir: Option<PathBuf>) -> Self {
        let mut warnings = Vec::new();
        let index = cache_dir.and_then(|dir| match Index::open(&dir, roots) {
            Ok(i) => Some(i),
            Err(e) => {
                warnings.push(format!("{e}; listing without the cache"));
                None
            }
        });
        Library {
            catalog: Catalog::new(roots, only),
            index,
            only: only.to_vec(),
            warnings,
        }
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

    /// Brings the cache up to date with the stores (nothing to do without a cache).
    pub fn refresh(&mut self, progress: &ScanProgress) -> Result<RefreshReport, Error> {
        self.refresh_with(progress, &mut |_| {})
    }

    /// [`Library::refresh`], telling `on_commit` as each provider's changes land.
    pub fn refresh_with(
        &mut self,
        progress: &ScanProgress,
        on_commit: &mut dyn FnMut(ProviderKind),
    ) -> Result<RefreshReport, Error> {
        match &mut self.index {
            Some(index) => index.refresh_with(&self.catalog, progress, on_commit),
            None => Ok(RefreshReport::default()),
        }
    }

    /// Every session, newest first, with live flags and repo roots: from the cache after a
    /// refresh, or from a full scan without one.
    pub fn sessions(&mut self, progress: &ScanProgress) -> Result<ScanReport, Error> {
        let Some(index) = &mut self.index else {
            return self.catalog.scan(progress);
        };
        index.refresh(&self.catalog, progress)?;
        let mut sessions = index.sessions(&self.only)?;
        self.catalog.enrich(&mut sessions);
        Ok(ScanReport {
            diagnostics: index.diagnostics(&self.only)?,
            sessions,
        })
    }

    /// What the cache holds now, without refreshing it (a full scan without a cache): the
    /// list an app shows at once at start, before its refresh completes.
    pub fn listed(&self, progress: &ScanProgress) -> Result<ScanReport, Error> {
        let Some(index) = &self.index else {
            return self.catalog.scan(progress);
        };
        let mut sessions = index.sessions(&self.only)?;
        self.catalog.enrich(&mut sessions);
        Ok(ScanReport {
            diagnostics: index.diagnostics(&self.only)?,
            sessions,
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
        match &mut self.index {
            Some(index) => index.index_text(&self.catalog, Some(max), progress),
            None => Ok(0),
        }
    }

    /// Searches what is indexed now, without refreshing or indexing first.
    pub fn search_indexed(&self, query: &str, filter: &SearchFilter) -> Result<Vec<Hit>, Error> {
        match &self.index {
            Some(index) => index.search(query, filter),
            None => Err(Error::Cache {
                path: PathBuf::new(),
                reason: "search needs the session cache".into(),
            }),
        }
    }

    pub fn load(&self, session: &SessionMeta) -> Result<Transcript, Error> {
        self.catalog.load(session)
    }

    /// Indexes the text of every session not yet in the search index.
    pub fn index_text(&mut self, progress: &ScanProgress) -> Result<usize, Error> {
        match &mut self.index {
            Some(index) => index.index_text(&self.catalog, None, progress),
            None => Ok(0),
        }
    }

    /// Refreshes, completes the text index, and searches it.
    pub fn search(
        &mut self,
        query: &str,
        filter: &SearchFilter,
        progress: &ScanProgress,
    ) -> Result<Vec<Hit>, Error> {
        let Some(index) = &mut self.index else {
            let reason = self
                .warnings
                .first()
                .cloned()
                .unwrap_or_else(|| "no cache directory".into());
            return Err(Error::Cache {
                path: PathBuf::new(),
                reason: format!("search needs the session cache: {reason}"),
            });
        };
        index.refresh(&self.catalog, progress)?;
        index.index_text(&self.catalog, None, progress)?;
        index.search(query, filter)
    }
}

/// Where the cache lives for this process (see [`index::cache_dir`]).
pub fn default_cache_dir() -> Option<PathBuf> {
    index::cache_dir(&crate::paths::process_env)
}
