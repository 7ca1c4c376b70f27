//! The service's change sequence: every session a refresh changed or removed, stamped with a
//! number that only grows, so a client that listed at sequence N can ask for what changed since
//! instead of listing again (the remote server of issue 14 carries "list, and changes since").
//!
//! One entry per session key holds its latest stamp (a session written a thousand times is one
//! entry), so the log is as large as the set of sessions seen, never as the number of refreshes.
//! Switching roots starts the log over: a cursor from before the switch is answered with
//! `reset` (list again), as are cursors from the future (another service's numbers).

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::model::{ProviderKind, SessionMeta, TurnState};
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

/// What changed after a cursor, as the sessions themselves (listed now, so enriched: live
/// flags, turn states, repo roots): what a client merges into the list it holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Delta {
    pub seq: u64,
    /// List again: nothing below is complete (see [`Changes::reset`]).
    pub reset: bool,
    pub changed: Vec<SessionMeta>,
    pub removed: Vec<SessionKey>,
}

impl Delta {
    /// The listed sessions `changes` names. A changed session no longer listed (gone since)
    /// counts as removed; a removed one listed again (moved, archived) as changed. Removed is
    /// said of a file: a copy gone while another file still holds the session is removed.
    pub fn pick(changes: Changes, listed: Vec<SessionMeta>) -> Delta {
        let named = |k: &SessionKey| (k.provider, k.id.clone());
        let changed: HashSet<(ProviderKind, String)> = changes.changed.iter().map(named).collect();
        let removed: HashSet<(ProviderKind, String)> = changes.removed.iter().map(named).collect();
        let mut out = Delta {
            seq: changes.seq,
            reset: changes.reset,
            ..Delta::default()
        };
        let mut listed_keys = HashSet::new();
        for s in listed {
            let key = (s.provider, s.id.clone());
            if changed.contains(&key) || removed.contains(&key) {
                listed_keys.insert(SessionKey::of(&s));
                out.changed.push(s);
            }
        }
        out.removed = changes
            .changed
            .into_iter()
            .chain(changes.removed)
            .filter(|k| !listed_keys.contains(k))
            .collect();
        out.removed.sort();
        out.removed.dedup();
        out
    }
}

/// Live flags and turn states as last listed, to tell which sessions they changed for: they
/// change with time (an agent starts, finishes a turn, exits), not with a refresh.
#[derive(Debug, Default)]
pub(crate) struct LiveStates(HashMap<SessionKey, Option<TurnState>>);

impl LiveStates {
    /// The sessions whose live flag or turn state differs from the last call's listing.
    pub(crate) fn changed(&mut self, sessions: &[SessionMeta]) -> Vec<SessionKey> {
        let now: HashMap<SessionKey, Option<TurnState>> = sessions
            .iter()
            .filter(|s| s.live)
            .map(|s| (SessionKey::of(s), s.turn))
            .collect();
        let mut out: Vec<SessionKey> = now
            .iter()
            .filter(|(k, turn)| self.0.get(*k) != Some(turn))
            .map(|(k, _)| k.clone())
            .collect();
        // No longer live: listed again, now without the flag.
        out.extend(self.0.keys().filter(|k| !now.contains_key(*k)).cloned());
        self.0 = now;
        out.sort();
        out
    }
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

    /// Sessions that changed without a scan finding them (live flags, turn states).
    pub(crate) fn touch(&mut self, keys: &[SessionKey]) {
        if keys.is_empty() {
            return;
        }
        self.seq += 1;
        for key in keys {
            self.latest.insert(key.clone(), (self.seq, false));
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

    fn meta(id: &str) -> SessionMeta {
        let k = key(id);
        SessionMeta::new(k.provider, k.id, k.source_path)
    }

    #[test]
    fn live_flags_and_turns_are_changes_when_they_change() {
        let mut seen = LiveStates::default();
        let mut a = meta("a");
        let b = meta("b");
        assert!(
            seen.changed(&[a.clone(), b.clone()]).is_empty(),
            "nothing live"
        );
        a.live = true;
        a.turn = Some(TurnState::Working);
        assert_eq!(seen.changed(&[a.clone(), b.clone()]), vec![key("a")]);
        assert!(
            seen.changed(&[a.clone(), b.clone()]).is_empty(),
            "the same again"
        );
        a.turn = Some(TurnState::Waiting);
        assert_eq!(seen.changed(&[a.clone(), b.clone()]), vec![key("a")]);
        a.live = false;
        a.turn = None;
        assert_eq!(seen.changed(&[a.clone(), b]), vec![key("a")], "it stopped");

        let mut log = ChangeLog::default();
        let before = log.seq();
        log.touch(&[]);
        assert_eq!(log.seq(), before, "no change, no new number");
        log.touch(&[key("a")]);
        assert_eq!(log.since(before).changed, vec![key("a")]);
    }

    #[test]
    fn a_delta_carries_the_sessions_as_listed_now() {
        let changes = Changes {
            seq: 7,
            reset: false,
            changed: vec![key("a"), key("gone")],
            removed: vec![key("b"), key("back")],
        };
        let mut a = meta("a");
        a.title = Some("now".into());
        let listed = vec![a.clone(), meta("back"), meta("other")];
        let d = Delta::pick(changes, listed);
        assert_eq!(d.seq, 7);
        let ids: Vec<&str> = d.changed.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["a", "back"]);
        assert_eq!(d.changed[0], a);
        assert_eq!(d.removed, vec![key("b"), key("gone")]);
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
