//! GitHub Copilot CLI in a bundle (`docs/bundle-format.md`): a session's event log under
//! `native/copilot/` — `<id>/events.jsonl` (1.0.x) or `<id>.jsonl` (a flat 0.0.3xx log) —
//! restored as that file into `session-state/`, its `session.start` checked to name the
//! session. Only the log is carried: `workspace.yaml` (YAML, which a restore cannot rewrite)
//! names the old directory and id, and the CLI writes it again from the log when it resumes
//! the session; checkpoints and file backups are of the old working tree.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::capability::bundle::{
    no_alias, shown_value, uuid_from, whole_lines, Bundles, Export, Fault, Files, Flow, Line,
    Native, NativeFile, Restore, Writes,
};
use crate::capability::Capability;

pub(super) const BUNDLES: Bundles = Bundles {
    export,
    layout,
    restore: Restore {
        // `session.start` and `session.resume` keep it in `context.cwd`…
        dir_keys: &["cwd"],
        // …and the system prompt names it.
        dir_markers: &["Current working directory: "],
        copy: Capability::Has(|_, random| uuid_from(random)),
        alias: no_alias,
        writes: Writes::Files(Files {
            base,
            check_line,
            index: None,
        }),
    },
};

/// The session's event log (to its last whole line: the CLI may be writing the next).
fn export(e: &Export) -> Result<Vec<Native>, String> {
    let s = e.session;
    let rel = if s
        .source_path
        .file_name()
        .is_some_and(|n| n == super::EVENTS)
    {
        format!("{}/{}", s.id, super::EVENTS)
    } else if super::is_history(s) {
        return Err(format!(
            "{} is a GitHub Copilot CLI ≤ 0.0.341 history file; bundles carry event logs \
             (0.0.342 and later): resume it once with a newer copilot, which carries it over",
            s.source_path.display()
        ));
    } else {
        format!("{}.jsonl", s.id)
    };
    Ok(vec![Native::File(NativeFile {
        rel,
        session: s.id.clone(),
        source: whole_lines(&s.source_path)?,
    })])
}

/// `<id>/events.jsonl` or `<id>.jsonl`.
fn layout(rest: &str, owner: &str) -> bool {
    rest == format!("{owner}/{}", super::EVENTS) || rest == format!("{owner}.jsonl")
}

/// Every session's files go below `session-state/`.
fn base(root: &Path, _dir: &str) -> PathBuf {
    root.join(super::SESSION_STATE)
}

/// `session.start` names the session the log is (the other events name none).
fn check_line(line: &Line) -> Result<Flow, Fault> {
    // A torn or foreign line is no event: the CLI skips it as well.
    let Ok(event) = serde_json::from_str::<Value>(line.text) else {
        return Ok(Flow::Next);
    };
    if event.get("type").and_then(Value::as_str) != Some("session.start") {
        return Ok(Flow::Next);
    }
    let said = &event["data"]["sessionId"];
    if said.as_str() != Some(line.id) {
        return Err(Fault::Disagrees(format!(
            "names the session {} on line {}, not {}",
            shown_value(said),
            line.number,
            line.id
        )));
    }
    Ok(Flow::Next)
}
