//! The ids, parents and titles the records themselves carry, checked against the manifest
//! before anything is written. [`Manifest::check`](crate::bundle::Manifest::check) checks the
//! manifest's when the bundle is opened, but what a restore writes comes from the records:
//! OpenCode's rows (ours, or those of its own `opencode import`) take the export document's
//! ids, parent and title; Codex's `threads` row and its edge to a parent take `session_meta`'s;
//! Claude Code reads each line's `sessionId`. So each must say what the manifest says (with the
//! ids a copy gets), or the restore is refused ([`BundleError::Unsafe`]) with nothing written.
//! The preview runs the same checks, so such a bundle is refused before the user confirms.

use std::cell::RefCell;

use serde_json::Value;

use super::files::edit_string;
use super::{documents, restoring, Plan};
use crate::bundle::jsontext::edit_values;
use crate::bundle::reader::Bundle;
use crate::bundle::records;
use crate::bundle::BundleError;
use crate::provider::capability::bundle::{Fault, Flow, Line, Stopped, Writes};

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
    match &restoring(plan.provider).writes {
        Writes::Files(f) => each_jsonl(bundle, plan, f.check_line),
        Writes::Documents(d) => plan
            .docs
            .iter()
            .try_for_each(|(id, name)| documents::document(bundle, plan, d, id, name).map(drop)),
        Writes::Append(a) => super::append::check(bundle, a),
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

/// `check` on each line of each JSONL record of the bundle (1-based number, text as restored),
/// streamed: a record file may unpack to a gigabyte, so none is held whole.
fn each_jsonl(
    bundle: &Bundle,
    plan: &Plan,
    check: fn(&Line) -> Result<Flow, Fault>,
) -> Result<(), BundleError> {
    for f in bundle.manifest.native_files() {
        let Some(owner) = f.session.as_deref().filter(|_| f.path.ends_with(".jsonl")) else {
            continue;
        };
        let name = f.path.as_str();
        // Why the engine stopped reading a record the agent asked it to parse.
        let stopped = RefCell::new(None);
        let parse = |text: &str| match records::parse(text.as_bytes(), name) {
            Ok(record) => Ok(Some(record)),
            Err(e @ BundleError::TooLarge(_)) => {
                *stopped.borrow_mut() = Some(e);
                Err(Stopped)
            }
            Err(_) => Ok(None),
        };
        let (id, parent) = (new_id(plan, owner), parent_of(bundle, plan, owner));
        let (mut number, mut done) = (0, false);
        bundle.stream(name, |r| {
            records::each_line(r, name, &mut |line| {
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
                let line = Line {
                    text: &text,
                    number,
                    owner,
                    id,
                    parent,
                    sessions: &plan.sessions,
                    parse: &parse,
                };
                done = match check(&line) {
                    Ok(flow) => matches!(flow, Flow::Done),
                    Err(Fault::Disagrees(says)) => return Err(disagrees(name, says)),
                    Err(Fault::Stopped(Stopped)) => {
                        return Err(stopped.borrow_mut().take().unwrap_or_else(|| {
                            BundleError::Invalid(format!("{name} cannot be read"))
                        }))
                    }
                };
                Ok(())
            })
        })?;
    }
    Ok(())
}

// A JSON value for a message.
pub(super) use crate::provider::capability::bundle::shown_value;
