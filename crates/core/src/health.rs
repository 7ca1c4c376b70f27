//! What a diagnostics panel shows (SPEC §8), so the user can trust that nothing was silently
//! skipped: per provider and root, the files read, the records skipped (file, line, reason)
//! and the tool versions that wrote the sessions; how the stores are watched; where the cache
//! is and how big.
//!
//! Built from a listing (`ScanReport`: the sessions and the diagnostics the cache holds), so it
//! costs no read of any store.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::catalog::ScanReport;
use crate::index;
use crate::model::{Diagnostic, ProviderKind};
use crate::provider::Roots;
use crate::service::WatcherState;

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct Health {
    pub roots: Vec<RootHealth>,
    /// Records skipped in all (each root lists at most [`crate::model::Diagnostics::MAX_ITEMS`]
    /// in all of them; this counts every one).
    pub parse_errors: u64,
    /// Skipped records counted but not listed (past the list's cap).
    pub unlisted: u64,
    pub watcher: WatcherState,
    pub cache: CacheInfo,
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct RootHealth {
    pub provider: ProviderKind,
    pub root: PathBuf,
    pub exists: bool,
    pub sessions: u64,
    /// Distinct files (or databases) the sessions were read from.
    pub files_read: u64,
    /// Skipped records under this root: file, line, reason.
    pub skipped: Vec<Diagnostic>,
    /// The writing tool's versions and how many sessions each wrote (`unknown`: not recorded).
    pub format_versions: Vec<(String, u64)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct CacheInfo {
    /// The cache directory (none: no cache).
    pub dir: Option<PathBuf>,
    /// The cache file of these roots.
    pub path: Option<PathBuf>,
    /// Its size with its shards' files and SQLite's `-wal` and `-shm` files.
    pub bytes: u64,
}

impl CacheInfo {
    pub fn of(cache_dir: Option<&Path>, roots: &Roots) -> CacheInfo {
        let path = cache_dir.map(|d| index::index_path(d, roots));
        let bytes = path.as_deref().map_or(0, |p| {
            let files = index::cache_files(p);
            let each = files
                .iter()
                .flat_map(|f| ["", "-wal", "-shm"].map(|s| format!("{}{s}", f.display())));
            each.filter_map(|f| std::fs::metadata(f).ok())
                .map(|m| m.len())
                .sum()
        });
        CacheInfo {
            dir: cache_dir.map(Path::to_path_buf),
            path,
            bytes,
        }
    }
}

/// The root of `kind` that `path` is under (the longest, should roots nest).
fn root_of<'a>(roots: &'a Roots, kind: ProviderKind, path: &Path) -> Option<&'a PathBuf> {
    roots
        .for_kind(kind)
        .iter()
        .filter(|r| path.starts_with(r))
        .max_by_key(|r| r.as_os_str().len())
}

pub fn report(
    roots: &Roots,
    listing: &ScanReport,
    watcher: WatcherState,
    cache: CacheInfo,
) -> Health {
    #[derive(Default)]
    struct Acc {
        sessions: u64,
        files: BTreeSet<PathBuf>,
        skipped: Vec<Diagnostic>,
        versions: BTreeMap<String, u64>,
    }
    let mut acc: BTreeMap<(ProviderKind, PathBuf), Acc> = BTreeMap::new();
    for kind in ProviderKind::ALL {
        for r in roots.for_kind(kind) {
            acc.entry((kind, r.clone())).or_default();
        }
    }
    // Whatever lies under no root (a store file found through a link) goes with the agent's
    // first root rather than nowhere.
    let place = |kind: ProviderKind, path: &Path| {
        root_of(roots, kind, path)
            .or_else(|| roots.for_kind(kind).first())
            .map(|r| (kind, r.clone()))
    };
    for s in &listing.sessions {
        let Some(key) = place(s.provider, &s.source_path) else {
            continue;
        };
        let a = acc.entry(key).or_default();
        a.sessions += 1;
        a.files.insert(s.source_path.clone());
        let v = s.format_version.clone().unwrap_or_else(|| "unknown".into());
        *a.versions.entry(v).or_default() += 1;
    }
    let mut listed = 0u64;
    for d in &listing.diagnostics.items {
        if let Some(key) = place(d.provider, &d.path) {
            acc.entry(key).or_default().skipped.push(d.clone());
            listed += 1;
        }
    }
    let roots = acc
        .into_iter()
        .map(|((provider, root), a)| RootHealth {
            provider,
            exists: root.exists(),
            root,
            sessions: a.sessions,
            files_read: a.files.len() as u64,
            skipped: a.skipped,
            format_versions: a.versions.into_iter().collect(),
        })
        .collect();
    let parse_errors = listing.diagnostics.parse_errors;
    Health {
        roots,
        parse_errors,
        unlisted: parse_errors.saturating_sub(listed),
        watcher,
        cache,
    }
}
