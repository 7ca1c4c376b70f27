//! Aider's runs for the trash engine (`capability::trash`). A run is a part of its repository's
//! `.aider.chat.history.md`, which holds the other runs too, so both modes plan one
//! [`Step::Cut`]: the run's bytes out of the file, the others left byte for byte; the trash
//! keeps the run as a file of its own in the OS trash (beside the history's name, so it says
//! where it came from), the permanent delete keeps nothing.

use std::path::PathBuf;

use crate::capability::trash::{self, Ask, Cut, Planned, Refusal, Step, Trash};
use crate::capability::Capability;

pub(super) const TRASH: Trash = Trash {
    trash: Capability::Has(plan),
    permanent: Capability::Has(plan),
    own_commands: false,
    archive_rows: None,
    delete_rows: None,
};

/// The cut of the session's run, measured as the file is now.
fn plan(ask: &Ask) -> Result<Planned, Refusal> {
    let s = ask.session;
    let file = &s.source_path;
    let run = super::run_of(s).map_err(Refusal::Stale)?;
    let read = |e: std::io::Error| Refusal::Stale(format!("cannot read {}: {e}", file.display()));
    let mut f = crate::files::open_regular(file).map_err(read)?;
    let (a, b) = (&mut std::io::sink(), &mut std::io::sink());
    let m = trash::split(&mut f, run.start, run.end, a, b).map_err(read)?;
    let keep_as = match ask.mode {
        trash::Mode::Trash => Some(keep_path(ask)?),
        trash::Mode::Permanent => None,
    };
    let mut notes = vec![format!(
        "the Aider run's {} bytes (from line {}, \"{}\") are cut out of {}; its other runs \
         stay byte for byte",
        run.end - run.start,
        run.line,
        run.header.trim_start_matches("# "),
        file.display()
    )];
    if let Some(keep) = &keep_as {
        notes.push(format!(
            "the run goes to the trash as {}: to get it back, restore that file and append \
             it to {}",
            keep.display(),
            file.display()
        ));
    }
    let cut = Cut {
        file: file.clone(),
        start: run.start,
        end: run.end,
        file_bytes: m.bytes,
        file_sha256: m.file_sha256,
        range_sha256: m.range_sha256,
        keep_as,
    };
    Ok((vec![Step::Cut(cut)], notes))
}

/// `<history file name>.<run id>.md` beside the history: the file that goes to the trash.
fn keep_path(ask: &Ask) -> Result<PathBuf, Refusal> {
    let file = &ask.session.source_path;
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    let folder = file.parent().unwrap_or(ask.root);
    let keep = trash::child(folder, &format!("{name}.{}.md", ask.session.id))
        .ok_or_else(|| Refusal::Unsupported(format!("{} has no file name", file.display())))?;
    if std::fs::symlink_metadata(&keep).is_ok() {
        return Err(Refusal::Unsupported(format!(
            "{} is already there, and the Aider run would be kept under that name: move it \
             away and try again",
            keep.display()
        )));
    }
    Ok(keep)
}
