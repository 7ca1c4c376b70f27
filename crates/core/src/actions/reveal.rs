//! Reveal a session's source file in the system file manager.

use std::path::Path;
use std::process::Command;

use crate::error::Error;

/// Opens the file manager at `path` (selecting it where the platform can).
pub fn reveal(path: &Path) -> Result<(), Error> {
    let mut cmd = if cfg!(target_os = "macos") {
        let mut c = Command::new("open");
        c.arg("-R").arg(path);
        c
    } else if cfg!(windows) {
        let mut c = Command::new("explorer");
        c.arg(format!("/select,{}", path.display()));
        c
    } else {
        // xdg-open cannot select a file: open its folder.
        let mut c = Command::new("xdg-open");
        c.arg(path.parent().unwrap_or(path));
        c
    };
    cmd.spawn().map(|_| ()).map_err(|e| Error::io(path, e))
}
