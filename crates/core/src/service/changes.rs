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

use crate::model::{ProviderKind, SessionMeta};
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

/// The listing as the service last looked at it, to tell what changed in it between two looks,
/// whoever changed it. A refresh reports only what it finds itself: another process's refresh
/// of the same cache (a CLI `scan`, the server of an app's other connection to a host) takes
/// the changes it finds, a trash drops its session's rows at once, and live flags and turn
/// states change with time, not with a refresh. So without looking, another front end's trash
/// was no removal here, and a client merging this feed kept the session.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// The roots' generation and the sessions last listed on them; none before the first look.
    listed: Option<(u64, HashMap<SessionKey, SessionMeta>)>,
    /// The change sequence after the last look: changes recorded since are not named again.
    pub(super) seq: u64,
}

impl Seen {
    /// Whether a session of the last look is live (its flag and turn state change with time).
    pub(crate) fn any_live(&self) -> bool {
        self.listed
            .as_ref()
            .is_some_and(|(_, sessions)| sessions.values().any(|s| s.live))
    }

    /// The sessions new or different in `sessions` since the last look, and those gone from it.
    /// The first look on a generation of roots only notes the listing: the refresh before it
    /// reported what it found, and a client lists whole on new roots.
    pub(crate) fn look(
        &mut self,
        generation: u64,
        sessions: Vec<SessionMeta>,
    ) -> (Vec<SessionKey>, Vec<SessionKey>) {
        let now: HashMap<SessionKey, SessionMeta> = sessions
            .into_iter()
            .map(|s| (SessionKey::of(&s), s))
            .collect();
        let (first, before) = match self.listed.take() {
            Some((g, before)) if g == generation => (false, before),
            // Begun on roots since switched: the newer listing stays.
            Some((g, newer)) if g > generation => {
                self.listed = Some((g, newer));
                return (Vec::new(), Vec::new());
            }
            _ => (true, HashMap::new()),
        };
        let mut changed: Vec<SessionKey> = now
            .iter()
            .filter(|(k, s)| before.get(*k) != Some(*s))
            .map(|(k, _)| k.clone())
            .collect();
        let mut removed: Vec<SessionKey> = before
            .into_keys()
            .filter(|k| !now.contains_key(k))
            .collect();
        self.listed = Some((generation, now));
        if first {
            return (Vec::new(), Vec::new());
        }
        changed.sort();
        removed.sort();
        (changed, removed)
    }
}

