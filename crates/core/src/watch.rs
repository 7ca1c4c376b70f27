//! File watching: `notify` with debouncing over every provider's watch paths. A burst of
//! events (a live agent appending, a storm of thousands) arrives as one callback per debounce
//! window with the set of paths touched; the caller refreshes incrementally once. When the OS
//! watcher cannot be had (inotify limits), the caller falls back to polling.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use std::sync::mpsc;
use std::time::Instant;

use notify::{EventKind, RecursiveMode, Watcher as _};

use crate::provider::ProviderSet;

/// Keeps the OS watches alive; dropping it stops them (and the debouncing thread).
pub struct Watcher {
    _watcher: notify::RecommendedWatcher,
    /// What is watched, and how.
    pub watched: Vec<(PathBuf, bool)>,
}

/// The directories to watch for a provider set: each watch path that is a directory
/// (recursively), and the directory of each watched file (not recursively), so files that are
/// replaced or created later (SQLite `-wal` files) are still seen. Paths that do not exist yet
/// are watched through their nearest existing ancestor.
pub fn targets(providers: &ProviderSet) -> Vec<(PathBuf, bool)> {
    let mut out: BTreeSet<(PathBuf, bool)> = BTreeSet::new();
    for p in providers.iter() {
        for path in p.watch_paths() {
            if path.is_dir() {
                out.insert((path, true));
            } else if let Some(dir) = path.ancestors().skip(1).find(|a| a.is_dir()) {
                out.insert((dir.to_path_buf(), false));
            }
        }
    }
    // A recursive watch covers everything below it.
    let recursive: Vec<PathBuf> = out
        .iter()
        .filter(|(_, r)| *r)
        .map(|(p, _)| p.clone())
        .collect();
    out.into_iter()
        .filter(|(p, r)| *r || !recursive.iter().any(|d| p.starts_with(d)))
        .collect()
}

/// Watches `targets`, calling `on_change` with the touched paths at most once per `debounce`.
/// Reads are not changes: access events (our own scans open files) are ignored, or every scan
/// would wake the next one.
pub fn watch(
    targets: &[(PathBuf, bool)],
    debounce: Duration,
    mut on_change: impl FnMut(Vec<PathBuf>) + Send + 'static,
) -> Result<Watcher, String> {
    let (tx, rx) = mpsc::channel::<Vec<PathBuf>>();
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        match res {
            Ok(event) if matches!(event.kind, EventKind::Access(_)) => {}
            Ok(event) => {
                let _ = tx.send(event.paths);
            }
            // An overflowed queue or a watch error: something changed, we do not know what.
            Err(_) => {
                let _ = tx.send(Vec::new());
            }
        }
    })
    .map_err(|e| format!("file watching is unavailable ({e}); falling back to periodic rescans"))?;
    for (path, recursive) in targets {
        let mode = if *recursive {
            RecursiveMode::Recursive
        } else {
            RecursiveMode::NonRecursive
        };
        watcher.watch(path, mode).map_err(|e| {
            format!(
                "cannot watch {} ({e}); falling back to periodic rescans",
                path.display()
            )
        })?;
    }
    // Coalesce: the first change opens a window of `debounce`; everything in it is one call.
    // The thread ends when the watcher (and so the sender) is dropped.
    std::thread::spawn(move || {
        while let Ok(first) = rx.recv() {
            let mut paths: BTreeSet<PathBuf> = first.into_iter().collect();
            let deadline = Instant::now() + debounce;
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match rx.recv_timeout(left) {
                    Ok(more) => paths.extend(more),
                    Err(mpsc::RecvTimeoutError::Timeout) => break,
                    Err(mpsc::RecvTimeoutError::Disconnected) => return,
                }
            }
            on_change(paths.into_iter().collect());
        }
    });
    Ok(Watcher {
        _watcher: watcher,
        watched: targets.to_vec(),
    })
}

/// The watch target for one followed file: its directory.
pub fn file_target(path: &Path) -> Vec<(PathBuf, bool)> {
    path.parent()
        .map(|d| vec![(d.to_path_buf(), false)])
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn an_append_is_seen_and_a_storm_coalesces() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.jsonl");
        std::fs::write(&file, "{}\n").unwrap();
        let (tx, rx) = mpsc::channel();
        let _w = watch(
            &[(dir.path().to_path_buf(), true)],
            Duration::from_millis(100),
            move |paths| {
                let _ = tx.send(paths);
            },
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .unwrap();
        writeln!(f, "{{\"a\":1}}").unwrap();
        drop(f);
        let paths = rx
            .recv_timeout(Duration::from_secs(5))
            .expect("no event for an append");
        assert!(paths.iter().any(|p| p.ends_with("s.jsonl")), "{paths:?}");

        // 10,000 writes in a burst arrive as one callback per debounce window, not thousands.
        // How many windows the burst spans depends on how fast this machine writes (a loaded
        // CI machine took seconds), so the bound is the windows the writing took, plus a few.
        let started = Instant::now();
        for i in 0..10_000 {
            std::fs::write(dir.path().join(format!("f{}.txt", i % 100)), i.to_string()).unwrap();
        }
        let windows = started.elapsed().as_millis() / 100;
        // Count callbacks until none comes for a while (a loaded machine delivers late).
        let mut callbacks = 0;
        while rx.recv_timeout(Duration::from_secs(2)).is_ok() {
            callbacks += 1;
        }
        assert!(
            callbacks >= 1 && callbacks <= windows + 10 && callbacks < 1_000,
            "{callbacks} callbacks for a 10,000-event storm written in {windows} windows"
        );
    }

    #[test]
    fn targets_watch_directories_recursively_and_files_through_their_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("projects")).unwrap();
        let roots = crate::provider::Roots::default()
            .with(crate::model::ProviderKind::Claude, [dir.path()])
            .with(
                crate::model::ProviderKind::Opencode,
                [dir.path().join("oc")],
            );
        std::fs::create_dir_all(dir.path().join("oc")).unwrap();
        let set = ProviderSet::new(&roots, &[]);
        let t = targets(&set);
        assert!(t.contains(&(dir.path().join("projects"), true)), "{t:?}");
        // opencode.db does not exist yet: its directory is watched, so its creation is seen.
        assert!(t.contains(&(dir.path().join("oc"), false)), "{t:?}");
    }
}
