//! Directories a bundle restore appended a session into (`Writes::Append`: an agent with no
//! store of its own, whose file sits in the project, as Aider's history does), remembered in
//! our cache so that the agent's scan looks there ([`crate::provider::Roots::near`]) even when
//! no other agent ran there, no root names it and the CLI runs elsewhere.
//!
//! The record is ours (`restored-dirs.json` in the cache folder), never the agent's store. It
//! is plain data: each directory with the file the restore wrote. A directory whose file is
//! gone is forgotten the next time the record is read. The record is bounded ([`MAX`] entries,
//! the newest kept; one larger than [`MAX_BYTES`] or unreadable is taken as empty): it is a
//! convenience, and losing it only means the directory is listed once the CLI runs in it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::bundle::restore::Method;

/// The record's file name in the cache folder.
pub const FILE_NAME: &str = "restored-dirs.json";
/// At most this many directories are remembered (the newest).
pub const MAX: usize = 1000;
/// A record larger than this is not read (a directory is a few hundred bytes at most).
pub const MAX_BYTES: u64 = 1 << 20;

/// A directory a restore wrote into, and the file it wrote there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Restored {
    pub dir: PathBuf,
    pub file: PathBuf,
}

/// The record as it is on disk: empty when missing, too large or not ours.
fn read(cache: &Path) -> Vec<Restored> {
    let path = cache.join(FILE_NAME);
    let small = std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= MAX_BYTES);
    if !small {
        return Vec::new();
    }
    std::fs::read(&path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Replaces the record, whole or not at all (a new file renamed over the old one).
fn write(cache: &Path, entries: &[Restored]) -> std::io::Result<()> {
    // Made for the user only when missing, as the index makes it: the record names folders.
    crate::index::create_private_dir(cache).map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(cache)?;
    serde_json::to_writer(&mut tmp, entries)?;
    tmp.as_file().sync_all()?;
    tmp.persist(cache.join(FILE_NAME)).map_err(|e| e.error)?;
    Ok(())
}

/// Remembers that a restore wrote `file` in `dir` (once; the newest last, at most [`MAX`]).
pub fn remember(cache: &Path, dir: &Path, file: &Path) -> std::io::Result<()> {
    let mut entries = read(cache);
    entries.retain(|e| e.dir != dir);
    entries.push(Restored {
        dir: dir.to_path_buf(),
        file: file.to_path_buf(),
    });
    let over = entries.len().saturating_sub(MAX);
    entries.drain(..over);
    write(cache, &entries)
}

/// Remembers where `restored` was appended into (a session restored by
/// [`Method::Append`]; nothing for the others), in the cache folder `cache`. The restore stands
/// whatever happens here: a failure is answered as a warning to show.
pub fn remember_restored(
    cache: Option<&Path>,
    restored: &crate::bundle::Restored,
) -> Option<String> {
    let Method::Append { file, .. } = &restored.method else {
        return None;
    };
    let dir = restored.dir.display();
    let Some(cache) = cache else {
        return Some(format!(
            "{dir} is listed only while the CLI runs in it or another agent's session ran there: there is no cache folder to remember it in; set AGENT_SESSIONS_CACHE_DIR"
        ));
    };
    remember(cache, &restored.dir, file).err().map(|e| {
        format!(
            "{dir} is listed only while the CLI runs in it or another agent's session ran there: it could not be remembered in {} ({e})",
            cache.display()
        )
    })
}

/// The remembered directories whose file is still there; the others are forgotten (the record
/// is rewritten without them, best effort: a cache that cannot be written is read again next
/// time).
pub fn dirs(cache: &Path) -> Vec<PathBuf> {
    let entries = read(cache);
    let (kept, gone): (Vec<Restored>, Vec<Restored>) =
        entries.into_iter().partition(|e| e.file.is_file());
    if !gone.is_empty() {
        let _ = write(cache, &kept);
    }
    kept.into_iter().map(|e| e.dir).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_until_the_file_is_gone_and_bounded() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("cache");
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        for d in [&a, &b] {
            std::fs::create_dir(d).unwrap();
            std::fs::write(d.join("h.md"), "x").unwrap();
            remember(&cache, d, &d.join("h.md")).unwrap();
        }
        remember(&cache, &a, &a.join("h.md")).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&cache).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "the cache folder is the user's only");
        }
        assert_eq!(dirs(&cache), [b.as_path(), a.as_path()]);
        std::fs::remove_file(a.join("h.md")).unwrap();
        assert_eq!(dirs(&cache), [b.as_path()]);
        assert_eq!(
            read(&cache).len(),
            1,
            "the gone one is dropped from the record"
        );
        // Not ours, or too large: nothing remembered, and a restore starts it again.
        std::fs::write(cache.join(FILE_NAME), "{not json").unwrap();
        assert!(dirs(&cache).is_empty());
        let big = vec![b' '; MAX_BYTES as usize + 1];
        std::fs::write(cache.join(FILE_NAME), big).unwrap();
        assert!(dirs(&cache).is_empty());
        let many: Vec<Restored> = (0..MAX + 5)
            .map(|n| Restored {
                dir: tmp.path().join(format!("d{n}")),
                file: b.join("h.md"),
            })
            .collect();
        write(&cache, &many).unwrap();
        remember(&cache, &b, &b.join("h.md")).unwrap();
        let kept = dirs(&cache);
        assert_eq!(kept.len(), MAX);
        assert_eq!(kept.last(), Some(&b));
    }
}
