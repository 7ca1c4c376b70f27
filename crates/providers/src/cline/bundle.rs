//! Cline's records in a bundle (`capability::bundle`): a 3.x session's folder
//! `sessions/<id>/` (its `<id>.json`, `<id>.messages.json` and its subagents' files), a 2.x
//! task's folder `tasks/<id>/`. A restore writes them under the store's data folder, and the
//! index Cline lists them from gets their rows or entry ([`super::restore`]).

use std::path::{Path, PathBuf};

use crate::capability::bundle::{
    folder_files, no_alias, record, Bundles, Export, Fault, Files, Flow, Line, Native, NativeFile,
    Restore, Writes,
};
use crate::capability::Capability;

pub(super) const BUNDLES: Bundles = Bundles {
    export,
    layout,
    restore: Restore {
        lacks: None,
        dir_keys: &["cwd", "workspace_root", "cwdOnTaskInitialization"],
        dir_markers: &[super::v2::CWD_MARKER],
        copy: Capability::Lacks(
            "a Cline session is restored under its own id only: its folder, files and index \
             row hold the id",
        ),
        alias: no_alias,
        writes: Writes::Files(Files {
            base,
            check_line,
            index: Some(super::restore::INDEX),
            markers: None,
        }),
    },
};

/// The folder a session's files are in: `sessions/<id>` or `tasks/<id>`, for the archive.
fn folder_of(e: &Export) -> Result<(PathBuf, String), String> {
    let s = e.session;
    let dir = s
        .source_path
        .parent()
        .ok_or_else(|| format!("{} has no folder", s.source_path.display()))?;
    let kind = dir
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .filter(|k| matches!(*k, "sessions" | "tasks"))
        .ok_or_else(|| format!("{} is not in a Cline store", s.source_path.display()))?;
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    Ok((
        dir.to_path_buf(),
        format!("{kind}/{}", name.unwrap_or_default()),
    ))
}

fn export(e: &Export) -> Result<Vec<Native>, String> {
    let s = e.session;
    let (dir, rel) = folder_of(e)?;
    if s.parent_id.is_some() {
        // A subagent alone: its own messages file.
        let name = s
            .source_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        return Ok(vec![Native::File(NativeFile {
            rel: format!("{rel}/{name}"),
            session: s.id.clone(),
            source: record(&s.source_path, &name)?,
        })]);
    }
    let mut out = Vec::new();
    for (path, name) in folder_files(&dir) {
        // A subagent's file is its own record; the rest of the folder is the session's.
        let owner = e
            .children
            .iter()
            .find(|c| c.source_path == path)
            .map_or_else(|| s.id.clone(), |c| c.id.clone());
        out.push(Native::File(NativeFile {
            rel: format!("{rel}/{name}"),
            session: owner,
            source: record(&path, &name)?,
        }));
    }
    Ok(out)
}

/// `sessions/<owner>/…`, `tasks/<owner>/…`, or a subagent's `sessions/<parent>/agent_….messages.json`.
fn layout(rest: &str, owner: &str) -> bool {
    let in_folder = |kind: &str, id: &str| {
        rest.strip_prefix(kind)
            .and_then(|r| r.strip_prefix(id))
            .and_then(|r| r.strip_prefix('/'))
            .is_some_and(|name| !name.is_empty() && !name.contains('/'))
    };
    match owner.split_once("__") {
        Some((parent, own)) => {
            in_folder("sessions/", parent) && rest.ends_with(&format!("/{own}.messages.json"))
        }
        None => in_folder("sessions/", owner) || in_folder("tasks/", owner),
    }
}

/// The data folder: the CLI's `data/`, or the VS Code extension's folder itself (it keeps
/// `tasks/` and `state/` there, and no `data/`).
fn base(root: &Path, _dir: &str) -> PathBuf {
    let data = root.join("data");
    let extension = !data.exists() && (root.join("tasks").is_dir() || root.join("state").is_dir());
    if extension {
        root.to_path_buf()
    } else {
        data
    }
}

/// Cline's records are JSON documents, not JSONL: the engine checks no line of them.
fn check_line(_: &Line) -> Result<Flow, Fault> {
    Ok(Flow::Done)
}
