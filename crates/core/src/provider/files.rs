//! Change detection for file-based stores: which files are new, grown, rewritten or gone.
//!
//! A file is keyed by (path, size, mtime). Append-only JSONL that grew resumes from the byte
//! offset where the last scan stopped; a file that shrank, or whose first bytes changed, was
//! replaced and is read again from the start.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::ScanProgress;
use crate::model::{Diagnostics, ProviderKind};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

/// How many leading bytes identify a file's content across appends.
const HEAD_BYTES: usize = 512;

/// What a scan remembers about one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub size: u64,
    pub mtime_ns: i64,
    /// FNV-1a of the first `HEAD_BYTES` bytes (of fewer, for a smaller file).
    pub head: u64,
    /// How many bytes `head` covers.
    pub head_len: u32,
}

/// How a file changed since its stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileChange {
    Unchanged,
    /// Same head, larger: read on from the previous offset.
    Grew,
    /// Shrank, or its head changed: read it again from the start.
    Replaced,
}

/// A file as the last scan left it: its stamp and where reading stopped.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tracked<C> {
    pub stamp: FileStamp,
    pub cursor: C,
}

/// Brings a tracked file up to date: unchanged files cost one `stat`; a file that grew is read
/// on from its cursor; a new or replaced file is read from a default cursor. The stamp is taken
/// before reading, so bytes appended during the read are seen by the next refresh. Returns the
/// new state and whether anything was read.
pub fn refresh<C: Clone + Default>(
    path: &Path,
    prev: Option<&Tracked<C>>,
    read: impl FnOnce(C) -> io::Result<C>,
) -> io::Result<(Tracked<C>, bool)> {
    let (stamp, from) = match prev {
        Some(prev) => {
            let (change, stamp) = compare(path, &prev.stamp)?;
            match change {
                FileChange::Unchanged => return Ok((prev.clone(), false)),
                FileChange::Grew => (stamp, prev.cursor.clone()),
                FileChange::Replaced => (stamp, C::default()),
            }
        }
        None => (self::stamp(path)?, C::default()),
    };
    let cursor = read(from)?;
    Ok((Tracked { stamp, cursor }, true))
}

/// The tracked files of one provider, by path.
pub type FileSet<C> = BTreeMap<PathBuf, Tracked<C>>;

/// What refreshing a whole file set found.
pub struct Refreshed<F, C> {
    /// The state of every file found.
    pub next: FileSet<C>,
    /// Files read this time (new or changed).
    pub changed: Vec<F>,
    /// Paths tracked before that are gone now (or could not be read).
    pub gone: Vec<PathBuf>,
    /// Files listed but unreadable, with why.
    pub unreadable: Vec<(PathBuf, io::Error)>,
}

/// One file's refresh: its new state and whether it was read, or why it could not be.
type Outcome<C> = io::Result<(Tracked<C>, bool)>;

impl<F, A> Refreshed<F, super::jsonl::Cursor<A>> {
    /// Every problem that applies now: files that could not be read, and the bad lines of
    /// every file still tracked (kept in their cursors, so unchanged files report them too).
    pub fn report_problems(&self, provider: ProviderKind, out: &mut Diagnostics) {
        for (path, e) in &self.unreadable {
            out.push(super::unreadable(provider, path.clone(), e));
        }
        for (path, state) in &self.next {
            state.cursor.problems.report(provider, path, out);
        }
    }
}

/// Refreshes every found file against the previous set, in parallel on the rayon pool.
pub fn refresh_all<F, C>(
    found: Vec<F>,
    path_of: impl Fn(&F) -> &Path + Sync,
    prev: &FileSet<C>,
    progress: &ScanProgress,
    read: impl Fn(&F, C) -> io::Result<C> + Sync,
) -> Refreshed<F, C>
where
    F: Send,
    C: Clone + Default + Send + Sync,
{
    progress.add_total(found.len() as u64, 0);
    let results: Vec<(F, Outcome<C>)> = found
        .into_par_iter()
        .map(|f| {
            let path = path_of(&f);
            let r = refresh(path, prev.get(path), |c| read(&f, c));
            progress.add_done(1, r.as_ref().map(|(t, _)| t.stamp.size).unwrap_or(0));
            (f, r)
        })
        .collect();
    let mut out = Refreshed {
        next: FileSet::new(),
        changed: Vec::new(),
        gone: Vec::new(),
        unreadable: Vec::new(),
    };
    for (f, result) in results {
        let path = path_of(&f).to_path_buf();
        match result {
            Ok((tracked, changed)) => {
                out.next.insert(path, tracked);
                if changed {
                    out.changed.push(f);
                }
            }
            Err(e) => out.unreadable.push((path, e)),
        }
    }
    out.gone = prev
        .keys()
        .filter(|p| !out.next.contains_key(*p))
        .cloned()
        .collect();
    out
}

/// (size, mtime in ns) from one `stat`.
pub fn stat(path: &Path) -> io::Result<(u64, i64)> {
    let meta = path.metadata()?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0);
    Ok((meta.len(), mtime))
}

/// Stamps a file: stat plus a hash of its head.
pub fn stamp(path: &Path) -> io::Result<FileStamp> {
    let (size, mtime_ns) = stat(path)?;
    let (head, head_len) = head_hash(path, HEAD_BYTES)?;
    Ok(FileStamp {
        size,
        mtime_ns,
        head,
        head_len,
    })
}

/// Compares a file on disk with its previous stamp. Costs one `stat` when nothing changed.
pub fn compare(path: &Path, prev: &FileStamp) -> io::Result<(FileChange, FileStamp)> {
    let (size, mtime_ns) = stat(path)?;
    if size == prev.size && mtime_ns == prev.mtime_ns {
        return Ok((FileChange::Unchanged, *prev));
    }
    let now = stamp(path)?;
    let (old_head, _) = head_hash(path, prev.head_len as usize)?;
    let change = if now.size < prev.size || old_head != prev.head {
        FileChange::Replaced
    } else if now.size == prev.size {
        // Touched but not grown: same bytes as far as we can tell, re-read to be safe.
        FileChange::Replaced
    } else {
        FileChange::Grew
    };
    Ok((change, now))
}

fn head_hash(path: &Path, len: usize) -> io::Result<(u64, u32)> {
    let mut buf = vec![0u8; len];
    let mut file = File::open(path)?;
    let mut filled = 0;
    while filled < len {
        let n = file.read(&mut buf[filled..])?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    Ok((fnv1a(&buf[..filled]), filled as u32))
}

/// FNV-1a, 64 bit: stable across builds, unlike std's hasher.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn tells_growth_from_replacement() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        std::fs::write(&path, b"{\"a\":1}\n").unwrap();
        let first = stamp(&path).unwrap();
        assert_eq!(compare(&path, &first).unwrap().0, FileChange::Unchanged);

        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"{\"b\":2}\n").unwrap();
        drop(f);
        let (change, grown) = compare(&path, &first).unwrap();
        assert_eq!(change, FileChange::Grew);

        std::fs::write(&path, b"{\"x\":9}\n{\"b\":2}\n{\"c\":3}\n").unwrap();
        assert_eq!(compare(&path, &grown).unwrap().0, FileChange::Replaced);

        std::fs::write(&path, b"{}\n").unwrap();
        assert_eq!(compare(&path, &grown).unwrap().0, FileChange::Replaced);
    }
}
