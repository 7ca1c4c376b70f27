//! Qwen Code's records in a bundle (`capability::bundle`, 0.5+): `chats/<id>.jsonl` and a
//! subagent's `subagents/<parent>/<id>.jsonl` with its `.meta.json`, restored into
//! `projects/<sanitised directory>/`, where `qwen --resume <id>` run in that directory looks.
//! Its records name the directory (`cwd`, and a shell result's `directory`). Proven by Qwen
//! Code's own resume: `crates/cli/tests/bundle_agents.rs`.

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
        // `cwd` on every record; `directory` in a shell result's display (where it ran).
        dir_keys: &["cwd", "directory"],
        dir_markers: &[],
        copy: Capability::Lacks(
            "a Qwen Code session is restored under its own id only: a copy would need its \
             subagents' files and records renamed too",
        ),
        alias: no_alias,
        writes: Writes::Files(Files {
            base,
            check_line,
            index: None,
            markers: None,
        }),
    },
};

fn export(e: &Export) -> Result<Vec<Native>, String> {
    let s = e.session;
    if super::is_legacy(&s.source_path) {
        return Err(format!(
            "{} sessions from before 0.5 cannot be resumed, so a bundle of one has nothing to \
             restore into",
            super::AGENT.label
        ));
    }
    let file = |rel: String, owner: &str, path: &Path| -> Result<Native, String> {
        Ok(Native::File(NativeFile {
            rel: rel.clone(),
            session: owner.to_owned(),
            source: record(path, &rel)?,
        }))
    };
    let mut out = Vec::new();
    let mut add = |m: &agent_sessions_model::SessionMeta| -> Result<(), String> {
        match &m.parent_id {
            Some(parent) => {
                let rel = format!("subagents/{parent}/{}", m.id);
                out.push(file(format!("{rel}.jsonl"), &m.id, &m.source_path)?);
                let meta = m.source_path.with_extension("meta.json");
                if meta.is_file() {
                    out.push(file(format!("{rel}.meta.json"), &m.id, &meta)?);
                }
            }
            None => out.push(file(
                format!("chats/{}.jsonl", m.id),
                &m.id,
                &m.source_path,
            )?),
        }
        Ok(())
    };
    add(s)?;
    for c in e.children {
        add(c)?;
    }
    Ok(out)
}

/// `chats/<owner>.jsonl`, or `subagents/<parent>/<owner>.jsonl` / `.meta.json`.
fn layout(rest: &str, owner: &str) -> bool {
    if rest == format!("chats/{owner}.jsonl") {
        return true;
    }
    let Some((parent, file)) = rest
        .strip_prefix("subagents/")
        .and_then(|r| r.split_once('/'))
    else {
        return false;
    };
    !parent.is_empty() && (file == format!("{owner}.jsonl") || file == format!("{owner}.meta.json"))
}

/// Qwen Code's project folder for a directory: every character but an ASCII letter or digit
/// as `-` (as the fixtures show: `naïve-проект` → `na-ve-------`).
fn base(root: &Path, dir: &str) -> PathBuf {
    let name: String = dir
        .encode_utf16()
        .map(|u| match char::from_u32(u32::from(u)) {
            Some(c) if c.is_ascii_alphanumeric() => c,
            _ => '-',
        })
        .collect();
    root.join("projects").join(name)
}

/// A subagent's records carry its parent's `sessionId`.
fn check_line(line: &Line) -> Result<Flow, Fault> {
    let expected = line.parent.unwrap_or(line.id);
    crate::genai::bundle::check_session(line, expected)
}
