//! The ids, parents and titles the records themselves carry, checked against the manifest
//! before anything is written. [`Manifest::check`](crate::bundle::Manifest::check) checks the
//! manifest's when the bundle is opened, but what a restore writes comes from the records:
//! OpenCode's rows (ours, or those of its own `opencode import`) take the export document's
//! ids, parent and title; Codex's `threads` row and its edge to a parent take `session_meta`'s;
//! Claude Code reads each line's `sessionId`. So each must say what the manifest says (with the
//! ids a copy gets), or the restore is refused ([`BundleError::Unsafe`]) with nothing written.
//! The preview runs the same checks, so such a bundle is refused before the user confirms.

use serde::Deserialize;
use serde_json::Value;

use super::files::edit_string;
use super::{opencode, Plan};
use crate::bundle::jsontext::edit_values;
use crate::bundle::manifest::is_claude_agent;
use crate::bundle::reader::Bundle;
use crate::bundle::records;
use crate::bundle::BundleError;
use crate::model::ProviderKind;

/// Every record of the bundle agrees with its manifest (see the module doc).
pub(super) fn check(bundle: &Bundle, plan: &Plan) -> Result<(), BundleError> {
    let m = &bundle.manifest;
    if let Some(parent) = &m.session.parent_id {
        // A complete bundle is made of a top-level session; a parent named here would make
        // the restored session a child of one the bundle does not hold.
        return Err(BundleError::Unsafe(format!(
            "the bundle's session {} names the parent {}, which the bundle does not hold (a \
             complete bundle is made of a top-level session), so nothing was written",
            m.session.id,
            shown_value(&Value::String(parent.clone()))
        )));
    }
    match plan.provider {
        ProviderKind::Claude => each_jsonl(bundle, plan, claude_line),
        ProviderKind::Codex => each_jsonl(bundle, plan, codex_meta),
        ProviderKind::Opencode => plan
            .docs
            .iter()
            .try_for_each(|(id, name)| opencode::document(bundle, plan, id, name).map(drop)),
    }
}

/// What every refusal here ends with.
pub(super) const REFUSED: &str = "a bundle's records must agree with its manifest, so nothing \
     was written (export the session again where it was made)";

/// The refusal for the record `name`, which `says` something the manifest does not.
pub(super) fn disagrees(name: &str, says: String) -> BundleError {
    BundleError::Unsafe(format!("{name} {says}; {REFUSED}"))
}

/// The id session `old` of the bundle gets in the store (the same unless restored as a copy).
pub(super) fn new_id<'a>(plan: &'a Plan, old: &'a str) -> &'a str {
    plan.ids.get(old).map_or(old, String::as_str)
}

/// The parent the manifest gives session `old`, by the id it gets in the store.
pub(super) fn parent_of<'a>(bundle: &'a Bundle, plan: &'a Plan, old: &str) -> Option<&'a str> {
    let s = bundle.manifest.sessions().find(|s| s.id == old)?;
    s.parent_id.as_deref().map(|p| new_id(plan, p))
}

/// A JSONL record file of the bundle, read a line at a time as it will be written.
struct Record<'a> {
    bundle: &'a Bundle,
    plan: &'a Plan,
    /// Its name in the archive.
    name: &'a str,
    /// The session it belongs to (its id in the bundle).
    owner: &'a str,
}

/// What a line check says: go on to the next line, or the file is done with.
enum Flow {
    Next,
    Done,
}

/// `check` on each line of each JSONL record of the bundle (1-based number, text as restored),
/// streamed: a record file may unpack to a gigabyte, so none is held whole.
fn each_jsonl(
    bundle: &Bundle,
    plan: &Plan,
    check: fn(&Record, usize, &str) -> Result<Flow, BundleError>,
) -> Result<(), BundleError> {
    for f in bundle.manifest.native_files() {
        let Some(owner) = f.session.as_deref().filter(|_| f.path.ends_with(".jsonl")) else {
            continue;
        };
        let record = Record {
            bundle,
            plan,
            name: &f.path,
            owner,
        };
        let (mut number, mut done) = (0, false);
        bundle.stream(&f.path, |r| {
            records::each_line(r, &f.path, &mut |line| {
                number += 1;
                if done {
                    return Ok(());
                }
                // Not UTF-8: restored as it was, and the agent repairs it when reading; its
                // ids are checked as it reads them.
                let text = match std::str::from_utf8(line) {
                    Ok(text) => edit_values(text, &mut |s| edit_string(s, plan)),
                    Err(_) => String::from_utf8_lossy(line),
                };
                done = matches!(check(&record, number, &text)?, Flow::Done);
                Ok(())
            })
        })?;
    }
    Ok(())
}

