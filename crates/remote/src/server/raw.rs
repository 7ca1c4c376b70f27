//! `raw`: the agent's own records behind one message (the app's raw-JSON view), read by the
//! same core call as a local view makes (`raw::records` on the session's files there). The
//! reply is capped as a `show` page is: records past [`PAGE_BYTES`] are counted in `omitted`,
//! not sent (at least one is sent).

use agent_sessions_core::raw::{self, RawRecords};
use serde_json::Value;

use super::dispatch::{core_error, find};
use super::State;
use crate::protocol::{RawParams, WireError, MAX_MESSAGE_ID, PAGE_BYTES};

pub(super) fn records(state: &State, p: RawParams) -> Result<Value, WireError> {
    check_id(&p.message)?;
    let (catalog, session) = find(state, &p.session).map_err(|e| core_error(&e))?;
    let message = state
        .service()
        .with_transcript_of(&session, |t| {
            t.messages.iter().find(|m| m.id == p.message).cloned()
        })
        .map_err(|e| core_error(&e))?
        .ok_or_else(|| {
            WireError::new(
                "message_not_found",
                format!("no message {:?} in session {}", p.message, session.id),
            )
        })?;
    let all = raw::records(&catalog, &session, &message).map_err(|e| core_error(&e))?;
    serde_json::to_value(capped(all, PAGE_BYTES))
        .map_err(|e| WireError::new("internal", e.to_string()))
}

/// A message id is a short printable key; anything else is refused before any store is read.
fn check_id(id: &str) -> Result<(), WireError> {
    if id.is_empty() || id.len() > MAX_MESSAGE_ID || id.chars().any(char::is_control) {
        return Err(WireError::new(
            "bad_params",
            format!(
                "a message id is 1 to {MAX_MESSAGE_ID} bytes without control characters, not {:?}",
                truncate(id)
            ),
        ));
    }
    Ok(())
}

fn truncate(id: &str) -> &str {
    let mut end = id.len().min(64);
    while !id.is_char_boundary(end) {
        end -= 1;
    }
    &id[..end]
}

/// At most `budget` bytes of records (as JSON), at least one; the rest counted as omitted.
fn capped(mut all: RawRecords, budget: usize) -> RawRecords {
    let mut bytes = 0;
    let mut keep = 0;
    for r in &all.records {
        bytes += serde_json::to_vec(r).map_or(0, |v| v.len());
        if bytes > budget && keep > 0 {
            break;
        }
        keep += 1;
    }
    all.omitted += all.records.len() - keep;
    all.records.truncate(keep);
    all
}

#[cfg(test)]
mod tests {
    use agent_sessions_core::raw::RawRecord;

    use super::*;

    fn record(text: &str) -> RawRecord {
        RawRecord {
            place: "line 1".into(),
            line: Some(1),
            text: text.into(),
            truncated: false,
        }
    }

    #[test]
    fn records_past_the_budget_are_counted_not_sent() {
        let big = "x".repeat(100);
        let all = RawRecords {
            records: vec![record(&big), record(&big), record(&big)],
            omitted: 2,
        };
        let one = capped(all.clone(), 150);
        assert_eq!((one.records.len(), one.omitted), (1, 4));
        // One record is always sent, however big.
        assert_eq!(capped(all.clone(), 10).records.len(), 1);
        assert_eq!(capped(all.clone(), 1 << 20), all);
    }

    #[test]
    fn bad_ids_are_refused() {
        for bad in ["", "a\nb", &"x".repeat(MAX_MESSAGE_ID + 1)] {
            assert_eq!(check_id(bad).unwrap_err().code, "bad_params");
        }
        assert!(check_id("3f2a-uuid").is_ok());
    }
}
