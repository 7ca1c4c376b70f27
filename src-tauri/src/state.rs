//! What the app holds: the settings file, the roots it reads, a library for the commands, the
//! sessions last listed (how the shell turns the webview's (provider, id) into files), and the
//! last transcript (so paging through a 40 MB session does not re-read it).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex};

use agent_sessions_core::config::{ConfigFile, Settings};
use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::paths::{process_env, resolve, Resolved};
use agent_sessions_core::{Library, ProviderKind, Roots, ScanProgress, SessionMeta, Transcript};

use crate::commands::{CmdError, CmdResult, SessionRef};

/// The last loaded transcript and its source file's (size, mtime) then.
pub type CachedTranscript = (Transcript, Option<(u64, i64)>);

pub struct AppState {
    pub roots: Mutex<Roots>,
    pub demo: Mutex<bool>,
    pub library: Mutex<Library>,
    /// Every session of the last listing, by (provider, id).
    pub sessions: Mutex<HashMap<(ProviderKind, String), SessionMeta>>,
    pub transcript: Mutex<Option<CachedTranscript>>,
    /// Bumped when the roots change, so the worker starts over on the new ones.
    pub generation: AtomicU64,
    /// Wakes the worker (it waits up to a few seconds between refreshes otherwise).
    pub wake: Mutex<Option<mpsc::Sender<()>>>,
    /// `config.toml` as last read or saved. Its problems are warnings, never a failed start.
    pub config: Mutex<ConfigFile>,
}

impl AppState {
    /// Reads `config.toml` (`AGENT_SESSIONS_CONFIG`, else the per-OS location) and resolves the
    /// roots from the agents' variables (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_DATA_HOME`),
    /// then the config, then the per-OS defaults: exactly as the CLI does without flags.
    pub fn load() -> Self {
        let config = ConfigFile::load_default(&process_env);
        let roots = roots_of(&config);
        AppState {
            library: Mutex::new(open_library(&roots)),
            roots: Mutex::new(roots),
            demo: Mutex::new(false),
            sessions: Mutex::new(HashMap::new()),
            transcript: Mutex::new(None),
            generation: AtomicU64::new(0),
            wake: Mutex::new(None),
            config: Mutex::new(config),
        }
    }

    pub fn roots(&self) -> Roots {
        self.roots.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// The settings in effect (file values over defaults).
    pub fn settings(&self) -> CmdResult<Settings> {
        Ok(self.config.lock()?.settings())
    }

    /// Takes a just-saved config: when the roots it resolves to differ from the old config's,
    /// the app reads the new ones (leaving the demo store, if it was shown); otherwise what is
    /// shown stays. Everything else (theme, grouping, terminal, …) is read where it is used.
    pub fn apply_config(&self, config: ConfigFile) -> CmdResult<()> {
        let new = roots_of(&config);
        let old = std::mem::replace(&mut *self.config.lock()?, config);
        if !same_roots(&roots_of(&old), &new) {
            self.switch(new, false);
        }
        Ok(())
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
        if let Ok(mut s) = self.sessions.lock() {
            s.clear();
        }
        self.generation.fetch_add(1, Ordering::SeqCst);
        if let Some(wake) = self.wake.lock().ok().and_then(|w| w.clone()) {
            let _ = wake.send(());
        }
    }

    /// Keeps a listing, so later commands can name its sessions by (provider, id).
    pub fn remember(&self, sessions: &[SessionMeta]) -> CmdResult<()> {
        let mut known = self.sessions.lock()?;
        known.clear();
        // Newest first: should two files claim one id, the newest is the one shown.
        for s in sessions.iter().rev() {
            known.insert((s.provider, s.id.clone()), s.clone());
        }
        Ok(())
    }

    /// The session the webview names, as the cache lists it (its files included). A session
    /// not in the last listing is looked up in a fresh one before it counts as not found.
    pub fn resolve(&self, session: &SessionRef) -> CmdResult<SessionMeta> {
        let key = (session.provider, session.id.clone());
        if let Some(meta) = self.sessions.lock()?.get(&key) {
            return Ok(meta.clone());
        }
        let listed = self.library.lock()?.listed(&ScanProgress::default())?;
        self.remember(&listed.sessions)?;
        self.sessions.lock()?.get(&key).cloned().ok_or_else(|| {
            CmdError::not_found(format!(
                "no {} session with id {:?}",
                session.provider.as_str(),
                session.id
            ))
        })
    }
}

pub fn open_library(roots: &Roots) -> Library {
    Library::open(roots, &[], default_cache_dir())
}

/// Every provider's roots and where they came from, for `config` (no flags in the app: the
/// agents' variables, then the config, then the defaults).
pub fn resolved(config: &ConfigFile) -> Result<Resolved, agent_sessions_core::Error> {
    resolve(&Roots::default(), &process_env, config)
}

/// The roots to read for `config` (only flags can make resolving fail, and the app has none).
fn roots_of(config: &ConfigFile) -> Roots {
    resolved(config).map(|r| r.roots()).unwrap_or_default()
}

fn same_roots(a: &Roots, b: &Roots) -> bool {
    a.claude == b.claude && a.codex == b.codex && a.opencode == b.opencode
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
