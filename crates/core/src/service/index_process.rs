//! A long indexing pass in a process of its own ([`Service::index_elsewhere`]).
//!
//! Indexing a store's text the first time allocates and frees a great deal on many threads,
//! and what a long-running process keeps afterwards is spread over the pages that work left:
//! the app's process held 76–87 MB idle after indexing the 300 MB store in-process, 69 MB when
//! the same index had been written by another process (docs/performance.md, "Seventh round").
//! So the service's loop, when many sessions wait to be indexed, starts this pass in a child
//! process (the front end says which program: the app runs itself with [`ARG`]) and goes on
//! refreshing the list meanwhile, reporting the pending count as the child's writes lower it.
//! The memory goes back to the system with the child. Small increments (a live session's new
//! turns) stay in-process: a process per tick would cost more than it frees.
//!
//! The child reads what to index from its standard input (one JSON line: the cache folder and
//! the roots) and exits when that input closes, so it never outlives the app. Whatever it
//! leaves undone (killed, failed, never started) is still pending in the cache, and the loop
//! indexes it in-process: the cache's transactions keep it whole either way.
//!
//! [`Service::index_elsewhere`]: super::Service::index_elsewhere

use std::ffi::OsString;
use std::io::{BufRead, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::index::lock::{self, lock_path, IndexLock};
use crate::library::Library;
use crate::model::ProviderKind;
use crate::provider::{Roots, ScanProgress};

/// The argument a front end gives its own program to run [`main`] (the app's `main` checks
/// for it first).
pub const ARG: &str = "--index-pass";

/// Sessions waiting to be indexed from which the loop indexes in a child process.
pub const AT_LEAST: usize = 100;

/// How to start the indexing pass: a program and its leading arguments (the app: itself with
/// [`ARG`]), with variables added to its environment.
#[derive(Debug, Clone)]
pub struct IndexProcess {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
    /// Pending sessions from which it is used ([`AT_LEAST`]).
    pub at_least: usize,
}

impl IndexProcess {
    /// `program` run with `args`, from [`AT_LEAST`] pending sessions.
    pub fn new(program: PathBuf, args: Vec<OsString>) -> Self {
        IndexProcess {
            program,
            args,
            env: Vec::new(),
            at_least: AT_LEAST,
        }
    }

    /// Starts the pass on the cache in `cache_dir` over `roots`; `lock` is that cache's
    /// indexing lock, removed if the child is killed holding it. `None` when it cannot be
    /// started (the program is missing, or a root's path is not text, which the JSON handed
    /// to the child cannot carry): the loop then indexes in-process.
    pub(super) fn start(
        &self,
        roots: &Roots,
        cache_dir: PathBuf,
        lock: PathBuf,
    ) -> Option<Running> {
        let line = job_line(roots, cache_dir)?;
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // CREATE_NO_WINDOW: a console program (a debug build, a test) opens no console for it.
        #[cfg(windows)]
        std::os::windows::process::CommandExt::creation_flags(&mut cmd, 0x0800_0000);
        let mut child = cmd.spawn().ok()?;
        let input = child.stdin.take();
        let mut running = Running { child, input, lock };
        // Kept open afterwards: the child ends when it closes (this process gone). A failed
        // write drops `running`, which ends the child.
        writeln!(running.input.as_mut()?, "{line}").ok()?;
        Some(running)
    }
}

/// The line a pass reads from its standard input: the cache folder and `roots` as JSON. `None`
/// when a root's path is not text (JSON cannot carry it).
pub fn job_line(roots: &Roots, cache_dir: PathBuf) -> Option<String> {
    serde_json::to_string(&Job::of(roots, cache_dir)).ok()
}

/// A started pass. Dropping it ends the child (a change of roots, a stop): its input is closed,
/// which ends it at its next write (releasing the lock), and it is killed if it has not ended
/// within [`GRACE`].
pub(super) struct Running {
    child: Child,
    input: Option<std::process::ChildStdin>,
    lock: PathBuf,
}

/// How long a pass asked to end (its input closed) has before it is killed.
const GRACE: Duration = Duration::from_millis(500);

impl Running {
    /// Whether the child has exited.
    pub(super) fn ended(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        drop(self.input.take());
        let asked = Instant::now();
        while !self.ended() && asked.elapsed() < GRACE {
            std::thread::sleep(Duration::from_millis(20));
        }
        if !self.ended() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        // Killed holding the lock: its id could soon name another process, which would then
        // seem to hold it.
        lock::remove_if_held_by(&self.lock, self.child.id());
    }
}

/// What the child is asked to index: [`Roots`] spelled out.
#[derive(Serialize, Deserialize)]
struct Job {
    cache_dir: PathBuf,
    roots: Vec<(ProviderKind, PathBuf)>,
    near: Vec<PathBuf>,
}

impl Job {
    fn of(roots: &Roots, cache_dir: PathBuf) -> Job {
        Job {
            cache_dir,
            roots: roots
                .iter()
                .flat_map(|(kind, dirs)| dirs.iter().map(move |d| (kind, d.clone())))
                .collect(),
            near: roots.near_dirs().to_vec(),
        }
    }

    fn roots(&self) -> Roots {
        let mut roots = Roots::default();
        for (kind, dir) in &self.roots {
            roots.get_mut(*kind).push(dir.clone());
        }
        roots.near(self.near.clone())
    }
}

/// The lock the pass holds, released by whichever of its threads ends the process.
static HELD: Mutex<Option<IndexLock>> = Mutex::new(None);

/// The child's whole run, as [`run`], with its exit code: 0 done (or another process held the
/// cache's indexing lock), 1 failed (said on standard error).
pub fn main() -> i32 {
    match run() {
        Ok(_) => 0,
        Err(e) => {
            eprintln!("{ARG}: {e}");
            1
        }
    }
}

/// Reads the job from standard input and indexes the text of every session the cache lists as
/// pending: how many it indexed (none when another process holds the cache's indexing lock).
/// Ends the process when standard input closes before it is done, releasing the lock.
pub fn run() -> Result<usize, String> {
    crate::index::without_memory_statistics();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let job: Job = serde_json::from_str(&line).map_err(|_| {
        "expected one line of JSON naming the cache and the roots on standard input".to_string()
    })?;
    // The app that started this pass is gone, or asks it to end, when its end of the pipe
    // closes. SQLite's transactions keep the cache whole whenever the process ends.
    std::thread::spawn(|| {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        drop(lock_held().take());
        std::process::exit(0);
    });
    let mut lib = Library::open(&job.roots(), &[], Some(job.cache_dir.clone()));
    let Some(index) = lib.index() else {
        return Err(format!(
            "the cache in {} could not be opened",
            job.cache_dir.display()
        ));
    };
    // A run of the CLI's `index` is doing this work already.
    let Ok(Ok(taken)) = IndexLock::try_take(&lock_path(index.path())) else {
        return Ok(0);
    };
    *lock_held() = Some(taken);
    let indexed = lib.index_text(&ScanProgress::default());
    drop(lock_held().take());
    indexed.map_err(|e| e.to_string())
}

fn lock_held() -> std::sync::MutexGuard<'static, Option<IndexLock>> {
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The child opens the cache of exactly the roots the loop has (the cache file is named by
    /// them): every agent's folders, in order, and the folders looked in nearby.
    #[test]
    fn the_job_carries_the_roots_whole() {
        let roots = Roots::default()
            .with(ProviderKind::Claude, ["/a/claude", "/b/it's \"odd\" ü"])
            .with(ProviderKind::Codex, ["/a/codex"])
            .near(vec!["/work/here".into()]);
        let line = job_line(&roots, "/cache".into()).unwrap();
        assert!(!line.contains('\n'), "one line");
        let job: Job = serde_json::from_str(&line).unwrap();
        assert_eq!(job.cache_dir, PathBuf::from("/cache"));
        assert_eq!(job.roots(), roots);
        assert_eq!(job.roots().near_dirs(), roots.near_dirs());
    }

    /// A root whose name is not text cannot be written as JSON: no pass, the loop indexes.
    #[cfg(unix)]
    #[test]
    fn a_root_named_in_bytes_that_are_not_text_gets_no_pass() {
        use std::os::unix::ffi::OsStrExt;
        let odd = std::ffi::OsStr::from_bytes(b"/a/\xff\xfe");
        let roots = Roots::default().with(ProviderKind::Claude, [PathBuf::from(odd)]);
        assert_eq!(job_line(&roots, "/cache".into()), None);
    }
}
