//! The service's change sequence: every session a refresh changed or removed, stamped with a
//! number that only grows, so a client that listed at sequence N can ask for what changed since
//! instead of listing again (the remote server of issue 14 carries "list, and changes since").
//!
//! One entry per session key holds its latest stamp (a session written a thousand times is one
//! entry), so the log is as large as the set of sessions seen, never as the number of refreshes.
//! Switching roots starts the log over: a cursor from before the switch is answered with
//! `reset` (list again), as are cursors from the future (another service's numbers).

use std::collections::HashMap;

use serde::Serialize;

use crate::provider::{ScanOutput, SessionKey};

/// What changed after a cursor.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Changes {
    /// The cursor to ask with next time.
    pub seq: u64,
    /// The cursor is too old (from before the roots switched) or unknown: nothing below is
    /// complete; list again.
    pub reset: bool,
    /// Sessions new or changed since the cursor (list them again, or load them).
    pub changed: Vec<SessionKey>,
    /// Sessions gone since the cursor.
    pub removed: Vec<SessionKey>,
}

#[derive(Debug, Default)]
pub(crate) struct ChangeLog {
    seq: u64,
    /// Cursors below this predate the current roots.
    floor: u64,
    latest: HashMap<SessionKey, (u64, bool)>,
}

impl ChangeLog {
    pub(crate) fn seq(&self) -> u64 {
        self.seq
    }

    /// One provider's committed scan. Nothing changed: the sequence does not move.
    pub(crate) fn record(&mut self, output: &ScanOutput) {
        if output.changed.is_empty() && output.removed.is_empty() {
            return;
        }
        self.seq += 1;
        for meta in &output.changed {
            self.latest.insert(SessionKey::of(meta), (self.seq, false));
        }
        for key in &output.removed {
            self.latest.insert(key.clone(), (self.seq, true));
        }
    }

    /// New roots: everything before is about other stores.
    pub(crate) fn reset(&mut self) {
        self.seq += 1;
        self.floor = self.seq;
        self.latest.clear();
    }

    pub(crate) fn since(&self, cursor: u64) -> Changes {
        if cursor < self.floor || cursor > self.seq {
            return Changes {
                seq: self.seq,
                reset: true,
                ..Changes::default()
            };
        }
        let mut out = Changes {
            seq: self.seq,
            ..Changes::default()
        };
        for (key, (seq, removed)) in &self.latest {
            if *seq > cursor {
                let list = if *removed {
                    &mut out.removed
                } else {
                    &mut out.changed
                };
                list.push(key.clone());
            }
        }
        out.changed.sort();
        out.removed.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ProviderKind, SessionMeta};

    fn key(id: &str) -> SessionKey {
        SessionKey {
            provider: ProviderKind::Claude,
            id: id.into(),
            source_path: format!("/s/{id}.jsonl").into(),
        }
    }

    fn changed(ids: &[&str]) -> ScanOutput {
        let changed = ids
            .iter()
            .map(|id| {
                let k = key(id);
                SessionMeta::new(k.provider, k.id, k.source_path)
            })
            .collect();
        ScanOutput {
            changed,
            ..ScanOutput::default()
        }
    }

    #[test]
    fn a_cursor_sees_only_later_changes_and_a_switch_resets_it() {
        let mut log = ChangeLog::default();
        log.record(&changed(&["a", "b"]));
        let after_first = log.seq();
        log.record(&ScanOutput::default());
        assert_eq!(log.seq(), after_first, "an empty scan is no change");
        log.record(&changed(&["b"]));
        log.record(&ScanOutput {
            removed: vec![key("a")],
            ..ScanOutput::default()
        });
        let c = log.since(after_first);
        assert_eq!(
            (c.changed, c.removed, c.reset),
            (vec![key("b")], vec![key("a")], false)
        );
        let c = log.since(0);
        assert_eq!(c.changed, vec![key("b")], "a's latest entry is its removal");
        assert!(log.since(log.seq()).changed.is_empty());
        assert!(log.since(log.seq() + 5).reset, "a cursor from the future");

        let before = log.seq();
        log.reset();
        assert!(log.since(before).reset);
        let now = log.since(log.seq());
        assert!(!now.reset && now.changed.is_empty() && now.removed.is_empty());
    }
}
