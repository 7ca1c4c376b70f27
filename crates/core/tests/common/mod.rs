//! Helpers shared by the integration tests: fixture stores, copies of them, provider sets.
#![allow(dead_code)]

use std::path::Path;

use agent_sessions_core::index::Index;
use agent_sessions_core::provider::ProviderSet;
use agent_sessions_core::{Catalog, ProviderKind, Roots, ScanProgress, SessionMeta};

#[allow(unused_imports)] // each test file uses some
pub use agent_sessions_test_support::{
    append_line, copy_dir, fixture, fixture_copy, golden_text, repo, snapshot, store_dir,
    with_root_placeholder, Canonical,
};

pub fn roots(kind: ProviderKind, root: &Path) -> Roots {
    Roots::default().with(kind, [root])
}

/// One fixture store of each agent (40 sessions).
pub fn three_fixtures() -> Roots {
    Roots::default()
        .with(
            ProviderKind::Claude,
            [fixture(ProviderKind::Claude, "2.0.50")],
        )
        .with(
            ProviderKind::Codex,
            [fixture(ProviderKind::Codex, "0.171.0")],
        )
        .with(
            ProviderKind::Opencode,
            [fixture(ProviderKind::Opencode, "1.2.27")],
        )
}

/// A cache in `dir` of `roots` listed and text-indexed, with how many sessions were indexed.
pub fn indexed(dir: &Path, roots: &Roots) -> (Index, usize) {
    let providers = ProviderSet::new(roots, &[]);
    let p = ScanProgress::default();
    let mut index = Index::open(dir, roots).unwrap();
    index.refresh(&providers, &p).unwrap();
    let written = index.index_text(&providers, None, &p).unwrap();
    (index, written)
}

pub fn provider_set(kind: ProviderKind, root: &Path) -> ProviderSet {
    ProviderSet::new(&roots(kind, root), &[kind])
}

pub fn catalog(kind: ProviderKind, root: &Path) -> Catalog {
    Catalog::new(&roots(kind, root), &[kind])
}

/// The fixture stores whose sessions are JSONL files (read in part by a follower).
pub const JSONL_STORES: &[(ProviderKind, &str)] = &[
    (ProviderKind::Claude, "1.0.30"),
    (ProviderKind::Claude, "2.0.50"),
    (ProviderKind::Claude, "2.1.9"),
    (ProviderKind::Claude, "2.1.332"),
    (ProviderKind::Codex, "0.20.0"),
    (ProviderKind::Codex, "0.63.0"),
    (ProviderKind::Codex, "0.110.0-features-multi_agent"),
    (ProviderKind::Codex, "0.140.0"),
    (ProviderKind::Codex, "0.171.0"),
    (ProviderKind::Copilot, "0.0.365"),
    (ProviderKind::Copilot, "1.0.102"),
];

/// Every session of `catalog` kept in a JSONL file.
pub fn jsonl_sessions(catalog: &Catalog) -> Vec<SessionMeta> {
    let mut sessions = catalog.scan(&ScanProgress::default()).unwrap().sessions;
    sessions.retain(|s| s.source_path.extension().is_some_and(|e| e == "jsonl"));
    sessions
}

/// Claims Claude session `id` of the store at `root` for this test process, the way Claude
/// Code writes `sessions/<pid>.json` (its start time guards against pid reuse).
#[cfg(target_os = "linux")]
pub fn claim_live(root: &Path, id: &str, status: &str) {
    let me = std::process::id();
    let stat = std::fs::read_to_string(format!("/proc/{me}/stat")).unwrap();
    let ticks = stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .nth(19)
        .unwrap()
        .to_owned();
    std::fs::create_dir_all(root.join("sessions")).unwrap();
    std::fs::write(
        root.join("sessions/99999.json"),
        format!(r#"{{"pid":{me},"sessionId":"{id}","procStart":"{ticks}","status":"{status}"}}"#),
    )
    .unwrap();
}

/// Runs `test` (a test of the calling test binary) again as user `nobody` when this process may
/// read anything (root reads a `chmod 000` folder as if nothing were wrong). Returns whether the
/// caller should run the test body itself: yes when unprivileged (or already the child); no
/// after the child ran it and passed.
#[cfg(unix)]
pub fn run_unprivileged(test: &str) -> bool {
    const CHILD: &str = "AGENT_SESSIONS_TEST_UNPRIVILEGED";
    if std::env::var_os(CHILD).is_some() || !reads_unreadable_dirs() {
        return true;
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(&exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("running as root: setpriv (util-linux) is needed to test unreadable folders");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{test} as nobody: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    false
}

/// Whether a `chmod 000` folder can still be listed by this process (root, CAP_DAC_OVERRIDE).
#[cfg(unix)]
fn reads_unreadable_dirs() -> bool {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let readable = std::fs::read_dir(&locked).is_ok();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).unwrap();
    readable
}

/// `mkfifo path`.
#[cfg(unix)]
pub fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Watches a named pipe while a scan runs. A non-blocking open for writing succeeds only while
/// a reader has the pipe open, so the watcher sees any reader, lets it go (closing its end gives
/// the reader end of file) and remembers it: a scan that would hang on the pipe fails the test
/// instead of hanging it.
#[cfg(unix)]
pub struct PipeWatch {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<bool>,
}

#[cfg(unix)]
impl PipeWatch {
    pub fn start(path: &Path) -> Self {
        use std::os::unix::fs::OpenOptionsExt;
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let path = path.to_path_buf();
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut opened = false;
            while !flag.load(Ordering::Relaxed) {
                let writer = std::fs::OpenOptions::new()
                    .write(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(&path);
                opened |= writer.is_ok();
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            opened
        });
        PipeWatch { stop, thread }
    }

    /// Stops watching; whether anything opened the pipe meanwhile.
    pub fn was_opened(self) -> bool {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}
