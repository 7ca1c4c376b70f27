//! The normalized activity timeline every agent's transcript projects onto
//! (`session_start, prompt, tool_start, tool_end, notification, ask, stop, session_end`), and the
//! turn state derived from it. Events carry names and lengths, never prompt or tool text.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::model::{Message, NoticeKind, Part, Role, ToolStatus};

/// The turn state is model data (a session's `turn`): defined with the model.
pub use crate::model::TurnState;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum EventType {
    SessionStart,
    Prompt,
    ToolStart,
    ToolEnd,
    Notification,
    Ask,
    Stop,
    SessionEnd,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "TimelineEvent")]
pub struct Event {
    /// 1-based position in the session's timeline; stable as the session grows.
    pub seq: u64,
    pub ts: Option<DateTime<Utc>>,
    #[serde(rename = "type")]
    pub kind: EventType,
    pub data: Value,
}

/// How many events one message can number: a message's events are numbered from its first
/// source line times this (its position in the list where a store has no lines), so an event
/// keeps its number however much of the file a reader reads, and a follower that reads only the
/// end of a file hands out the same numbers as a whole read.
pub const SEQ_SLOTS: u64 = 1024;

/// Projects a whole transcript onto the event vocabulary. `ended` adds `session_end` (the
/// session is not live any more).
pub fn project(messages: &[Message], ended: bool) -> Vec<Event> {
    project_window(messages, true, ended)
}

