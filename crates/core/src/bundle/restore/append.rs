//! Restoring an agent whose record is appended to a file of the directory restored into
//! (`Writes::Append`: Aider's `.aider.chat.history.md`, which Aider's own
//! `--restore-chat-history` replays). The file's earlier bytes stay as they were: the planned
//! length is checked again on the open file right before the append, and a failed append is
//! taken back by cutting the file to that length, only when what follows it is exactly what
//! was appended.

use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::records::disagrees;
use super::{BundleError, Method, Plan};
use crate::bundle::reader::Bundle;
use crate::bundle::records::each_line;
use crate::catalog::Catalog;
use crate::model::SessionMeta;
use crate::provider::capability::bundle::Append;

/// The longest first line read for the id (a run's header is one short line).
const FIRST_LINE: u64 = 4096;

/// Plans the append of the bundle's one record to `a.file` in the directory: the id the
/// session gets there, and the file's length now (refused when the file is not a plain file,
/// or already holds the record).
pub(super) fn plan(bundle: &Bundle, plan: &mut Plan, a: &Append) -> Result<(), BundleError> {
    let name = record(bundle, a)?;
    let file = plan.dir.join(a.file);
    let from_len = plain_len(&file)?;
    let first = bundle.stream(&name, |r| {
        let mut line = Vec::new();
        r.take(FIRST_LINE)
            .read_until(b'\n', &mut line)
            .map_err(|e| BundleError::Invalid(format!("{name} cannot be read ({e})")))?;
        Ok(String::from_utf8_lossy(&line).into_owned())
    })?;
    let appended = (a.appended)(&file, &first).map_err(BundleError::Target)?;
    if let Some(line) = appended.repeats {
        return Err(BundleError::Exists(format!(
            "{} holds this run already (line {line}, \"{}\"); it is never appended twice: \
             restore into another directory",
            file.display(),
            first.trim_end().trim_start_matches("# ")
        )));
    }
    let (old, _) = plan.sessions[0].clone();
    plan.ids.insert(old.clone(), appended.id.clone());
    plan.sessions[0].1 = appended.id;
    let size = entry_size(bundle, &name);
    plan.method = Method::Append {
        file,
        from_len,
        bytes: a.separator.len() as u64 + size,
    };
    Ok(())
}

/// The archive name of the bundle's one record, the main session's: the append restores a
/// single session.
fn record(bundle: &Bundle, a: &Append) -> Result<String, BundleError> {
    let m = &bundle.manifest;
    let natives: Vec<_> = m.native_files().collect();
    match natives.as_slice() {
        [one] if m.subagents.is_empty() && one.session.as_ref() == Some(&m.session.id) => {
            Ok(one.path.clone())
        }
        _ => Err(BundleError::Unsafe(format!(
            "the bundle holds {} records of the agent's own and {} subagents, where {} is one \
             record of one session; {}",
            natives.len(),
            m.subagents.len(),
            a.what,
            super::records::REFUSED
        ))),
    }
}

fn entry_size(bundle: &Bundle, name: &str) -> u64 {
    let files = &bundle.manifest.files;
    files.iter().find(|f| f.path == name).map_or(0, |f| f.size)
}

/// The length of `file` (0 when absent); a link, a folder or a device there is refused.
fn plain_len(file: &Path) -> Result<u64, BundleError> {
    match std::fs::symlink_metadata(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(BundleError::Target(format!(
            "{} cannot be used: {e}",
            file.display()
        ))),
        Ok(m) if m.is_file() => Ok(m.len()),
        Ok(_) => Err(BundleError::Target(format!(
            "{} is not a plain file (a link, a folder or a device); the record is appended \
             only to a plain file: move it away, or choose another directory",
            file.display()
        ))),
    }
}

/// Refuses an append to a file a running agent is writing (a run of it live): the two
/// writes would interleave.
pub(super) fn refuse_live(
    plan: &Plan,
    catalog: &Catalog,
    sessions: &[SessionMeta],
) -> Result<(), BundleError> {
    let Method::Append { file, .. } = &plan.method else {
        return Ok(());
    };
    let live = sessions
        .iter()
        .filter(|s| s.provider == plan.provider && &s.source_path == file)
        .find(|s| s.live || catalog.is_live(s));
    match live {
        Some(s) => Err(BundleError::Live {
            provider: plan.provider,
            id: s.id.clone(),
        }),
        None => Ok(()),
    }
}

/// The file's length as the token binds it (a file grown since the preview is not the one
/// consented to).
pub(super) fn state(file: &Path) -> String {
    match plain_len(file) {
        Ok(len) => format!("{len} bytes"),
        Err(e) => e.to_string(),
    }
}

/// Every line of the record as the agent's `check_line` wants it.
pub(super) fn check(bundle: &Bundle, a: &Append) -> Result<(), BundleError> {
    let name = record(bundle, a)?;
    let mut number = 0;
    bundle.stream(&name, |r| {
        each_line(r, &name, &mut |line| {
            number += 1;
            (a.check_line)(number, line).map_err(|says| disagrees(&name, says))
        })
    })
}

