//! Aider in a bundle (`docs/bundle-format.md`): a run as the bytes of the history file it
//! takes up, header line first, under `native/aider/<id>.md`.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::history::{self, Run, HEADER};
use crate::capability::bundle::{
    Append, Appended, Bundles, Export, Native, NativeFile, Restore, Source, Writes,
};
use crate::capability::Capability;

pub const BUNDLES: Bundles = Bundles {
    export,
    layout: |rest, owner| rest == format!("{owner}.md"),
    restore: Restore {
        lacks: None,
        dir_keys: &[],
        dir_markers: &[],
        copy: Capability::Lacks("an Aider run is restored as it is, never as a copy"),
        alias: crate::capability::bundle::no_alias,
        writes: Writes::Append(Append {
            file: super::find::FILE_NAME,
            what: "an Aider run",
            check_line,
            appended,
            // Aider starts each run with "\n# aider chat started at …": a blank line first.
            separator: b"\n",
        }),
    },
};

/// A run's record is one run: its header first, no other header (each would be a run of
/// its own, unknown to the manifest).
fn check_line(number: usize, line: &[u8]) -> Result<(), String> {
    let header = line.starts_with(HEADER.as_bytes());
    match (number, header) {
        (1, false) => Err(format!("does not start with \"{}\"", HEADER.trim_end())),
        (1, true) | (_, false) => Ok(()),
        (n, true) => Err(format!("starts a second Aider run on line {n}")),
    }
}

/// The id of the run headed `first` once appended to `file`: it depends on the folder, the
/// file's name and how many runs of the file share the header (`Run::id`).
fn appended(file: &Path, first: &str) -> Result<Appended, String> {
    let header = first.trim_end();
    let runs = match std::fs::symlink_metadata(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        _ => history::read(file, 0, 1, &[], None)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?,
    };
    let same: Vec<u64> = runs
        .iter()
        .filter(|(r, _)| r.header == header)
        .map(|(r, _)| r.line)
        .collect();
    let run = Run {
        header: header.to_owned(),
        repeat: same.len() as u32,
        ..Run::default()
    };
    Ok(Appended {
        id: run.id(file),
        repeats: same.first().copied(),
    })
}

/// The run's bytes, from its header to its end.
fn export(e: &Export) -> Result<Vec<Native>, String> {
    let run = super::run_of(e.session)?;
    let path = &e.session.source_path;
    let fail = |err: std::io::Error| format!("cannot read {}: {err}", path.display());
    let mut f = crate::files::open_regular(path).map_err(fail)?;
    f.seek(SeekFrom::Start(run.start)).map_err(fail)?;
    let mut bytes = Vec::new();
    f.take(run.end - run.start)
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    Ok(vec![Native::File(NativeFile {
        rel: format!("{}.md", e.session.id),
        session: e.session.id.clone(),
        source: Source::Bytes(bytes),
    })])
}
