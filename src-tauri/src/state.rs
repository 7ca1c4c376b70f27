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
    /// The library searches run on, apart from the calls' (`commands/search.rs`).
    pub searches: crate::commands::search::Searches,
}

impl AppState {
    /// Reads `config.toml` (`AGENT_SESSIONS_CONFIG`, else the per-OS location) and resolves the
    /// roots from the agents' variables (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_DATA_HOME`),
    /// then the config, then the per-OS defaults: exactly as the CLI does without flags.
    pub fn load() -> Self {
        let config = ConfigFile::load_default(&process_env);
        agent_sessions_core::pricing::install(config.prices());
        let roots = roots_of(&config);
        AppState {
            service: Service::new(roots, default_cache_dir()),
            demo: Mutex::new(false),
            config: Mutex::new(config),
            remote: Default::default(),
            timelines: Mutex::default(),
            searches: Default::default(),
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
            searches: Default::default(),
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
        agent_sessions_core::pricing::install(config.prices());
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
        let at = session.source_path.as_deref();
        self.service
            .resolve_at(session.provider, &session.id, at)
            .map_err(|e| not_found(session, e))
    }

    /// Runs `f` on the session's transcript, loaded again only when the session or its source
    /// file changed since the last load.
    pub fn with_transcript<T>(
        &self,
        session: &SessionRef,
        f: impl FnOnce(&Transcript) -> T,
    ) -> CmdResult<T> {
        let meta = self.resolve(session)?;
        self.service
            .with_transcript_of(&meta, f)
            .map_err(|e| not_found(session, e))
    }
}

/// A session not found, said with its agent (the webview named both).
fn not_found(session: &SessionRef, e: Error) -> CmdError {
    match e {
        e if e.is_session_not_found() => CmdError::not_found(match &session.source_path {
            Some(path) => format!(
                "no {} session with id {:?} is listed from {}",
                session.provider.as_str(),
                session.id,
                path.display()
            ),
            None => format!(
                "no {} session with id {:?}",
                session.provider.as_str(),
                session.id
            ),
        }),
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

#[cfg(test)]
mod tests {
    //! One session in two files (a Claude project folder copied beside itself): the webview's
    //! ref with the file the list gave opens that file's transcript; without it the id is
    //! refused naming both files; a file the list did not give names nothing.

    use agent_sessions_core::{ProviderKind, Roots};
    use agent_sessions_test_support::SameIdStore;

    use super::*;

    #[test]
    fn the_listed_file_names_each_copy() {
        let store = SameIdStore::create();
        let state = AppState::on_roots(Roots::default().with(ProviderKind::Claude, [store.root()]));
        state.service.refresh().unwrap();
        let named = |path: Option<&std::path::Path>| SessionRef {
            provider: ProviderKind::Claude,
            id: store.id.into(),
            source_path: path.map(Into::into),
        };
        for (file, own, other) in [
            (&store.original, store.original_text, store.copy_text),
            (&store.copy, store.copy_text, store.original_text),
        ] {
            let text = state
                .with_transcript(&named(Some(file)), |t| {
                    serde_json::to_string(&t.messages).unwrap()
                })
                .unwrap();
            assert!(text.contains(own) && !text.contains(other), "{file:?}");
        }
        let bare = state.resolve(&named(None)).unwrap_err();
        assert_eq!(bare.code, crate::commands::ErrorCode::AmbiguousId);
        assert!(bare.message.contains(&store.copy.display().to_string()));
        let elsewhere = state.resolve(&named(Some(std::path::Path::new("/etc/passwd"))));
        assert_eq!(
            elsewhere.unwrap_err().code,
            crate::commands::ErrorCode::NotFound
        );
    }
}
