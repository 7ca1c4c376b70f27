//! What the app holds: the settings file, whether the demo store is shown, and core's
//! [`Service`] (the roots it reads, the library for the commands, the sessions last listed —
//! how the shell turns the webview's (provider, id) into files — the last transcript, and the
//! refresh loop that `worker` forwards to the window).

use std::path::PathBuf;
use std::sync::Mutex;

use agent_sessions_core::config::{ConfigFile, Settings};
use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::live::timeline::Timelines;
use agent_sessions_core::paths::{process_env, resolve, Resolved};
use agent_sessions_core::provider::registry::agent;
use agent_sessions_core::service::Service;
use agent_sessions_core::{Error, Roots, SessionMeta, Transcript};

use crate::commands::{CmdError, CmdResult, SessionRef};

pub struct AppState {
    pub service: Service,
    pub demo: Mutex<bool>,
    /// `config.toml` as last read or saved. Its problems are warnings, never a failed start.
    pub config: Mutex<ConfigFile>,
    /// The remote host shown instead of this computer, if one is (`remote`).
    pub remote: crate::remote::Active,
    /// The followers of the sessions the Timeline tab showed last (`commands/timeline.rs`).
    pub timelines: Mutex<Timelines>,
}

impl AppState {
    /// Reads `config.toml` (`AGENT_SESSIONS_CONFIG`, else the per-OS location) and resolves the
    /// roots from the agents' variables (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_DATA_HOME`),
    /// then the config, then the per-OS defaults: exactly as the CLI does without flags.
    pub fn load() -> Self {
        let config = ConfigFile::load_default(&process_env);
        let roots = roots_of(&config);
        AppState {
            service: Service::new(roots, default_cache_dir()),
            demo: Mutex::new(false),
            config: Mutex::new(config),
            remote: Default::default(),
            timelines: Mutex::default(),
        }
    }

    /// The app on `roots` with default settings and no cache file (tests on fixture stores).
    #[cfg(test)]
    pub fn on_roots(roots: Roots) -> Self {
        AppState {
            service: Service::new(roots, None),
            demo: Mutex::new(false),
            config: Mutex::new(ConfigFile::none()),
            remote: Default::default(),
            timelines: Mutex::default(),
        }
    }

    pub fn roots(&self) -> Roots {
        self.service.roots()
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

    /// Switches to other roots (the demo store): the service starts over on them.
    pub fn switch(&self, roots: Roots, demo: bool) {
        self.service.switch(roots);
        if let Ok(mut t) = self.timelines.lock() {
            t.clear();
        }
        if let Ok(mut d) = self.demo.lock() {
            *d = demo;
        }
    }

    /// The session the webview names, as the cache lists it (its files included).
    pub fn resolve(&self, session: &SessionRef) -> CmdResult<SessionMeta> {
        self.service
            .resolve(session.provider, &session.id)
            .map_err(|e| not_found(session, e))
    }

    /// Runs `f` on the session's transcript, loaded again only when the session or its source
    /// file changed since the last load.
    pub fn with_transcript<T>(
        &self,
        session: &SessionRef,
        f: impl FnOnce(&Transcript) -> T,
    ) -> CmdResult<T> {
        self.service
            .with_transcript(session.provider, &session.id, f)
            .map_err(|e| not_found(session, e))
    }
}

/// A session not found, said with its agent (the webview named both).
fn not_found(session: &SessionRef, e: Error) -> CmdError {
    match e {
        e if e.is_session_not_found() => CmdError::not_found(format!(
            "no {} session with id {:?}",
            session.provider.as_str(),
            session.id
        )),
        e => e.into(),
    }
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
    a == b
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
    // testdata/<agent>/<version>/<its fixture store> for every agent of the registry.
    Roots::from_fn(|kind| stores(kind.as_str(), agent(kind).fixture_store))
}
