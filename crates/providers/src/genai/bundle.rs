//! What both agents' bundles share (`capability::bundle`): the check that a restored record
//! names the session the manifest says (`sessionId`, top level or in a `$set`).

use crate::capability::bundle::{Fault, Flow, Line};

/// Checks that a record's `sessionId` is `expected`; a line that is no record (a torn one, a
/// line of a pretty-printed JSON document) is skipped, as the agents skip it.
pub(crate) fn check_session(line: &Line, expected: &str) -> Result<Flow, Fault> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(line.text) else {
        return Ok(Flow::Next);
    };
    let said = value
        .get("sessionId")
        .or_else(|| value.get("$set").and_then(|s| s.get("sessionId")));
    match said {
        Some(said) if said.as_str() != Some(expected) => Err(Fault::Disagrees(format!(
            "names the session {said} on line {}, not {expected}",
            line.number
        ))),
        _ => Ok(Flow::Next),
    }
}
