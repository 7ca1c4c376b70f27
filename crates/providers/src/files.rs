//! File-based stores: listing them safely, opening their files safely, and change detection.
//!
//! Listing ([`Walker`]) never follows a symbolic link below the directory it starts from, goes
//! at most [`MAX_DEPTH`] levels down, and reports every directory it cannot read, so a hostile
//! or damaged store (a `ln -s . loop`, a bind-mount loop, a `chmod 000` folder) costs a
//! diagnostic, never a hang or a silent gap. Opening ([`open_regular`], [`read_document`])
//! refuses anything but a regular file: a named pipe would block forever, a device never ends.
//!
//! Change detection keys a file by (path, size, mtime). Append-only JSONL that grew resumes
//! from the byte offset where the last scan stopped; a file that shrank, or whose first bytes
//! changed, was replaced and is read again from the start.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{ScanProgress, SessionKey};
use agent_sessions_model::{Diagnostics, ProviderKind, SessionMeta};
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
        self.report_unreadable(provider, out);
        for (path, state) in &self.next {
            state.cursor.problems.report(provider, path, out);
        }
    }
}

impl<F, C> Refreshed<F, C> {
    /// The files that were listed but could not be read.
    pub fn report_unreadable(&self, provider: ProviderKind, out: &mut Diagnostics) {
        for (path, e) in &self.unreadable {
            out.push(super::unreadable(provider, path.clone(), e));
        }
    }

    /// The scan epilogue of a provider whose sessions are files: each file of `emit` (the
    /// changed ones, or all of them when something laid over them changed) that
    /// `is_session` turned into its metadata; each that was a session in `prev` and is no
    /// longer one, or is gone, turned into the key it had.
    pub fn sessions<'f>(
        &self,
        prev: &FileSet<C>,
        emit: impl IntoIterator<Item = &'f F>,
        path_of: impl Fn(&F) -> &Path,
        is_session: impl Fn(&Tracked<C>) -> bool,
        to_meta: impl Fn(&F, &Tracked<C>) -> SessionMeta,
        key_of: impl Fn(&Path, &Tracked<C>) -> SessionKey,
    ) -> (Vec<SessionMeta>, Vec<SessionKey>)
    where
        F: 'f,
    {
        let was_session = |path: &Path| prev.get(path).filter(|t| is_session(t));
        let (mut changed, mut removed) = (Vec::new(), Vec::new());
        for found in emit {
            let path = path_of(found);
            let Some(state) = self.next.get(path) else {
                continue;
            };
            if is_session(state) {
                changed.push(to_meta(found, state));
            } else if let Some(before) = was_session(path) {
                removed.push(key_of(path, before));
            }
        }
        for path in &self.gone {
            if let Some(before) = was_session(path) {
                removed.push(key_of(path, before));
            }
        }
        (changed, removed)
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

/// A name used as one component of a path (a blob's file, a part, a message, a session), or
/// why it is not one. These names come from keys handed in from outside and from the records
/// themselves, and one holding a separator or starting with `.` (`..`, `.`, `../../x`) would
/// name something outside the folder it is joined to.
pub fn plain_name(name: &str) -> Result<&str, &'static str> {
    if name.is_empty() || name.contains(['/', '\\', '\0']) || name.starts_with('.') {
        return Err("not a file name");
    }
    Ok(name)
}

/// `dir/name` when `name` is a [`plain_name`]; `None` otherwise.
pub fn child(dir: &Path, name: &str) -> Option<PathBuf> {
    plain_name(name).ok().map(|n| dir.join(n))
}

