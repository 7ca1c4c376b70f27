//! Gemini CLI's records in a bundle (`capability::bundle`): `chats/<session file>` and, for a
//! subagent, `chats/<parent id>/<file>`. A restore writes them into the project folder Gemini
//! 0.29+ keeps the directory's sessions in (`tmp/<slug>/chats/`, [`super::project::place`]),
//! with the ownership markers Gemini writes there, so the session lists with its directory
//! and `gemini --resume` run there finds it (docs/formats.md, "Gemini CLI"). Proven by Gemini
//! CLI's own resume: `crates/cli/tests/bundle_agents.rs`.

use std::path::{Path, PathBuf};

use crate::capability::bundle::{
    no_alias, record, Bundles, Export, Fault, Files, Flow, Line, Native, NativeFile, Restore,
    Writes,
};
use crate::capability::Capability;

pub(super) const BUNDLES: Bundles = Bundles {
    export,
    layout,
    restore: Restore {
        lacks: None,
        dir_keys: &[],
        dir_markers: &[],
        copy: Capability::Lacks(
            "a Gemini CLI session is restored under its own id only: its file name and records \
             hold the id in forms a copy would have to rewrite",
        ),
        alias: no_alias,
        writes: Writes::Files(Files {
            base,
            check_line,
            index: None,
            markers: Some(markers),
        }),
    },
};

fn name_of(path: &Path) -> Result<String, String> {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("{} has no file name", path.display()))
}

fn export(e: &Export) -> Result<Vec<Native>, String> {
    let s = e.session;
    let rel = match &s.parent_id {
        Some(parent) => format!("chats/{parent}/{}", name_of(&s.source_path)?),
        None => format!("chats/{}", name_of(&s.source_path)?),
    };
    let mut out = vec![Native::File(NativeFile {
        rel,
        session: s.id.clone(),
        source: record(&s.source_path, &name_of(&s.source_path)?)?,
    })];
    for c in e.children {
        out.push(Native::File(NativeFile {
            rel: format!("chats/{}/{}", s.id, name_of(&c.source_path)?),
            session: c.id.clone(),
            source: record(&c.source_path, &name_of(&c.source_path)?)?,
        }));
    }
    Ok(out)
}

/// `chats/session-<time>-<first 8 of owner>.json[l]`, or `chats/<parent>/<owner>.json[l]`.
fn layout(rest: &str, owner: &str) -> bool {
    let Some(rest) = rest.strip_prefix("chats/") else {
        return false;
    };
    let stem = rest
        .strip_suffix(".jsonl")
        .or_else(|| rest.strip_suffix(".json"));
    match stem.map(|s| s.split_once('/')) {
        Some(Some((parent, own))) => own == owner && !parent.is_empty() && !parent.contains('/'),
        Some(None) => {
            let short = owner.get(..8).unwrap_or(owner);
            let stem = stem.unwrap_or_default();
            stem.starts_with("session-") && stem.ends_with(&format!("-{short}"))
        }
        None => false,
    }
}

fn base(root: &Path, dir: &str) -> PathBuf {
    super::project::place(root, dir).folder
}

fn markers(root: &Path, dir: &str) -> Vec<(PathBuf, String)> {
    super::project::place(root, dir).markers
}

fn check_line(line: &Line) -> Result<Flow, Fault> {
    crate::genai::bundle::check_session(line, line.id)
}
