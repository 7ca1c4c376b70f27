//! Helpers for the remote tests: fixture stores (copied when a test writes), a live claim, and
//! a server on a thread over the in-memory transport.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agent_sessions_core::{Library, ProviderKind, Roots, ScanProgress, SessionMeta};
use agent_sessions_remote::server::{serve, Options};
use agent_sessions_remote::transport::Memory;

pub const LIVE_SESSION: &str = "ceefe47d-84be-4483-8ce5-5f829cfd22c9";

#[allow(unused_imports)] // each test file uses some
pub use agent_sessions_test_support::copy_dir;

/// `testdata/claude/2.1.332/dot-claude`.
pub fn claude_fixture() -> PathBuf {
    agent_sessions_test_support::fixture(ProviderKind::Claude, "2.1.332")
}

/// A writable copy of the Claude fixture store.
pub fn claude_copy() -> tempfile::TempDir {
    agent_sessions_test_support::fixture_copy(ProviderKind::Claude, "2.1.332")
}

pub fn claude_roots(root: &Path) -> Roots {
    Roots::default().with(ProviderKind::Claude, [root])
}

/// The Claude, Codex and OpenCode fixture stores.
pub fn every_agent_roots() -> Roots {
    use agent_sessions_test_support::fixture;
    claude_roots(&claude_fixture())
        .with(
            ProviderKind::Codex,
            [fixture(ProviderKind::Codex, "0.171.0")],
        )
        .with(
            ProviderKind::Opencode,
            [fixture(ProviderKind::Opencode, "1.18.33")],
        )
}

/// The server's config.toml turns trash on, for the whole test process (only `trash` reads it;
/// the tests run at once, so the file stays until the process ends).
pub fn allow_delete() {
    static CONFIG: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let dir = CONFIG.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "[actions]\nallow_delete = true\n").unwrap();
        std::env::set_var("AGENT_SESSIONS_CONFIG", &file);
        dir
    });
    assert!(dir.path().join("config.toml").exists());
}

/// A library reading `roots` directly, and its sessions.
pub fn scanned(roots: &Roots) -> (Library, Vec<SessionMeta>) {
    let lib = Library::open(roots, &[], None);
    let sessions = lib
        .catalog()
        .scan(&ScanProgress::default())
        .unwrap()
        .sessions;
    (lib, sessions)
}

/// Claims [`LIVE_SESSION`] for this test process.
pub fn claim_live(root: &Path) -> PathBuf {
    agent_sessions_remote::loopback::claim_live(root, LIVE_SESSION)
}

/// Appends a user prompt to the live session's file.
pub fn append_prompt(root: &Path, n: usize) {
    let path = root.join(format!(
        "projects/-home-bob-projects-demo/{LIVE_SESSION}.jsonl"
    ));
    let now = chrono_now();
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(
        f,
        r#"{{"type":"user","uuid":"n{n}","sessionId":"{LIVE_SESSION}","timestamp":"{now}","message":{{"role":"user","content":"prompt number {n}"}}}}"#
    )
    .unwrap();
}

fn chrono_now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A server over `roots` with its cache in `cache`, one per connection, on threads.
pub fn memory(roots: Roots, cache: &Path) -> Arc<Memory> {
    let cache = cache.to_path_buf();
    Arc::new(Memory::new(move |input, output| {
        let options = Options {
            roots: roots.clone(),
            cache_dir: Some(cache.clone()),
            resolve: Box::new(|r| Ok(r.clone())),
        };
        let _ = serve(input, output, options);
    }))
}

/// A cache folder no server can make (it would be below a file): the server lists without
/// a cache.
pub fn unopenable(scratch: &Path) -> PathBuf {
    let file = scratch.join("a-file");
    std::fs::write(&file, b"not a folder").unwrap();
    file.join("cache")
}

/// A writer whose bytes a test reads after the server is done.
pub struct SharedVec(pub Arc<Mutex<Vec<u8>>>);

impl Write for SharedVec {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