/// Appends the record as planned: refused, with nothing written, when the file changed
/// since the plan; taken back when the append fails part way.
pub(super) fn write(bundle: &Bundle, plan: &Plan, a: &Append) -> Result<(), BundleError> {
    let Method::Append { file, from_len, .. } = &plan.method else {
        return Err(BundleError::Invalid(
            "the restore was not planned as an append".into(),
        ));
    };
    let name = &record(bundle, a)?;
    let mut f = open_at(file, *from_len)?;
    let mut out = Hashed::new(&mut f);
    let written = out
        .write_all(a.separator)
        .map_err(|e| io(file, e))
        .and_then(|()| {
            bundle.stream(name, |r| {
                std::io::copy(r, &mut out)
                    .map(drop)
                    .map_err(|e| io(file, e))
            })
        })
        .and_then(|()| out.file.sync_all().map_err(|e| io(file, e)));
    let Err(e) = written else {
        return Ok(());
    };
    let tail = out.tail();
    drop(f);
    let state = match undo(file, *from_len, &tail) {
        Ok(()) => format!("{} was cut back to its {from_len} bytes", file.display()),
        Err(why) => format!("{why}; it was left as it is"),
    };
    Err(BundleError::Failed {
        what: format!("append {} to {}", a.what, file.display()),
        reason: e.to_string(),
        state,
    })
}

fn io(file: &Path, e: std::io::Error) -> BundleError {
    BundleError::Io {
        path: file.to_path_buf(),
        reason: e.to_string(),
    }
}

/// `file` opened for appending (created when absent, never through a link), refused as
/// changed unless it is a plain file of `from_len` bytes now.
fn open_at(file: &Path, from_len: u64) -> Result<std::fs::File, BundleError> {
    let mut open = std::fs::OpenOptions::new();
    open.append(true).create(from_len == 0);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut open, libc::O_NOFOLLOW);
    let f = open.open(file).map_err(|e| io(file, e))?;
    let meta = f.metadata().map_err(|e| io(file, e))?;
    if !meta.is_file() || meta.len() != from_len {
        return Err(BundleError::Target(format!(
            "{} changed since the restore was planned ({} bytes, not {from_len}): nothing was \
             written; preview the restore again",
            file.display(),
            meta.len()
        )));
    }
    Ok(f)
}

/// What was appended: its length and SHA-256.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Tail {
    pub len: u64,
    pub sha256: [u8; 32],
}

/// A writer that keeps the length and hash of what reached the file.
struct Hashed<'a> {
    file: &'a mut std::fs::File,
    len: u64,
    hash: Sha256,
}

impl<'a> Hashed<'a> {
    fn new(file: &'a mut std::fs::File) -> Self {
        Hashed {
            file,
            len: 0,
            hash: Sha256::new(),
        }
    }

    fn tail(&self) -> Tail {
        Tail {
            len: self.len,
            sha256: self.hash.clone().finalize().into(),
        }
    }
}

impl Write for Hashed<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.hash.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Cuts `file` back to `from_len` bytes, only when it is `from_len` bytes and then exactly
/// `tail`: anything else (the agent wrote meanwhile) is left as it is, with why.
pub(super) fn undo(file: &Path, from_len: u64, tail: &Tail) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{} cannot be cut back: {e}", file.display());
    let mut open = std::fs::OpenOptions::new();
    open.read(true).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut open, libc::O_NOFOLLOW);
    let mut f = open.open(file).map_err(fail)?;
    let len = f.metadata().map_err(fail)?.len();
    let ours = len == from_len + tail.len && {
        f.seek(SeekFrom::Start(from_len)).map_err(fail)?;
        let mut hash = Sha256::new();
        std::io::copy(&mut (&mut f).take(tail.len), &mut hash).map_err(fail)?;
        <[u8; 32]>::from(hash.finalize()) == tail.sha256
    };
    if !ours {
        return Err(format!(
            "{} is no longer what the restore left (its end changed)",
            file.display()
        ));
    }
    f.set_len(from_len).map_err(fail)?;
    f.sync_all().map_err(fail)
}

/// The file appended to (for the preview's note).
pub(super) fn note(plan: &Plan) -> Option<String> {
    let Method::Append {
        file,
        from_len,
        bytes,
    } = &plan.method
    else {
        return None;
    };
    let create = if *from_len == 0 && std::fs::symlink_metadata(file).is_err() {
        " (creating it)"
    } else {
        ""
    };
    Some(format!(
        "append {bytes} bytes to {}{create}; its {from_len} bytes stay as they are",
        file.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tail_of(bytes: &[u8]) -> Tail {
        Tail {
            len: bytes.len() as u64,
            sha256: Sha256::digest(bytes).into(),
        }
    }

    /// A file holding `bytes`, in a folder of its own.
    fn holding(bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("h.md");
        std::fs::write(&file, bytes).unwrap();
        (dir, file)
    }

    #[test]
    fn undo_cuts_back_what_was_appended() {
        let (_dir, file) = holding(b"before\nappended\n");
        undo(&file, 7, &tail_of(b"appended\n")).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"before\n");
    }

    #[test]
    fn undo_leaves_a_file_whose_end_changed() {
        // Same length, other bytes; then longer.
        let (_dir, file) = holding(b"before\nAPPENDED\n");
        let err = undo(&file, 7, &tail_of(b"appended\n")).unwrap_err();
        assert!(err.contains("its end changed"), "{err}");
        assert_eq!(std::fs::read(&file).unwrap(), b"before\nAPPENDED\n");
        std::fs::write(&file, b"before\nappended\nmore\n").unwrap();
        undo(&file, 7, &tail_of(b"appended\n")).unwrap_err();
        assert_eq!(std::fs::read(&file).unwrap(), b"before\nappended\nmore\n");
    }

    #[test]
    fn a_file_grown_since_the_plan_is_refused_unwritten() {
        let (dir, file) = holding(b"before\nmore\n");
        let err = open_at(&file, 7).unwrap_err();
        assert!(err.to_string().contains("changed since"), "{err}");
        assert_eq!(std::fs::read(&file).unwrap(), b"before\nmore\n");
        // A file that appeared where none was planned.
        let new = dir.path().join("new.md");
        std::fs::write(&new, b"x").unwrap();
        assert!(open_at(&new, 0).is_err());
    }
}
