//! What the app holds: the roots it reads, a library for the commands, and the last transcript
//! (so paging through a 40 MB session does not re-read it).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::paths::{process_env, resolve_roots};
use agent_sessions_core::{Library, Roots, Transcript};

/// The last loaded transcript and its source file's (size, mtime) then.
pub type CachedTranscript = (Transcript, Option<(u64, i64)>);

pub struct AppState {
    pub roots: Mutex<Roots>,
    pub demo: Mutex<bool>,
    pub library: Mutex<Library>,
    pub transcript: Mutex<Option<CachedTranscript>>,
    /// Bumped when the roots change, so the worker starts over on the new ones.
    pub generation: AtomicU64,
}

impl AppState {
    /// Roots from the environment (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_DATA_HOME`, else the
    /// per-OS defaults), exactly as the CLI finds them.
    pub fn from_env() -> Self {
        let roots = resolve_roots(&Roots::default(), &process_env).unwrap_or_default();
        AppState {
            library: Mutex::new(open_library(&roots)),
            roots: Mutex::new(roots),
            demo: Mutex::new(false),
            transcript: Mutex::new(None),
            generation: AtomicU64::new(0),
        }
    }

    pub fn roots(&self) -> Roots {
        self.roots.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Switches to other roots (the demo store): a new library, a restarted worker.
    pub fn switch(&self, roots: Roots, demo: bool) {
        if let Ok(mut lib) = self.library.lock() {
            *lib = open_library(&roots);
        }
        if let Ok(mut r) = self.roots.lock() {
            *r = roots;
        }
        if let Ok(mut d) = self.demo.lock() {
            *d = demo;
        }
        if let Ok(mut t) = self.transcript.lock() {
            *t = None;
        }
        self.generation.fetch_add(1, Ordering::SeqCst);
    }
}

pub fn open_library(roots: &Roots) -> Library {
    Library::open(roots, &[], default_cache_dir())
}

/// The bundled demo store: `AGENT_SESSIONS_DEMO_DIR`, the app's resources, or the repository's
/// `testdata/` next to a development build.
pub fn demo_dir(resource_dir: Option<PathBuf>) -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("AGENT_SESSIONS_DEMO_DIR").map(PathBuf::from),
        resource_dir.map(|r| r.join("demo")),
        std::env::current_exe()
            .ok()
            .and_then(|e| e.ancestors().nth(3).map(|r| r.join("testdata"))),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|d| d.join("claude").is_dir())
}

/// Every store under a demo directory.
pub fn demo_roots(dir: &std::path::Path) -> Roots {
    let stores = |provider: &str, store: &str| -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::fs::read_dir(dir.join(provider))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path().join(store))
            .filter(|p| p.is_dir())
            .collect();
        out.sort();
        out
    };
    Roots {
        claude: stores("claude", "dot-claude"),
        codex: stores("codex", "dot-codex"),
        opencode: stores("opencode", "local-share-opencode"),
    }
}