/// [`project`] for the messages of a window that may start after the session's start
/// (`from_start` false): then no `session_start` is made up for its first message.
pub fn project_window(messages: &[Message], from_start: bool, ended: bool) -> Vec<Event> {
    let mut line = Timeline::default();
    // Each visible message with its numbering key: its first source line, else its position.
    let visible: Vec<(u64, &Message)> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.meta && !m.sidechain)
        .map(|(i, m)| (m.source_lines.first().copied().unwrap_or(i as u64 + 1), m))
        .collect();
    let first = visible.first().copied().or(messages
        .first()
        .map(|m| (m.source_lines.first().copied().unwrap_or(1), m)));
    if let (true, Some((key, m))) = (from_start, first) {
        // The session's start takes slot 0 of its first message.
        line.start_message(key);
        line.slot = 0;
        line.push(m.timestamp, EventType::SessionStart, json!({}));
    }
    for (i, &(key, m)) in visible.iter().enumerate() {
        line.start_message(key);
        let at = m.timestamp;
        match m.role {
            Role::User if m.counted => {
                let len: usize = m.parts.iter().map(text_len).sum();
                line.push(at, EventType::Prompt, json!({ "length": len }));
            }
            Role::Assistant => {
                for p in &m.parts {
                    if let Part::Tool(t) = p {
                        line.push(at, EventType::ToolStart, json!({ "name": t.name }));
                        if t.status != ToolStatus::Pending {
                            let status = if t.status == ToolStatus::Ok {
                                "ok"
                            } else {
                                "error"
                            };
                            let output = t.output.as_ref().map_or(0, String::len);
                            line.push(
                                at,
                                EventType::ToolEnd,
                                json!({ "name": t.name, "status": status, "output_length": output }),
                            );
                        }
                    }
                }
                let answered = m.counted && m.parts.iter().any(|p| matches!(p, Part::Text { .. }));
                let turn_over = visible
                    .iter()
                    .skip(i + 1)
                    .find(|(_, n)| n.role != Role::System)
                    .is_none_or(|(_, n)| n.role == Role::User);
                if answered && turn_over && !has_pending_tool(m) {
                    let len: usize = m.parts.iter().map(text_len).sum();
                    line.push(at, EventType::Stop, json!({ "length": len }));
                }
            }
            Role::System => {
                for p in &m.parts {
                    match p {
                        Part::Notice { source, .. } if *source == NoticeKind::Ask => {
                            line.push(at, EventType::Ask, json!({ "source": source }));
                        }
                        Part::Notice { source, .. } => {
                            line.push(at, EventType::Notification, json!({ "source": source }));
                        }
                        Part::Compaction { trigger, .. } => {
                            line.push(
                                at,
                                EventType::Notification,
                                json!({ "source": "compaction", "trigger": trigger }),
                            );
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    if let (true, Some(last)) = (ended, messages.last()) {
        // The last slot of the last message: the same number whatever window was read.
        let key = last.source_lines.first().copied();
        line.key = key.unwrap_or(messages.len() as u64).max(line.key);
        line.slot = SEQ_SLOTS - 1;
        line.push(last.timestamp, EventType::SessionEnd, json!({}));
    }
    line.events
}

/// Numbers events as they are made: `key * SEQ_SLOTS + n` for the n-th event of the message
/// whose key is `key` (from 1; slot 0 is the session's start).
#[derive(Default)]
struct Timeline {
    events: Vec<Event>,
    key: u64,
    /// Slot of the next event in the current message.
    slot: u64,
}

impl Timeline {
    fn start_message(&mut self, key: u64) {
        if self.events.is_empty() || key != self.key {
            self.key = key;
            self.slot = 1;
        }
    }

    fn push(&mut self, ts: Option<DateTime<Utc>>, kind: EventType, data: Value) {
        // The last slot is shared by a message's overflow: numbers stay increasing per message
        // order, never colliding with the next message's.
        let seq = self.key * SEQ_SLOTS + self.slot.min(SEQ_SLOTS - 1);
        let seq = seq.max(self.events.last().map_or(1, |e| e.seq + 1));
        self.slot += 1;
        self.events.push(Event {
            seq,
            ts,
            kind,
            data,
        });
    }
}

fn text_len(p: &Part) -> usize {
    match p {
        Part::Text { text } => text.len(),
        _ => 0,
    }
}

/// Whether a tool call of `m` still waits for its result.
pub(crate) fn has_pending_tool(m: &Message) -> bool {
    m.parts
        .iter()
        .any(|p| matches!(p, Part::Tool(t) if t.status == ToolStatus::Pending))
}

/// The turn state a timeline ends in. Evidence older than `stale_after` seconds before `now`
/// is no evidence: `unknown`.
pub fn turn_state(events: &[Event], now: DateTime<Utc>, stale_after: i64) -> TurnState {
    let Some(last) = events
        .iter()
        .rev()
        .find(|e| e.kind != EventType::Notification)
    else {
        return TurnState::Unknown;
    };
    if last
        .ts
        .is_some_and(|t| (now - t).num_seconds() > stale_after)
    {
        return TurnState::Unknown;
    }
    match last.kind {
        EventType::SessionStart => TurnState::Starting,
        EventType::Prompt | EventType::ToolStart | EventType::ToolEnd => TurnState::Working,
        EventType::Ask => TurnState::NeedsInput,
        EventType::Stop => TurnState::Waiting,
        EventType::SessionEnd | EventType::Notification => TurnState::Unknown,
    }
}

/// Everything after `cursor` (a `seq`) in a bounded window of the latest events, as
/// `related-remote-sessions` reads: the events, the next cursor, and whether events after the
/// cursor were left out — dropped from the window, or before `floor`, the lowest number the
/// events could have (0 when they were projected from the session's start; a window that starts
/// later cannot say what came between the cursor and its start).
pub fn since(events: &[Event], cursor: u64, window: usize, floor: u64) -> (Vec<Event>, u64, bool) {
    let start = events.len().saturating_sub(window);
    let dropped = start
        .checked_sub(1)
        .and_then(|i| events.get(i))
        .is_some_and(|e| e.seq > cursor);
    let truncated = dropped || cursor < floor;
    let new: Vec<Event> = events
        .iter()
        .skip(start)
        .filter(|e| e.seq > cursor)
        .cloned()
        .collect();
    let next = new.last().map_or(cursor, |e| e.seq);
    (new, next, truncated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolPart;

    fn msg(role: Role, counted: bool, parts: Vec<Part>, minute: u32) -> Message {
        Message {
            id: format!("m{minute}"),
            role,
            parent_id: None,
            timestamp: Some(
                DateTime::parse_from_rfc3339(&format!("2026-11-30T10:{minute:02}:00Z"))
                    .unwrap()
                    .with_timezone(&Utc),
            ),
            model: None,
            counted,
            meta: false,
            sidechain: false,
            parts,
            source_lines: vec![],
        }
    }

    fn tool(status: ToolStatus) -> Part {
        Part::Tool(ToolPart {
            call_id: "c".into(),
            name: "Bash".into(),
            input: json!({"command": "secret command"}),
            status,
            output: Some("secret output".into()),
            output_truncated: false,
            output_blob: None,
            changes: vec![],
            subagent_id: None,
        })
    }

    fn text(t: &str) -> Part {
        Part::Text { text: t.into() }
    }

    fn kinds(events: &[Event]) -> Vec<EventType> {
        events.iter().map(|e| e.kind).collect()
    }

    #[test]
    fn projects_a_turn_and_keeps_text_out() {
        let messages = vec![
            msg(Role::User, true, vec![text("do the secret thing")], 0),
            msg(
                Role::Assistant,
                true,
                vec![text("ok"), tool(ToolStatus::Ok)],
                1,
            ),
            msg(Role::Assistant, true, vec![text("done")], 2),
        ];
        let events = project(&messages, false);
        use EventType::*;
        assert_eq!(
            kinds(&events),
            vec![SessionStart, Prompt, ToolStart, ToolEnd, Stop]
        );
        assert_eq!(events[1].data, json!({"length": 19}));
        let all = serde_json::to_string(&events).unwrap();
        assert!(!all.contains("secret"), "{all}");
        // Numbered by message (no source lines here: by position), the start in slot 0.
        let s = SEQ_SLOTS;
        assert_eq!(
            events.iter().map(|e| e.seq).collect::<Vec<_>>(),
            vec![s, s + 1, 2 * s + 1, 2 * s + 2, 3 * s + 1]
        );
        // A window without the session's start numbers the same events the same way.
        let window = project_window(&messages[1..], false, false);
        assert_eq!(kinds(&window), vec![ToolStart, ToolEnd, Stop]);
        assert_eq!(kinds(&project(&messages, true)).last(), Some(&SessionEnd));
    }

    #[test]
    fn turn_states_follow_the_last_event() {
        let now = DateTime::parse_from_rfc3339("2026-11-30T10:05:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let state = |m: Vec<Message>| turn_state(&project(&m, false), now, 600);
        let prompt = msg(Role::User, true, vec![text("go")], 0);
        assert_eq!(state(vec![prompt.clone()]), TurnState::Working);
        assert_eq!(
            state(vec![
                prompt.clone(),
                msg(Role::Assistant, true, vec![tool(ToolStatus::Pending)], 1)
            ]),
            TurnState::Working
        );
        assert_eq!(
            state(vec![
                prompt.clone(),
                msg(Role::Assistant, true, vec![text("done")], 2)
            ]),
            TurnState::Waiting
        );
        let ask = msg(
            Role::System,
            false,
            vec![Part::Notice {
                source: "ask".into(),
                text: "exec_approval_request".into(),
            }],
            3,
        );
        assert_eq!(state(vec![prompt.clone(), ask]), TurnState::NeedsInput);
        assert_eq!(
            state(vec![msg(Role::System, false, vec![], 0)]),
            TurnState::Starting
        );
        let stale = turn_state(&project(&[prompt], false), now, 60);
        assert_eq!(stale, TurnState::Unknown);
        assert_eq!(turn_state(&[], now, 60), TurnState::Unknown);
    }

    #[test]
    fn cursor_reads_are_bounded_and_say_when_they_skipped() {
        let events: Vec<Event> = (1..=10)
            .map(|seq| Event {
                seq,
                ts: None,
                kind: EventType::Notification,
                data: json!({}),
            })
            .collect();
        let (new, next, truncated) = since(&events, 7, 5, 0);
        assert_eq!((new.len(), next, truncated), (3, 10, false));
        let (new, next, truncated) = since(&events, 2, 5, 0);
        assert_eq!(
            (new.first().map(|e| e.seq), next, truncated),
            (Some(6), 10, true)
        );
        let (new, next, truncated) = since(&events, 5, 5, 0);
        assert_eq!(
            (new.len(), next, truncated),
            (5, 10, false),
            "nothing dropped"
        );
        let (new, next, truncated) = since(&events, 10, 5, 0);
        assert_eq!((new.len(), next, truncated), (0, 10, false));
        // Events before a window's floor are unknown: a cursor below it may have missed some.
        let (_, _, truncated) = since(&events, 0, 50, 4);
        assert!(truncated);
        let (_, _, truncated) = since(&events, 4, 50, 4);
        assert!(!truncated);
    }
}
