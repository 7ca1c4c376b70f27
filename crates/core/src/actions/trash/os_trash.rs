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
/// are Linux, Windows and macOS; the `trash` crate restores on the first two).
#[cfg(not(target_os = "macos"))]
pub(super) fn restore(items: &[Item]) -> Result<(), String> {
    if items.is_empty() {
        return Ok(());
    }
    let in_trash = trash::os_limited::list().map_err(|e| format!("cannot list the trash: {e}"))?;
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for item in items {
        // The newest entry with this original path is the one just moved.
        let newest = in_trash
            .iter()
            .filter(|t| t.original_path() == item.path)
            .max_by_key(|t| t.time_deleted);
        match newest {
            Some(t) => found.push(t.clone()),
            None => missing.push(shown(&item.path)),
        }
    }
    trash::os_limited::restore_all(found).map_err(|e| {
        format!("{e}; the files are in the trash, from where they can be restored by hand")
    })?;
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "not found in the trash to put back: {}",
            missing.join(", ")
        ))
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
