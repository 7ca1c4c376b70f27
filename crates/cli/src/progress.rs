//! A progress line on stderr while a long first scan or indexing runs (terminals only).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use agent_sessions_core::ScanProgress;

/// Runs `work`, drawing `label files n/total, MB` on stderr once it has taken over 300 ms.
pub fn run<T>(label: &str, work: impl FnOnce(&ScanProgress) -> T) -> T {
    let progress = ScanProgress::default();
    if !std::io::stderr().is_terminal() {
        return work(&progress);
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let start = Instant::now();
            let mut drawn = false;
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if start.elapsed() < Duration::from_millis(300) {
                    continue;
                }
                let (files, total, bytes, _) = progress.snapshot();
                eprint!(
                    "\r{label}: {files}/{total} files, {:.0} MB   ",
                    bytes as f64 / 1e6
                );
                let _ = std::io::stderr().flush();
                drawn = true;
            }
            if drawn {
                eprint!("\r{}\r", " ".repeat(60));
            }
        });
        let out = work(&progress);
        done.store(true, Ordering::Relaxed);
        out
    })
}
