//! Moving a session's files to the OS trash all or nothing: the `trash` crate moves them
//! (freedesktop trash on Linux and BSD — `$XDG_DATA_HOME/Trash/files` with a `.trashinfo` per
//! item, or the volume's `.Trash-$uid` — the Finder's Trash on macOS, the Recycle Bin on
//! Windows); when one cannot be moved, those already moved are restored from the trash.

use std::path::Path;

use super::{Item, StepFailed};

/// Moves every item to the trash, or none: a failure puts back the ones already moved.
pub(super) fn move_all(items: &[Item]) -> Result<(), StepFailed> {
    // Everything must still be there before anything moves.
    if let Some(gone) = items
        .iter()
        .find(|i| std::fs::symlink_metadata(&i.path).is_err())
    {
        return Err(StepFailed::new(
            "move the files to the trash",
            format!("{} is no longer there", gone.path.display()),
        ));
    }
    for (n, item) in items.iter().enumerate() {
        if let Err(e) = trash::delete(&item.path) {
            let mut failed = StepFailed::new(
                format!("move {} to the trash", item.path.display()),
                e.to_string(),
            );
            match restore(&items[..n]) {
                Ok(()) if n > 0 => failed
                    .reason
                    .push_str(&format!(" (the {n} moved before it were put back)")),
                Ok(()) => {}
                Err(left) => failed.left.push(left),
            }
            return Err(failed);
        }
    }
    Ok(())
}

/// Puts `items` (moved to the trash by [`move_all`]) back where they were (the desktop builds
/// are Linux, Windows and macOS; the `trash` crate restores on the first two), each on its own,
/// so one that cannot go back (something else is at its place now) leaves the others put back.
/// Err: exactly what is where — each item still in the trash with its place there and why, and
/// those that were put back.
#[cfg(not(target_os = "macos"))]
pub(super) fn restore(items: &[Item]) -> Result<(), String> {
    if items.is_empty() {
        return Ok(());
    }
    let in_trash = match trash::os_limited::list() {
        Ok(list) => list,
        Err(e) => {
            let all: Vec<String> = items.iter().map(|i| shown(&i.path)).collect();
            return Err(format!(
                "cannot list the trash ({e}), so {} are still in it: restore them from there",
                all.join(", ")
            ));
        }
    };
    let mut back = Vec::new();
    let mut left = Vec::new();
    for item in items {
        // The newest entry with this original path is the one just moved.
        let newest = in_trash
            .iter()
            .filter(|t| trashed_as(&item.path).contains(&t.original_path()))
            .max_by_key(|t| t.time_deleted);
        let Some(t) = newest else {
            left.push(format!(
                "{} was not found in the trash to put back",
                shown(&item.path)
            ));
            continue;
        };
        match trash::os_limited::restore_all([t.clone()]) {
            Ok(()) => back.push(shown(&item.path)),
            Err(e) => left.push(format!(
                "{} is still in the trash, at {} ({})",
                shown(&item.path),
                place_in_trash(t),
                why_not_back(&e)
            )),
        }
    }
    if left.is_empty() {
        return Ok(());
    }
    let back = if back.is_empty() {
        "none of the others".to_owned()
    } else {
        back.join(", ")
    };
    Err(format!("{}; put back: {back}", left.join("; ")))
}

/// The original paths the trash may have recorded for `path`: as given, and as the `trash`
/// crate records it (its folder with links resolved), so an item of a store reached through a
/// link is found again.
#[cfg(not(target_os = "macos"))]
fn trashed_as(path: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![path.to_path_buf()];
    let resolved = path
        .parent()
        .and_then(|p| p.canonicalize().ok())
        .zip(path.file_name())
        .map(|(dir, name)| dir.join(name));
    out.extend(resolved);
    out
}

/// Where a trashed item is: on Linux and BSD the file beside its `.trashinfo`
/// (`…/Trash/info/NAME.trashinfo` → `…/Trash/files/NAME`), elsewhere the trash's own name for it.
#[cfg(not(target_os = "macos"))]
fn place_in_trash(t: &trash::TrashItem) -> String {
    let info = Path::new(&t.id);
    let file = info
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".trashinfo"))
        .zip(info.parent().and_then(Path::parent))
        .map(|(name, trash)| trash.join("files").join(name));
    match file {
        Some(file) => shown(&file),
        None => format!("{} in the Recycle Bin", t.id.to_string_lossy()),
    }
}

#[cfg(not(target_os = "macos"))]
fn why_not_back(e: &trash::Error) -> String {
    match e {
        trash::Error::RestoreCollision { path, .. } => {
            format!("something else is at {} now", shown(path))
        }
        e => e.to_string(),
    }
}

/// macOS offers no way to put an item back from the Trash by program.
#[cfg(target_os = "macos")]
pub(super) fn restore(items: &[Item]) -> Result<(), String> {
    if items.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = items.iter().map(|i| shown(&i.path)).collect();
    Err(format!(
        "{} are in the Trash; use Put Back there to restore them",
        names.join(", ")
    ))
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}
