//! Claude Code in a bundle (`docs/bundle-format.md`): the transcript, the folder beside it
//! (`subagents/`, `tool-results/`, `custom-title.json`) and 2.0.x subagent files lying flat
//! beside it, under `native/claude/`. Restored as files into the project folder Claude Code
//! gives the new directory ([`claude_project`]), each line's `sessionId` checked first.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::ids::is_subagent_id as is_claude_agent;
use crate::capability::bundle::{
    folder_files, record, shown_value, uuid_from, whole_lines, Bundles, Export, Fault, Files, Flow,
    Line, Native, NativeFile, Restore, Writes,
};
use crate::capability::Capability;
use crate::ids::is_uuid;

pub const BUNDLES: Bundles = Bundles {
    export,
    layout,
    restore: Restore {
        lacks: None,
        // 2.1.x also snapshots it in its environment attachment…
        dir_keys: &["cwd", "workingDirectory"],
        // …and writes it into the history there.
        dir_markers: &["Primary working directory: "],
        copy: Capability::Has(copy_id),
        alias,
        writes: Writes::Files(Files {
            base,
            check_line,
            index: None,
            markers: None,
        }),
    },
};

/// The session's transcript, its folder and its flat 2.0.x subagents.
fn export(e: &Export) -> Result<Vec<Native>, String> {
    let session = e.session;
    let side = session.source_path.with_extension("");
    let file = |rel: String, owner: &str, source| {
        Native::File(NativeFile {
            rel,
            session: owner.to_owned(),
            source,
        })
    };
    let mut out = vec![file(
        format!("{}.jsonl", session.id),
        &session.id,
        whole_lines(&session.source_path)?,
    )];
    for (path, rel) in folder_files(&side) {
        let owner = nested_owner(&rel).unwrap_or(session.id.as_str()).to_owned();
        let source = record(&path, &rel)?;
        out.push(file(format!("{}/{rel}", session.id), &owner, source));
    }
    for c in e
        .children
        .iter()
        .filter(|c| !c.source_path.starts_with(&side))
    {
        let source = whole_lines(&c.source_path)?;
        out.push(file(format!("{}.jsonl", c.id), &c.id, source));
    }
    Ok(out)
}

/// `subagents/agent-x.jsonl` (or `.meta.json`) belongs to the subagent `agent-x`.
fn nested_owner(rel: &str) -> Option<&str> {
    let file = rel.strip_prefix("subagents/")?;
    file.strip_suffix(".meta.json")
        .or_else(|| file.strip_suffix(".jsonl"))
        .filter(|id| is_claude_agent(id))
}

/// `<id>.jsonl`, `<id>/…` (its folder: subagents, tool results, title), `agent-<x>.jsonl` (a
/// 2.0.x subagent) or `<parent>/subagents/agent-<x>.jsonl`/`.meta.json` (a 2.1.x one).
fn layout(rest: &str, owner: &str) -> bool {
    if rest == format!("{owner}.jsonl") {
        true
    } else if is_claude_agent(owner) {
        nested_agent(rest, owner)
    } else {
        rest.strip_prefix(owner)
            .and_then(|r| r.strip_prefix('/'))
            .is_some_and(|r| !r.is_empty())
    }
}

