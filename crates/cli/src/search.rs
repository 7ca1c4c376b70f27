//! `search`: the text index, and the sessions it does not hold yet read directly. A search
//! that had to read sessions directly leaves the index better for the next one without being
//! slower itself: it starts `agent-sessions-cli index --background` as a detached process on
//! the same roots and cache, and exits without waiting for it. Indexing in this process was
//! tried and made searches slower (docs/performance.md). The lock beside the cache file
//! (`index::lock`) keeps two indexing runs from working at once; with
//! `AGENT_SESSIONS_NO_BACKGROUND_INDEX=1` no run is started.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use agent_sessions_core::index::lock::{holder, lock_path};
use agent_sessions_core::index::SearchFilter;
use agent_sessions_core::library::default_cache_dir;
use agent_sessions_core::{Error, Library, ProviderKind, Roots};
use serde_json::json;

use crate::envelope::Envelope;
use crate::progress;

/// The variable that turns the background indexing off (any value but empty or `0`).
pub const NO_BACKGROUND_INDEX: &str = "AGENT_SESSIONS_NO_BACKGROUND_INDEX";

#[derive(clap::Args)]
pub struct Args {
    pub query: String,
    /// At most this many hits.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Only these agents' sessions; repeatable.
    #[arg(long = "provider", value_name = "NAME", value_parser = crate::AgentName)]
    pub providers: Vec<ProviderKind>,
    /// Only sessions whose directory or repository is DIR or below it.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<String>,
    /// Only sessions updated on or after this date (YYYY-MM-DD).
    #[arg(long, value_name = "DATE", value_parser = crate::parse_date)]
    pub since: Option<i64>,
    /// Only sessions updated on or before this date (YYYY-MM-DD).
    #[arg(long, value_name = "DATE", value_parser = crate::parse_end_date)]
    pub until: Option<i64>,
}

/// Searches the cache of `roots`; `flags` are the root flags given (what the background run
/// is given, so that it resolves the same roots).
pub fn run(
    roots: &Roots,
    flags: &[(ProviderKind, PathBuf)],
    args: Args,
) -> Result<Envelope, Error> {
    let cache = default_cache_dir();
    let mut lib = Library::open(roots, &[], cache.clone());
    let filter = SearchFilter {
        providers: args.providers,
        dir: args.dir,
        since_ms: args.since,
        until_ms: args.until,
        limit: args.limit,
    };
    let results = progress::run("scanning", |p| lib.search(&args.query, &filter, p))?;
    let pending = lib.pending_text();
    let background = if results.read_directly > 0 || pending > 0 {
        Some(start_indexing(&lib, cache, flags))
    } else {
        None
    };
    let mut out = Envelope::search(results);
    out.warn(lib.warnings());
    if let Some(started) = background {
        out.add("background_index", json!(started));
    }
    Ok(out)
}

/// What became of the indexing a search hands on.
#[derive(Debug, serde::Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
enum Background {
    /// A run was started: its process id.
    Started { pid: u32 },
    /// One is running already (this process id).
    Running { pid: u32 },
    /// Turned off by [`NO_BACKGROUND_INDEX`].
    Off,
    /// It could not be started: why (the search itself is unaffected).
    Failed { reason: String },
}

/// Starts `index --background` on the cache of `lib`, detached, unless one runs already or it
/// is turned off. Never waits for it.
fn start_indexing(
    lib: &Library,
    cache: Option<PathBuf>,
    flags: &[(ProviderKind, PathBuf)],
) -> Background {
    if std::env::var_os(NO_BACKGROUND_INDEX).is_some_and(|v| !v.is_empty() && v != "0") {
        return Background::Off;
    }
    let (Some(index), Some(cache)) = (lib.index(), cache) else {
        return Background::Failed {
            reason: "there is no cache to index".into(),
        };
    };
    if let Some(h) = holder(&lock_path(index.path())) {
        return Background::Running { pid: h.pid };
    }
    match spawn_index(&cache, flags) {
        Ok(pid) => Background::Started { pid },
        Err(e) => Background::Failed {
            reason: e.to_string(),
        },
    }
}

/// This program's `index --background` with the root flags `flags` (made absolute: the run
/// resolves them as this one did, with the same environment and config.toml) and the cache
/// folder `cache`; its standard streams closed, in a process group of its own so that the
/// terminal's signals (Ctrl-C, a closed window) reach the search, not it.
fn spawn_index(cache: &std::path::Path, flags: &[(ProviderKind, PathBuf)]) -> std::io::Result<u32> {
    let program = std::env::current_exe()?;
    let mut cmd = Command::new(program);
    for (kind, dir) in flags {
        let mut flag = OsString::from(format!("--root={kind}="));
        flag.push(std::path::absolute(dir)?);
        cmd.arg(flag);
    }
    cmd.args(["index", "--background"])
        .env("AGENT_SESSIONS_CACHE_DIR", cache)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    #[cfg(windows)]
    {
        // DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP: no console of the search's.
        std::os::windows::process::CommandExt::creation_flags(&mut cmd, 0x8 | 0x200);
    }
    // Not waited for: it outlives this process, which exits now.
    Ok(cmd.spawn()?.id())
}
