//! A [`Cut`]: one session's bytes out of a file that holds other sessions too (an Aider run
//! out of its repository's history). The file is read once, checked to be exactly the bytes
//! planned while the rest is written to a temporary file beside it; the rest is synced and
//! renamed over the file, so a reader sees the old file or the new one, never half of one.
//! In the trash mode the cut bytes are first written to a file of their own and moved to the
//! OS trash, where the user can get them back. Whatever fails leaves the file byte for byte.

use std::io::{BufWriter, Write};
use std::path::Path;

use super::{os_trash, Item, StepFailed, TrashError};
use crate::provider::capability::trash::{split, Cut, Measured};
use crate::provider::files::open_regular;

/// Refuses a cut whose file is no longer exactly as planned (checked before any step runs).
pub(super) fn check(cut: &Cut) -> Result<(), TrashError> {
    let (mut a, mut b) = (std::io::sink(), std::io::sink());
    let measured = open_regular(&cut.file)
        .and_then(|mut f| split(&mut f, cut.start, cut.end, &mut a, &mut b))
        .map_err(|e| TrashError::Stale(format!("cannot read {}: {e}", cut.file.display())))?;
    if cut.is_planned(&measured) {
        return Ok(());
    }
    Err(TrashError::Stale(changed(cut)))
}

fn changed(cut: &Cut) -> String {
    format!(
        "{} is no longer the {} bytes planned (written to since)",
        cut.file.display(),
        cut.file_bytes
    )
}

/// Cuts the range out of the file, keeping it in the trash when the plan says so.
pub(super) fn run(cut: &Cut) -> Result<(), StepFailed> {
    let what = format!(
        "cut bytes {}..{} out of {}",
        cut.start,
        cut.end,
        cut.file.display()
    );
    let fail = |reason: String| StepFailed::new(what.clone(), reason);
    // Only a file made here is ever removed again: one already at that name is not ours.
    let keep = match &cut.keep_as {
        Some(p) => Some(
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(p)
                .map_err(|e| fail(io(p)(e)))?,
        ),
        None => None,
    };
    let (rest, measured, stamp) = write_parts(cut, keep).map_err(|e| {
        remove_keep(cut);
        fail(e)
    })?;
    if !cut.is_planned(&measured) {
        remove_keep(cut);
        return Err(fail(changed(cut)));
    }
    if let Some(keep) = &cut.keep_as {
        if let Err(e) = trash::delete(keep) {
            remove_keep(cut);
            let reason = format!("cannot move {} to the trash: {e}", keep.display());
            return Err(fail(reason));
        }
    }
    // A last look: an agent that wrote to the file since it was read would lose that write.
    if std::fs::metadata(&cut.file).map(|m| stamp_of(&m)).ok() != Some(stamp) {
        return Err(put_back(cut, fail(changed(cut))));
    }
    if let Err(e) = rest.persist(&cut.file) {
        return Err(put_back(cut, fail(e.error.to_string())));
    }
    crate::config::sync_dir(dir_of(&cut.file));
    Ok(())
}

/// The file's length and modification time as read.
type Stamp = (u64, Option<std::time::SystemTime>);

/// The rest of the file in a synced temporary file beside it (with the file's permissions), the
/// cut bytes synced in `keep` if any, what was read, and the file's stamp as read.
fn write_parts(
    cut: &Cut,
    keep: Option<std::fs::File>,
) -> Result<(tempfile::NamedTempFile, Measured, Stamp), String> {
    let file = &cut.file;
    let dir = dir_of(file);
    let mut from = open_regular(file).map_err(io(file))?;
    let meta = from.metadata().map_err(io(file))?;
    let rest = tempfile::Builder::new()
        .prefix(".agent-sessions-cut-")
        .tempfile_in(dir)
        .map_err(io(dir))?;
    let mut kept = keep.map(BufWriter::new);
    let mut sink = std::io::sink();
    let inside: &mut dyn Write = match kept.as_mut() {
        Some(k) => k,
        None => &mut sink,
    };
    let mut out = BufWriter::new(rest.as_file());
    let measured = split(&mut from, cut.start, cut.end, inside, &mut out).map_err(io(file))?;
    out.flush().map_err(io(rest.path()))?;
    drop(out);
    if let (Some(k), Some(p)) = (kept, &cut.keep_as) {
        k.into_inner()
            .map_err(|e| e.into_error())
            .and_then(|f| f.sync_all())
            .map_err(io(p))?;
    }
    let done = rest.as_file();
    done.set_permissions(meta.permissions())
        .and_then(|()| done.sync_all())
        .map_err(io(rest.path()))?;
    Ok((rest, measured, stamp_of(&meta)))
}

/// An I/O error on `p`, said with the path.
fn io(p: &Path) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("{}: {e}", p.display())
}

fn stamp_of(m: &std::fs::Metadata) -> Stamp {
    (m.len(), m.modified().ok())
}

/// Removes the keep file written before it went to the trash (the run is still in the file).
fn remove_keep(cut: &Cut) {
    if let Some(keep) = &cut.keep_as {
        let _ = std::fs::remove_file(keep);
    }
}

/// Takes the run's copy out of the trash again (the file was left as it was); says so when
/// it stays there.
fn put_back(cut: &Cut, mut failed: StepFailed) -> StepFailed {
    let Some(keep) = &cut.keep_as else {
        return failed;
    };
    let item = Item {
        path: keep.clone(),
        dir: false,
        bytes: cut.end - cut.start,
        files: 1,
    };
    match os_trash::restore(std::slice::from_ref(&item)) {
        Ok(()) => {
            let _ = std::fs::remove_file(keep);
        }
        Err(e) => failed.left.push(format!(
            "{} is unchanged, but a copy of the run stays in the trash: {e}",
            cut.file.display()
        )),
    }
    failed
}

fn dir_of(file: &Path) -> &Path {
    file.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}