/// A 2.1.x subagent's files: `<parent>/subagents/<owner>.jsonl` or `.meta.json`.
fn nested_agent(rest: &str, owner: &str) -> bool {
    let mut parts = rest.split('/');
    let (Some(parent), Some("subagents"), Some(file), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    is_uuid(parent) && (file == format!("{owner}.jsonl") || file == format!("{owner}.meta.json"))
}

/// The project folder of the directory `dir` in the store at `root`.
fn base(root: &Path, dir: &str) -> PathBuf {
    root.join("projects").join(claude_project(dir))
}

/// A copy's id: a new UUID, or for a subagent `agent-` and as many new hex digits as it had.
fn copy_id(old: &str, random: &[u8]) -> String {
    if is_claude_agent(old) {
        let len = old.len() - "agent-".len();
        let hex: String = random.iter().map(|b| format!("{b:02x}")).collect();
        return format!("agent-{}", hex.chars().take(len).collect::<String>());
    }
    uuid_from(random)
}

/// A subagent's id appears in its records by its bare hex too.
fn alias(id: &str) -> Option<&str> {
    id.strip_prefix("agent-")
}

/// The one field of a line checked here (the rest is skipped, not parsed).
#[derive(Deserialize)]
struct SessionLine {
    #[serde(rename = "sessionId")]
    session_id: Option<Value>,
}

/// Each line's `sessionId`, where it has one, names the session whose transcript it is: the
/// session itself, or for a subagent's, its parent (as Claude Code writes them).
fn check_line(line: &Line) -> Result<Flow, Fault> {
    let expected = if is_claude_agent(line.owner) {
        line.parent.unwrap_or_default()
    } else {
        line.id
    };
    // A torn or foreign line is no record: Claude Code skips it as well.
    let Ok(SessionLine {
        session_id: Some(said),
    }) = serde_json::from_str::<SessionLine>(line.text)
    else {
        return Ok(Flow::Next);
    };
    if said.as_str() != Some(expected) {
        return Err(Fault::Disagrees(format!(
            "names the session {} on line {}, not {expected}",
            shown_value(&said),
            line.number
        )));
    }
    Ok(Flow::Next)
}

/// Claude Code's project folder name for a directory, as 2.1.332 computes it (`w` and `J$`
/// in its bundle): every UTF-16 unit but an ASCII letter or digit becomes `-`
/// (`/home/bob/my.app` → `-home-bob-my-app`; a character outside the BMP is two units, so two
/// dashes). A name over 200 units keeps its first 200 and gains `-` and a hash of the whole
/// directory: the absolute value of Java's `String.hashCode` over its UTF-16 units (32-bit,
/// wrapping), in base 36.
pub fn claude_project(dir: &str) -> String {
    const MAX: usize = 200;
    let name: String = dir
        .encode_utf16()
        .map(|u| match char::from_u32(u32::from(u)) {
            Some(c) if c.is_ascii_alphanumeric() => c,
            _ => '-',
        })
        .collect();
    if name.len() <= MAX {
        return name;
    }
    let hash = dir
        .encode_utf16()
        .fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(i32::from(u)));
    // ASCII: one byte a unit.
    let kept: String = name.chars().take(MAX).collect();
    format!("{kept}-{}", base36(hash.unsigned_abs()))
}

/// `n.toString(36)` of JavaScript for a whole number.
fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::claude_project;

    /// Directories and the project folders the real Claude Code 2.1.332 made for them
    /// (`claude -p` run in each, offline against a scripted model).
    #[test]
    fn claude_project_folders_are_named_as_claude_code_names_them() {
        let long = "/tmp/exp13/ch/w/a-long.folder name-0123456789abcdefghij-0123456789abcdefghij\
                    /b-long.folder name-0123456789abcdefghij-0123456789abcdefghij\
                    /c-long.folder name-0123456789abcdefghij-0123456789abcdefghij/d-long.folder";
        let digits = "0123456789-".repeat(9);
        let units = format!("/tmp/exp13/ch/w/x/é😀-{}/{}", &digits[..76], &digits[..98]);
        let n = format!("/tmp/exp13/ch/w/y/{}/{}", "n".repeat(150), "m".repeat(60));
        let cases = [
            ("/home/bob/my.app", "-home-bob-my-app".to_owned()),
            (
                "/tmp/exp13/ch/w/café 😀 ünïcode",
                "-tmp-exp13-ch-w-caf------n-code".into(),
            ),
            (
                long,
                "-tmp-exp13-ch-w-a-long-folder-name-0123456789abcdefghij-0123456789abcdefghij\
                 -b-long-folder-name-0123456789abcdefghij-0123456789abcdefghij\
                 -c-long-folder-name-0123456789abcdefghij-0123456789abcdefghij-d-cpy5yh"
                    .into(),
            ),
            // 197 units: no hash yet.
            (
                units.as_str(),
                format!("-tmp-exp13-ch-w-x-----{}-{}", &digits[..76], &digits[..98]),
            ),
            (
                &format!("{units}/ü😀z"),
                format!(
                    "-tmp-exp13-ch-w-x-----{}-{}----7i9q6a",
                    &digits[..76],
                    &digits[..98]
                ),
            ),
            (
                n.as_str(),
                format!(
                    "-tmp-exp13-ch-w-y-{}-{}-ysddrm",
                    "n".repeat(150),
                    "m".repeat(31)
                ),
            ),
        ];
        for (dir, folder) in cases {
            assert_eq!(claude_project(dir), folder, "{dir}");
        }
    }
}
