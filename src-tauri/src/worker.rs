//! Keeps the cache fresh while the app runs: woken by the file watcher (or a poll without one),
//! it refreshes (cheap when nothing changed), tells the UI (`sessions-changed`), then indexes
//! message text in small batches so search fills in behind the list. Scan progress goes to the
//! UI as `scan-progress` events. New roots (`AppState::switch`) wake it to start over on them.
//!
//! The worker has its own library (its own connection to the cache), so the commands keep
//! answering from the cache while a long first scan runs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use agent_sessions_core::{watch, ScanProgress};
use serde::Serialize;
use tauri::{AppHandle, Emitter, Manager};

use crate::state::{open_library, AppState};

/// Events closer than this are one change.
const DEBOUNCE: Duration = Duration::from_millis(100);
/// With a watcher: how often live flags are re-checked when nothing is written.
const TICK: Duration = Duration::from_secs(5);
/// Without a watcher: how often the stores are polled.
const POLL: Duration = Duration::from_secs(2);
/// Sessions text-indexed per step.
const INDEX_BATCH: usize = 20;

#[derive(Clone, Serialize)]
struct Progress {
    files_done: u64,
    files_total: u64,
    bytes_done: u64,
}

#[derive(Clone, Serialize)]
struct Changed {
    changed: usize,
    removed: usize,
    first: bool,
    /// The refresh is complete (not just one provider's part of it).
    done: bool,
}

pub fn start(app: AppHandle) {
    std::thread::spawn(move || loop {
        let state = app.state::<AppState>();
        let generation = state.generation.load(Ordering::SeqCst);
        let mut lib = open_library(&state.roots());
        // Store changes wake the worker; without a watcher it polls. A change of roots (saved
        // settings, the demo store) wakes it too, so it starts over on them at once.
        let (tx, rx) = mpsc::channel();
        if let Ok(mut wake) = state.wake.lock() {
            *wake = Some(tx.clone());
        }
        let targets = watch::targets(lib.catalog().providers());
        let watcher = watch::watch(&targets, DEBOUNCE, move |_| {
            let _ = tx.send(());
        });
        let idle = match &watcher {
            Ok(_) => TICK,
            Err(e) => {
                let _ = app.emit("warning", e.clone());
                POLL
            }
        };
        let mut first = true;
        while state.generation.load(Ordering::SeqCst) == generation {
            let progress = Arc::new(ScanProgress::default());
            // On a first scan each agent's sessions show as soon as that agent is done.
            let report = with_progress(&app, &progress, || {
                lib.refresh_with(&progress, &mut |_| {
                    if first {
                        let _ = app.emit(
                            "sessions-changed",
                            Changed {
                                changed: 0,
                                removed: 0,
                                first,
                                done: false,
                            },
                        );
                    }
                })
            });
            // Live flags and turn states also change with time (an agent exits): the list is
            // re-read on every tick, and at once after a change.
            if let Ok(r) = report {
                let _ = app.emit(
                    "sessions-changed",
                    Changed {
                        changed: r.changed,
                        removed: r.removed,
                        first,
                        done: true,
                    },
                );
            }
            first = false;
            if lib.pending_text() > 0 {
                let done = lib
                    .index_some_text(INDEX_BATCH, &ScanProgress::default())
                    .unwrap_or(0);
                let _ = app.emit("index-progress", lib.pending_text());
                if done > 0 && rx.try_recv().is_err() {
                    continue;
                }
            }
            let _ = rx.recv_timeout(idle);
            while rx.try_recv().is_ok() {}
        }
        drop(watcher);
    });
}

/// Runs `work` while a ticker sends its progress to the UI.
fn with_progress<T>(app: &AppHandle, progress: &Arc<ScanProgress>, work: impl FnOnce() -> T) -> T {
    let done = Arc::new(AtomicBool::new(false));
    let ticker = {
        let (app, progress, done) = (app.clone(), progress.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(150));
                let (files_done, files_total, bytes_done, _) = progress.snapshot();
                let _ = app.emit(
                    "scan-progress",
                    Progress {
                        files_done,
                        files_total,
                        bytes_done,
                    },
                );
            }
        })
    };
    let out = work();
    done.store(true, Ordering::Relaxed);
    let _ = ticker.join();
    out
}
