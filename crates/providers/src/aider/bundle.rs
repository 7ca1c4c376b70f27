//! Aider in a bundle (`docs/bundle-format.md`): a run as the bytes of the history file it
//! takes up, header line first, under `native/aider/<id>.md`.

use std::io::{Read, Seek, SeekFrom};

use crate::capability::bundle::{
    Bundles, Documents, Export, Native, NativeFile, Restore, Source, Writes,
};
use crate::capability::Capability;

pub const BUNDLES: Bundles = Bundles {
    export,
    layout: |rest, owner| rest == format!("{owner}.md"),
    restore: Restore {
        lacks: Some(NOT_YET),
        dir_keys: &[],
        dir_markers: &[],
        copy: Capability::Lacks("an Aider run is restored as it is, never as a copy"),
        alias: crate::capability::bundle::no_alias,
        writes: Writes::Documents(Documents {
            what: "an Aider run",
            is_document: |_| false,
            existing: |_, _| None,
            check: |_| Err(NOT_YET.to_owned()),
            finish: |_, _| {},
            way: |_, _, _, _| Err(NOT_YET.to_owned()),
            write: |_, _, _| {
                Err(crate::capability::bundle::Failed {
                    what: "restoring an Aider run".into(),
                    reason: NOT_YET.into(),
                    state: "nothing was written".into(),
                })
            },
        }),
    },
};

const NOT_YET: &str = "restoring an Aider run into a history file is not supported yet";

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
