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

use serde::{Deserialize, Serialize};

use crate::index::lock::{lock_path, IndexLock};
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

    /// Starts the pass on the cache in `cache_dir` over `roots`. `None` when it cannot be
    /// started (the program is missing, or a root's path is not text, which the JSON handed
    /// to the child cannot carry): the loop then indexes in-process.
    pub(super) fn start(&self, roots: &Roots, cache_dir: PathBuf) -> Option<Running> {
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
        let mut running = Running { child, input };
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

/// A started pass. Dropping it ends the child (a change of roots, a stop).
pub(super) struct Running {
    child: Child,
    input: Option<std::process::ChildStdin>,
}

impl Running {
    /// Whether the child has exited.
    pub(super) fn ended(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        drop(self.input.take());
        if !self.ended() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
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
        let roots = roots
            .iter()
            .flat_map(|(kind, dirs)| dirs.iter().map(move |d| (kind, d.clone())))
            .collect();
        Job {
            cache_dir,
            roots,
            near: Vec::new(),
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

/// The child's whole run: reads the job from standard input, indexes the text of every
/// session the cache lists as pending, and returns the exit code (0: done, or another
/// process held the cache's indexing lock; 2: no job could be read; 1: indexing failed, said
/// on standard error). Ends the process when standard input closes before it is done.
pub fn main() -> i32 {
    crate::index::without_memory_statistics();
    let mut stdin = std::io::stdin().lock();
    let mut line = String::new();
    let job: Job = match stdin
        .read_line(&mut line)
        .map(|_| serde_json::from_str(&line))
    {
        Ok(Ok(job)) => job,
        _ => {
            eprintln!(
                "{ARG}: expected one line of JSON naming the cache and the roots on standard input"
            );
            return 2;
        }
    };
    drop(stdin);
    // The app that started this pass is gone when its end of the pipe closes.
    std::thread::spawn(|| {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        std::process::exit(0);
    });
    let mut lib = Library::open(&job.roots(), &[], Some(job.cache_dir.clone()));
    let Some(index) = lib.index() else {
        eprintln!(
            "{ARG}: the cache in {} could not be opened",
            job.cache_dir.display()
        );
        return 1;
    };
    // A run of the CLI's `index` is doing this work already.
    let Ok(Ok(_lock)) = IndexLock::try_take(&lock_path(index.path())) else {
        return 0;
    };
    match lib.index_text(&ScanProgress::default()) {
        Ok(_) => 0,
        Err(e) => {
            eprintln!("{ARG}: {e}");
            1
        }
    }
}