/// The one field of a Claude line checked here (the rest is skipped, not parsed).
#[derive(Deserialize)]
struct ClaudeLine {
    #[serde(rename = "sessionId")]
    session_id: Option<Value>,
}

/// Each line's `sessionId`, where it has one, names the session whose transcript it is: the
/// session itself, or for a subagent's, its parent (as Claude Code writes them).
fn claude_line(r: &Record, number: usize, line: &str) -> Result<Flow, BundleError> {
    let (bundle, plan, name, owner) = (r.bundle, r.plan, r.name, r.owner);
    let expected = if is_claude_agent(owner) {
        parent_of(bundle, plan, owner).unwrap_or_default()
    } else {
        new_id(plan, owner)
    };
    // A torn or foreign line is no record: Claude Code skips it as well.
    let Ok(ClaudeLine {
        session_id: Some(said),
    }) = serde_json::from_str::<ClaudeLine>(line)
    else {
        return Ok(Flow::Next);
    };
    if said.as_str() != Some(expected) {
        return Err(disagrees(
            name,
            format!(
                "names the session {} on line {number}, not {expected}",
                shown_value(&said),
            ),
        ));
    }
    Ok(Flow::Next)
}

/// The `session_meta` a Codex rollout starts with (the one its `threads` row is made from):
/// its `id` is the session's, its parent (`parent_thread_id`, or the subagent source's) none or
/// the manifest's, and its `session_id` (a subagent's conversation) one of the bundle's.
fn codex_meta(r: &Record, _number: usize, line: &str) -> Result<Flow, BundleError> {
    let (bundle, plan, name, owner) = (r.bundle, r.plan, r.name, r.owner);
    // Only the line that may be it is parsed, within the records' memory budget.
    if !line.contains("\"session_meta\"") {
        return Ok(Flow::Next);
    }
    let record = match records::parse(line.as_bytes(), name) {
        Ok(record) => record,
        // Too large to check is refused: Codex would still read its id.
        Err(e @ BundleError::TooLarge(_)) => return Err(e),
        // A torn line is no record: Codex skips it as well.
        Err(_) => return Ok(Flow::Next),
    };
    if record["type"] != "session_meta" {
        return Ok(Flow::Next);
    }
    let meta = &record["payload"];
    let id = new_id(plan, owner);
    if meta["id"].as_str() != Some(id) {
        let says = format!("says its session is {}, not {id}", shown_value(&meta["id"]));
        return Err(disagrees(name, says));
    }
    let parent = parent_of(bundle, plan, owner);
    let spawn = &meta["source"]["subagent"]["thread_spawn"]["parent_thread_id"];
    for said in [&meta["parent_thread_id"], spawn] {
        if !said.is_null() && said.as_str() != parent {
            let says = format!(
                "makes {id} a subagent of {}, {}",
                shown_value(said),
                parent.map_or("but its manifest gives it no parent".into(), |p| {
                    format!("but its manifest's parent is {p}")
                })
            );
            return Err(disagrees(name, says));
        }
    }
    let session = &meta["session_id"];
    let ours = plan
        .sessions
        .iter()
        .any(|(_, new)| session.as_str() == Some(new));
    if !session.is_null() && !ours {
        let says = format!(
            "puts {id} in the session {}, which the bundle does not hold",
            shown_value(session)
        );
        return Err(disagrees(name, says));
    }
    Ok(Flow::Done)
}

/// A JSON value for a message: a string quoted (unsafe characters as `\u{…}`, cut to 80
/// characters), anything else as JSON.
pub(super) fn shown_value(v: &Value) -> String {
    match v.as_str() {
        Some(text) => format!("\"{}\"", crate::bundle::manifest::shown(text)),
        None => crate::bundle::manifest::shown(&v.to_string()),
    }
}