/// What a committed scan changed, kept to be put in the sequence with the look after its
/// refresh (see [`ChangeLog::refreshed`]); its state and diagnostics are not.
pub(crate) fn found(output: &ScanOutput) -> ScanOutput {
    ScanOutput {
        changed: output.changed.clone(),
        removed: output.removed.clone(),
        ..ScanOutput::default()
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

    /// A refresh's committed scans (`found`, see [`found`]) and the look at the listing after
    /// it ([`ChangeLog::note`]), put in the sequence at once. Recorded as each scan committed,
    /// a client (a remote `watch` reads every 200 ms) could take a session's entry and list it
    /// before the look, which then did not name it again (the refresh had): a change between
    /// the two that no refresh finds (the agent exiting, another process's refresh taking a
    /// later write) was never named to that client.
    pub(crate) fn refreshed(
        &mut self,
        found: &[ScanOutput],
        since: u64,
        changed: &[SessionKey],
        removed: &[SessionKey],
    ) {
        found.iter().for_each(|output| self.record(output));
        self.note(since, changed, removed);
    }

    /// What a look at the listing found changed or removed (see [`Seen`]), less what is
    /// recorded as such after `since` (the refresh before it found those itself). The sequence
    /// moves only when something is left.
    pub(crate) fn note(&mut self, since: u64, changed: &[SessionKey], removed: &[SessionKey]) {
        let said = |key: &SessionKey, gone: bool| {
            let latest = self.latest.get(key);
            latest.is_some_and(|&(seq, was)| seq > since && was == gone)
        };
        let changed: Vec<&SessionKey> = changed.iter().filter(|k| !said(k, false)).collect();
        let removed: Vec<&SessionKey> = removed.iter().filter(|k| !said(k, true)).collect();
        if changed.is_empty() && removed.is_empty() {
            return;
        }
        self.seq += 1;
        for (keys, gone) in [(changed, false), (removed, true)] {
            for key in keys {
                self.latest.insert(key.clone(), (self.seq, gone));
            }
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

    /// Whatever changed the listing between two looks is named once: a live flag or turn
    /// state, a session another process's refresh took, one dropped by a trash; the first look
    /// on new roots names nothing.
    #[test]
    fn a_look_names_what_changed_in_the_listing_once() {
        use crate::model::TurnState;
        let mut seen = Seen::default();
        let mut a = meta("a");
        let b = meta("b");
        let nothing = (Vec::new(), Vec::new());
        assert!(!seen.any_live(), "nothing looked at yet");
        assert_eq!(seen.look(0, vec![a.clone(), b.clone()]), nothing, "first");
        assert!(!seen.any_live());
        assert_eq!(
            seen.look(0, vec![a.clone(), b.clone()]),
            nothing,
            "the same"
        );
        a.live = true;
        a.turn = Some(TurnState::Working);
        assert_eq!(
            seen.look(0, vec![a.clone(), b.clone()]),
            (vec![key("a")], Vec::new())
        );
        assert!(seen.any_live(), "the loop ticks often while a is live");
        a.turn = Some(TurnState::Waiting);
        let c = meta("c");
        assert_eq!(
            seen.look(0, vec![a.clone(), c.clone()]),
            (vec![key("a"), key("c")], vec![key("b")]),
            "b trashed, c found by another process"
        );
        assert_eq!(seen.look(1, vec![a, c]), nothing, "new roots");

        let mut log = ChangeLog::default();
        log.record(&ScanOutput {
            removed: vec![key("b")],
            ..ScanOutput::default()
        });
        let since = 0;
        let before = log.seq();
        log.note(since, &[], &[key("b")]);
        assert_eq!(log.seq(), before, "its own refresh said it: not again");
        log.note(since, &[], &[]);
        assert_eq!(log.seq(), before, "no change, no new number");
        log.note(since, &[key("a")], &[key("b")]);
        let c = log.since(before);
        assert_eq!((c.changed, c.removed), (vec![key("a")], Vec::new()));
        log.note(log.seq(), &[], &[key("a")]);
        assert_eq!(log.since(before).removed, vec![key("a")]);
    }

    /// A refresh's entries go in the sequence with the look after it, under the log's lock
    /// (`Shared::look`): no client holds a cursor between them, so none listed a session the refresh found before
    /// the look saw it change again (the agent exited meanwhile: no refresh finds that) and
    /// then missed that change because the look left it to the refresh's entry.
    #[test]
    fn a_refresh_and_the_look_after_it_land_together() {
        let mut log = ChangeLog::default();
        let mut seen = Seen::default();
        let mut a = meta("a");
        a.live = true;
        seen.look(0, vec![a.clone(), meta("b")]);
        seen.seq = log.seq();
        let since = seen.seq;
        let refresh = changed(&["a"]); // a's last lines
        a.live = false; // the agent exits before the look lists
        let (changed, removed) = seen.look(0, vec![a]);
        log.refreshed(&[found(&refresh)], since, &changed, &removed);
        let c = log.since(since);
        assert_eq!((c.changed, c.removed), (vec![key("a")], vec![key("b")]));
    }

    /// A look that began on roots since switched (`Service::refresh` racing `switch`) leaves
    /// the listing of the new roots in place: taking it for the first look on the old roots,
    /// the next look on the new ones would be a first look again and name nothing.
    #[test]
    fn a_look_on_old_roots_keeps_the_new_roots_listing() {
        let mut seen = Seen::default();
        let nothing = (Vec::new(), Vec::new());
        assert_eq!(
            seen.look(1, vec![meta("a")]),
            nothing,
            "first on the new roots"
        );
        assert_eq!(seen.look(0, vec![meta("x")]), nothing, "a stale look");
        assert_eq!(
            seen.look(1, vec![meta("a"), meta("c")]),
            (vec![key("c")], Vec::new()),
            "c appeared on the new roots"
        );
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
