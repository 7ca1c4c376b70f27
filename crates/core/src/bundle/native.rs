//! The agent's own records of a session and its subagents, as a complete bundle carries them
//! (the layout is [`super::manifest::native_layout`]):
//!
//! - Claude Code: the transcript, the folder beside it (`subagents/`, `tool-results/`,
//!   `custom-title.json`) and 2.0.x subagent files lying flat beside it.
//! - Codex: each rollout (the session's and its subagents'), by its path under the root.
//! - OpenCode: each session as `opencode export` writes it ([`super::opencode`]).
//!
//! Files are read later, when the bundle is written; a transcript that is still growing is
//! cut at the end of its last whole line as it was when listed.

use std::path::{Path, PathBuf};

use super::manifest::{check_name, native_layout};
use crate::catalog::Catalog;
use crate::model::{ProviderKind, SessionMeta};
use crate::provider::files::Walker;

/// Where a native file's bytes come from.
#[derive(Debug)]
pub(crate) enum Source {
    /// A store file, its first `len` bytes.
    File { path: PathBuf, len: u64 },
    /// Built here (an OpenCode export document).
    Bytes(Vec<u8>),
}

#[derive(Debug)]
pub(crate) struct NativeFile {
    pub name: String,
    pub session: String,
    pub source: Source,
}

/// The native files of `session` and `children`, and notes on what could not be included.
pub(crate) fn collect(
    catalog: &Catalog,
    session: &SessionMeta,
    children: &[&SessionMeta],
) -> Result<(Vec<NativeFile>, Vec<String>), String> {
    let mut files = Vec::new();
    let mut notes = Vec::new();
    let kind = session.provider;
    let root = root_of(catalog, kind, &session.source_path).ok_or_else(|| {
        format!(
            "{} is not under a {kind} root",
            session.source_path.display()
        )
    })?;
    let mut add = |name: String, owner: &str, source: Source, notes: &mut Vec<String>| {
        if check_name(&name).is_ok() && native_layout(kind, &name, owner) {
            files.push(NativeFile {
                name,
                session: owner.to_owned(),
                source,
            });
        } else {
            notes.push(format!(
                "{name} was left out: its name is not one a bundle may hold"
            ));
        }
    };
    match kind {
        ProviderKind::Claude => {
            let side = session.source_path.with_extension("");
            add(
                format!("native/claude/{}.jsonl", session.id),
                &session.id,
                whole_lines(&session.source_path)?,
                &mut notes,
            );
            for (path, rel) in folder_files(&side) {
                let owner = nested_owner(&rel).unwrap_or(session.id.as_str()).to_owned();
                let source = if rel.ends_with(".jsonl") {
                    whole_lines(&path)?
                } else {
                    file(&path)?
                };
                add(
                    format!("native/claude/{}/{rel}", session.id),
                    &owner,
                    source,
                    &mut notes,
                );
            }
            for c in children
                .iter()
                .filter(|c| !c.source_path.starts_with(&side))
            {
                add(
                    format!("native/claude/{}.jsonl", c.id),
                    &c.id,
                    whole_lines(&c.source_path)?,
                    &mut notes,
                );
            }
        }
        ProviderKind::Codex => {
            for s in std::iter::once(session).chain(children.iter().copied()) {
                let rel = s.source_path.strip_prefix(&root).map_err(|_| {
                    format!(
                        "{} is not under {}",
                        s.source_path.display(),
                        root.display()
                    )
                })?;
                let rel = rel.to_string_lossy().replace('\\', "/");
                let source = if rel.ends_with(".jsonl") {
                    whole_lines(&s.source_path)?
                } else {
                    file(&s.source_path)?
                };
                add(format!("native/codex/{rel}"), &s.id, source, &mut notes);
            }
        }
        ProviderKind::Opencode => {
            for s in std::iter::once(session).chain(children.iter().copied()) {
                match super::opencode::document(&root, &s.id) {
                    Ok(doc) => {
                        let bytes = serde_json::to_vec_pretty(&doc).map_err(|e| e.to_string())?;
                        add(
                            format!("native/opencode/{}.json", s.id),
                            &s.id,
                            Source::Bytes(bytes),
                            &mut notes,
                        );
                    }
                    Err(why) => notes.push(format!("{}'s records were left out: {why}", s.id)),
                }
            }
        }
    }
    Ok((files, notes))
}

/// The store root (of the provider's roots) holding `path`.
pub(crate) fn root_of(catalog: &Catalog, kind: ProviderKind, path: &Path) -> Option<PathBuf> {
    crate::actions::trash::root_of(catalog, kind, path).map(Path::to_path_buf)
}

/// `subagents/agent-x.jsonl` (or `.meta.json`) belongs to the subagent `agent-x`.
fn nested_owner(rel: &str) -> Option<&str> {
    let file = rel.strip_prefix("subagents/")?;
    file.strip_suffix(".meta.json")
        .or_else(|| file.strip_suffix(".jsonl"))
        .filter(|id| super::manifest::is_claude_agent(id))
}

/// Every regular file below `dir` (links not followed), with its path relative to `dir`
/// (`/`-separated), in name order.
fn folder_files(dir: &Path) -> Vec<(PathBuf, String)> {
    Walker::default()
        .files(dir, |_| true)
        .into_iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(dir)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            Some((p, rel))
        })
        .collect()
}

fn file(path: &Path) -> Result<Source, String> {
    let len = std::fs::metadata(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .len();
    Ok(Source::File {
        path: path.to_path_buf(),
        len,
    })
}

/// A JSONL file up to the end of its last whole line: an agent may be writing the next one.
fn whole_lines(path: &Path) -> Result<Source, String> {
    use std::io::{Read, Seek, SeekFrom};
    let fail = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let mut f = crate::provider::files::open_regular(path).map_err(fail)?;
    let size = f.metadata().map_err(fail)?.len();
    let mut end = size;
    let mut buf = vec![0u8; 64 << 10];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        f.seek(SeekFrom::Start(start)).map_err(fail)?;
        f.read_exact(chunk).map_err(fail)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            end = start + i as u64 + 1;
            break;
        }
        end = start;
    }
    Ok(Source::File {
        path: path.to_path_buf(),
        len: end,
    })
}
