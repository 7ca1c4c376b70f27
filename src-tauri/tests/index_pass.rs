//! The app run with `--index-pass`, as its service starts a long indexing pass (core's
//! `service::index_process`): it indexes the text of the cache it is handed and exits, with no
//! window. Were the app to start as a window instead, the loop would wait on a second app.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent_sessions_core::index::SearchFilter;
use agent_sessions_core::service::index_process::{self, job_line};
use agent_sessions_core::{Library, ProviderKind, Roots, ScanProgress};
use agent_sessions_test_support::fixture;

#[test]
fn the_app_run_with_index_pass_indexes_the_cache_and_opens_no_window() {
    let roots = Roots::default().with(
        ProviderKind::Claude,
        [fixture(ProviderKind::Claude, "2.1.9")],
    );
    let cache = tempfile::tempdir().unwrap();
    let listed = || Library::open(&roots, &[], Some(cache.path().to_path_buf()));
    let mut lib = listed();
    lib.refresh(&ScanProgress::default()).unwrap();
    let pending = lib.pending_text();
    assert!(pending > 0, "the list is in the cache, its text not yet");
    drop(lib);

    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-sessions"))
        .arg(index_process::ARG)
        // No display: a window could not open, and the run would fail.
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    // Held open until it exits: a pass ends when its input closes.
    let mut input = child.stdin.take().unwrap();
    let line = job_line(&roots, cache.path().to_path_buf()).unwrap();
    writeln!(input, "{line}").unwrap();
    // Not `wait`: were the app to open a window instead (where no display is needed for one),
    // the test would hang rather than fail.
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the pass did not end within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    drop(input);
    assert!(status.success(), "{status}");

    let lib = listed();
    assert_eq!(
        lib.pending_text(),
        0,
        "{pending} sessions indexed by the pass"
    );
    let found = lib.search_now("main", &SearchFilter::default()).unwrap();
    assert_eq!(found.read_directly, 0);
    assert!(!found.hits.is_empty());
}
