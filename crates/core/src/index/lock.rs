//! The lock an indexing run holds beside its cache file (`<cache file>.lock`), so that two
//! runs never index the same cache at once: a search that read sessions directly starts one in
//! the background only when none holds it, and the run it starts gives up when another took it
//! first. The cache's own transactions keep its data consistent either way; the lock saves the
//! machine a second run doing the same work.
//!
//! The file is made whole (the holder's process id written to a private file first, then linked
//! into place, which fails when the lock is there) and removed when the holder drops it. A lock
//! left by a process that is gone (killed) is taken over.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::provider::process::is_running;

/// A held indexing lock; dropping it releases it.
#[derive(Debug)]
pub struct IndexLock {
    path: PathBuf,
}

/// Who holds the lock of a cache, when someone does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Holder {
    pub pid: u32,
}

/// The lock file of the cache file `cache`.
pub fn lock_path(cache: &Path) -> PathBuf {
    let mut name = cache.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// The process holding the lock at `path`, when one is running (a lock whose process is gone,
/// or whose text is not a process id, is held by nobody).
pub fn holder(path: &Path) -> Option<Holder> {
    let text = std::fs::read_to_string(path).ok()?;
    let pid: u32 = text.trim().parse().ok()?;
    is_running(pid, None).then_some(Holder { pid })
}

impl IndexLock {
    /// Takes the lock at `path`, unless a running process holds it: `Ok(Err(holder))` then.
    /// A lock whose holder is gone is removed and taken.
    pub fn try_take(path: &Path) -> std::io::Result<Result<IndexLock, Holder>> {
        for _ in 0..2 {
            match link_new(path) {
                Ok(()) => {
                    return Ok(Ok(IndexLock {
                        path: path.to_path_buf(),
                    }))
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if let Some(h) = holder(path) {
                        return Ok(Err(h));
                    }
                    // Gone: its holder was killed before it could remove it.
                    match std::fs::remove_file(path) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => return Err(e),
                    }
                }
                Err(e) => return Err(e),
            }
        }
        // Another process took it between the removal and the link.
        match holder(path) {
            Some(h) => Ok(Err(h)),
            None => Err(std::io::Error::other(format!(
                "{} keeps changing: another process is taking it",
                path.display()
            ))),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for IndexLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes the lock at `path` when process `pid` holds it (a lock left by a child this process
/// killed, whose id the system may give to another process soon).
pub fn remove_if_held_by(path: &Path, pid: u32) {
    let held = std::fs::read_to_string(path).is_ok_and(|t| t.trim() == pid.to_string());
    if held {
        let _ = std::fs::remove_file(path);
    }
}

/// Creates `path` holding this process's id, whole, or fails with `AlreadyExists`.
fn link_new(path: &Path) -> std::io::Result<()> {
    let mut temp = path.as_os_str().to_owned();
    temp.push(format!(".{}", std::process::id()));
    let temp = PathBuf::from(temp);
    let written = (|| {
        let mut f = std::fs::File::create(&temp)?;
        write!(f, "{}", std::process::id())?;
        f.sync_all()?;
        // Only where nothing is: a lock taken meanwhile is never replaced.
        std::fs::hard_link(&temp, path)
    })();
    let _ = std::fs::remove_file(&temp);
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_and_released_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = lock_path(&dir.path().join("index-v7-0.db"));
        let held = IndexLock::try_take(&path).unwrap().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            std::process::id().to_string()
        );
        let me = Holder {
            pid: std::process::id(),
        };
        assert_eq!(IndexLock::try_take(&path).unwrap().unwrap_err(), me);
        assert_eq!(holder(&path), Some(me));
        drop(held);
        assert!(!path.exists());
        assert_eq!(holder(&path), None);
        let again = IndexLock::try_take(&path).unwrap().unwrap();
        assert_eq!(again.path(), path);
        // Nothing else is left in the folder (the private file it was made from is gone).
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        remove_if_held_by(&path, std::process::id() + 1);
        assert!(path.exists(), "another process's lock is left alone");
        remove_if_held_by(&path, std::process::id());
        assert!(!path.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_left_by_a_process_that_is_gone_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = lock_path(&dir.path().join("index-v7-0.db"));
        // A process that has exited (its id waited for, so nothing runs under it now).
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        let pid = gone.id();
        gone.wait().unwrap();
        std::fs::write(&path, pid.to_string()).unwrap();
        assert_eq!(holder(&path), None);
        let taken = IndexLock::try_take(&path).unwrap().unwrap();
        assert_eq!(
            std::fs::read_to_string(taken.path()).unwrap(),
            std::process::id().to_string()
        );
        // Text that is no process id is held by nobody too.
        drop(taken);
        std::fs::write(&path, "not a pid").unwrap();
        assert!(IndexLock::try_take(&path).unwrap().is_ok());
    }
}