/// (size, mtime in ns) of each path, `(0, 0)` for one that is not there: what a scan keeps of
/// files laid over the sessions (a database, an index) to tell whether any changed.
pub fn stamps(paths: &[PathBuf]) -> Vec<(u64, i64)> {
    paths.iter().map(|p| stat(p).unwrap_or((0, 0))).collect()
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
    let mut file = open_regular(path)?;
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

/// How many directory levels below its start a walk enters. The deepest real layout is Codex's
/// `sessions/YYYY/MM/DD/`; the bound only stops a bind-mount loop or a hostile tree.
pub const MAX_DEPTH: usize = 8;

/// The most read as one JSON document (a TypeScript-era Codex rollout, an OpenCode storage
/// file): the same cap as one JSONL line. Real ones are kilobytes (a few MB for an inline
/// image); a larger file is reported, not read, and a file that grows while read is cut off
/// at the cap, so memory stays bounded whatever is on disk.
pub const MAX_DOCUMENT: u64 = super::jsonl::MAX_LINE as u64;

/// What a directory entry is. Links are not followed, so a link is neither a file nor a
/// directory here: that is what makes every walk finite and lists each file once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    /// Anything else, named for a diagnostic ("a symbolic link", "a named pipe", …).
    Other(&'static str),
}

/// One entry of a listed directory.
#[derive(Debug, Clone)]
pub struct Entry {
    pub path: PathBuf,
    /// The file name, lossily decoded (only used to match names).
    pub name: String,
    pub kind: Kind,
}

/// Lists store directories and keeps what went wrong, for the scan's diagnostics.
#[derive(Debug, Default)]
pub struct Walker {
    /// (path, reason) of every directory that could not be read and every wanted entry that is
    /// not a regular file or directory.
    pub problems: Vec<(PathBuf, String)>,
}

impl Walker {
    /// The entries of `dir`, sorted by name. A missing directory is empty (a store need not have
    /// every folder); one that cannot be read is a problem.
    pub fn entries(&mut self, dir: &Path) -> Vec<Entry> {
        let listing = match std::fs::read_dir(dir) {
            Ok(l) => l,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => {
                self.problem(dir, format!("cannot list directory: {e}"));
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for entry in listing {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    self.problem(dir, format!("cannot list directory: {e}"));
                    break;
                }
            };
            let kind = match entry.file_type() {
                Ok(t) => kind_of(t),
                Err(e) => {
                    self.problem(&entry.path(), format!("cannot read: {e}"));
                    continue;
                }
            };
            out.push(Entry {
                path: entry.path(),
                name: entry.file_name().to_string_lossy().into_owned(),
                kind,
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    /// Whether a wanted entry (a session file, a folder of them) is of the kind expected; if not,
    /// that is a problem worth reporting: it holds or hides a session.
    pub fn is(&mut self, entry: &Entry, kind: Kind) -> bool {
        if entry.kind == kind {
            return true;
        }
        let what = match kind {
            Kind::Dir => "a directory",
            _ => "a regular file",
        };
        let reason = match entry.kind {
            Kind::Dir => "not read: a directory".to_owned(),
            Kind::File => format!("not read: not {what}"),
            Kind::Other(other) => format!("not read: {other}, not {what}"),
        };
        self.problem(&entry.path, reason);
        false
    }

    /// Whether to enter `entry`: a directory, yes; a link to one is reported, not followed (that
    /// is what keeps a `ln -s . loop` from listing a store forever); anything else, silently no.
    pub fn descend(&mut self, entry: &Entry) -> bool {
        match entry.kind {
            Kind::Dir => true,
            Kind::Other(SYMLINK) if is_link_to_dir(entry) => {
                self.problem(
                    &entry.path,
                    "not read: a symbolic link to a directory, not followed".into(),
                );
                false
            }
            _ => false,
        }
    }

    /// Every regular file below `dir` (at most [`MAX_DEPTH`] levels down) whose name `want`
    /// accepts, sorted by path. Subdirectories are entered, links are not.
    pub fn files(&mut self, dir: &Path, want: impl Fn(&str) -> bool) -> Vec<PathBuf> {
        let mut out = Vec::new();
        self.collect(dir, 0, &want, &mut out);
        out.sort();
        out
    }

    fn collect(
        &mut self,
        dir: &Path,
        depth: usize,
        want: &dyn Fn(&str) -> bool,
        out: &mut Vec<PathBuf>,
    ) {
        for entry in self.entries(dir) {
            if entry.kind == Kind::File {
                if want(&entry.name) {
                    out.push(entry.path);
                }
            } else if !self.descend(&entry) {
                if want(&entry.name) && !is_link_to_dir(&entry) {
                    self.is(&entry, Kind::File);
                }
            } else if depth < MAX_DEPTH {
                self.collect(&entry.path, depth + 1, want, out);
            } else {
                let reason = format!("not read: nested more than {MAX_DEPTH} directories deep");
                self.problem(&entry.path, reason);
            }
        }
    }

    pub fn problem(&mut self, path: &Path, reason: String) {
        self.problems.push((path.to_path_buf(), reason));
    }

    /// Adds the problems to a scan's diagnostics.
    pub fn report(&self, provider: ProviderKind, out: &mut Diagnostics) {
        for (path, reason) in &self.problems {
            out.push(agent_sessions_model::Diagnostic {
                provider,
                path: path.clone(),
                line: None,
                reason: reason.clone(),
            });
        }
    }
}

const SYMLINK: &str = "a symbolic link";

fn is_link_to_dir(entry: &Entry) -> bool {
    entry.kind == Kind::Other(SYMLINK) && entry.path.metadata().is_ok_and(|m| m.is_dir())
}

fn kind_of(t: std::fs::FileType) -> Kind {
    if t.is_file() {
        Kind::File
    } else if t.is_dir() {
        Kind::Dir
    } else {
        Kind::Other(describe(t))
    }
}

/// Names a file type that is not a regular file, for a diagnostic.
fn describe(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if t.is_symlink() {
        SYMLINK
    } else if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

fn not_regular(t: std::fs::FileType) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("not a regular file ({})", describe(t)),
    )
}

/// Opens a store file for reading if it is a regular file. The type is checked before opening
/// (opening a device may itself do something) and again on the open handle, which is opened
/// non-blocking: a file swapped for a named pipe in between cannot block the open, and is
/// refused before any read.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let before = path.metadata()?;
    if !before.is_file() {
        return Err(not_regular(before.file_type()));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Only changes anything for a pipe or device; reads of a regular file block as usual.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    Ok(file)
}

/// Reads a whole file that is parsed as one document (JSON), at most `max` bytes of it: a
/// larger file is an error naming its size, and so is one that grew past `max` while read.
pub fn read_document(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let size = file.metadata()?.len();
    read_capped(file, size, max)
}

fn read_capped(reader: impl Read, size: u64, max: u64) -> io::Result<Vec<u8>> {
    let too_large = |size: u64| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "file of {} is larger than the {} read as one document; skipped",
                human_bytes(size),
                human_bytes(max)
            ),
        )
    };
    if size > max {
        return Err(too_large(size));
    }
    // `take` bounds the read whatever the file does meanwhile; one byte more tells it grew.
    let mut buf = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    reader.take(max + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > max {
        return Err(too_large(buf.len() as u64));
    }
    Ok(buf)
}

/// `2.0 GiB`, `64 MiB`, `512 B`: sizes in diagnostics.
fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = UNITS[0];
    for u in UNITS.iter().skip(1) {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = u;
    }
    if value.fract() == 0.0 {
        format!("{value:.0} {unit}")
    } else {
        format!("{value:.1} {unit}")
    }
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
