//! GitHub Copilot CLI in a bundle (`docs/bundle-format.md`): a session's file under
//! `native/copilot/` by its path under the root — `session-state/<id>/events.jsonl` (1.0.x),
//! `session-state/<id>.jsonl` (a flat 0.0.3xx log) or
//! `history-session-state/session_<id>_<ms>.json` (≤ 0.0.341, which a newer CLI imports when
//! it resumes the session) — restored to the same path, a log's `session.start` checked to
//! name the session. Only that file is carried: `workspace.yaml` (YAML, which a restore cannot rewrite)
//! names the old directory and id, and the CLI writes it again from the log when it resumes
//! the session; checkpoints and file backups are of the old working tree.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::capability::bundle::{
    no_alias, record, shown_value, uuid_from, Bundles, Export, Fault, Files, Flow, Line, Native,
    NativeFile, Restore, Writes,
};
use crate::capability::Capability;

pub(super) const BUNDLES: Bundles = Bundles {
    export,
    layout,
    restore: Restore {
        lacks: None,
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
            markers: None,
        }),
    },
};

/// The session's file by its path under the root: an event log to its last whole line (the
/// CLI may be writing the next), a history document whole.
fn export(e: &Export) -> Result<Vec<Native>, String> {
    let s = e.session;
    let rel = s
        .source_path
        .strip_prefix(e.root)
        .map_err(|_| format!("{} is not in {}", s.source_path.display(), e.root.display()))?
        .to_string_lossy()
        .replace('\\', "/");
    Ok(vec![Native::File(NativeFile {
        source: record(&s.source_path, &rel)?,
        rel,
        session: s.id.clone(),
    })])
}

/// `session-state/<id>/events.jsonl`, `session-state/<id>.jsonl` or
/// `history-session-state/session_<id>_<ms>.json`.
fn layout(rest: &str, owner: &str) -> bool {
    let state = rest.strip_prefix("session-state/");
    let history = rest
        .strip_prefix("history-session-state/")
        .and_then(super::history::parse_name);
    state == Some(format!("{owner}/{}", super::EVENTS).as_str())
        || state == Some(format!("{owner}.jsonl").as_str())
        || history.is_some_and(|(id, _)| id == owner)
}

/// Files go where they were under the root.
fn base(root: &Path, _dir: &str) -> PathBuf {
    root.to_path_buf()
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
