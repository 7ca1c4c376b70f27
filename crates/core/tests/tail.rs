//! Reading only the end of a session: a follower and a live session's turn state read a window
//! at the end of the file, never the whole file, and must say the same as a whole read. Checked
//! over every session of the stores in `common::JSONL_STORES`, at several window sizes.

mod common;

use agent_sessions_core::live::events::{self, Event, SEQ_SLOTS};
use agent_sessions_core::live::follow::Follower;
use agent_sessions_core::live::tail::LineStart;
use agent_sessions_core::ProviderKind;

/// Events of the messages that start after the first one in the list: the window's first
/// message may be a part of one (its earlier records lie before the window).
fn after_first_message(events: &[Event]) -> Vec<Event> {
    let Some(first) = events.first() else {
        return Vec::new();
    };
    let first_key = first.seq / SEQ_SLOTS;
    events
        .iter()
        .filter(|e| e.seq / SEQ_SLOTS != first_key)
        .cloned()
        .collect()
}

#[test]
fn a_windowed_follower_numbers_events_as_a_whole_read_does() {
    let mut windows_that_cut = 0;
    for &(kind, version) in common::JSONL_STORES {
        let catalog = common::catalog(kind, &common::fixture(kind, version));
        for s in common::jsonl_sessions(&catalog) {
            let whole = events::project(&catalog.load(&s).unwrap().messages, true);
            let size = std::fs::metadata(&s.source_path).unwrap().len();
            for window in [2 << 10, 16 << 10, 128 << 10] {
                let mut follower = Follower::new(s.clone(), 0).with_window_bytes(window);
                let update = follower.poll(&catalog).unwrap();
                let cut = window < size;
                windows_that_cut += usize::from(cut);
                let got = if cut {
                    after_first_message(&update.events)
                } else {
                    update.events.clone()
                };
                let tail = &whole[whole.len() - got.len()..];
                assert_eq!(got, tail, "{version} {} window {window}", s.id);
                assert_eq!(update.truncated, cut, "{version} {} window {window}", s.id);
                if got.is_empty() {
                    // A window inside one long record, or inside the last message, holds no
                    // message whole yet.
                    assert!(cut, "{version} {}: a whole read found nothing", s.id);
                    continue;
                }
                assert_eq!(update.cursor, whole.last().map_or(0, |e| e.seq));
            }
        }
    }
    assert!(windows_that_cut > 20, "the fixtures exercise cut windows");
}

#[test]
fn a_follower_from_a_kept_cursor_gets_exactly_what_came_after_it() {
    let kind = ProviderKind::Claude;
    let store = common::fixture_copy(kind, "2.1.9");
    let catalog = common::catalog(kind, store.path());
    let s = common::jsonl_sessions(&catalog)
        .into_iter()
        .max_by_key(|s| std::fs::metadata(&s.source_path).unwrap().len())
        .unwrap();
    let whole = events::project(&catalog.load(&s).unwrap().messages, true);
    // A cursor from the middle of the timeline: a new follower with a window that covers it
    // hands out exactly the events after it; one whose window does not, says it skipped.
    let mid = whole[whole.len() / 2].seq;
    let after: Vec<Event> = whole.iter().filter(|e| e.seq > mid).cloned().collect();
    let update = Follower::new(s.clone(), mid).poll(&catalog).unwrap();
    assert_eq!((update.events, update.truncated), (after, false));
    let update = Follower::new(s.clone(), mid)
        .with_window_bytes(8 << 10)
        .poll(&catalog)
        .unwrap();
    assert!(update.truncated, "the 8 KiB window starts after the cursor");
    // An append is read from the moved window with the same numbering.
    let mut follower = Follower::new(s.clone(), 0).with_window_bytes(8 << 10);
    let first = follower.poll(&catalog).unwrap();
    let line = r#"{"type":"user","uuid":"tail-1","sessionId":"x","timestamp":"2026-11-30T10:00:00Z","message":{"role":"user","content":"one more thing"}}"#;
    let mut text = std::fs::read_to_string(&s.source_path).unwrap();
    text.push_str(line);
    text.push('\n');
    std::fs::write(&s.source_path, &text).unwrap();
    let next = follower.poll(&catalog).unwrap();
    let lines = text.lines().count() as u64;
    assert!(!next.truncated);
    let prompt = next
        .events
        .iter()
        .find(|e| e.kind == events::EventType::Prompt)
        .expect("the appended prompt");
    assert_eq!(prompt.seq, lines * SEQ_SLOTS + 1, "numbered by its line");
    assert!(prompt.seq > first.cursor);
}

#[test]
fn load_tail_reads_only_the_end_and_keeps_line_numbers() {
    let kind = ProviderKind::Claude;
    let catalog = common::catalog(kind, &common::fixture(kind, "2.1.9"));
    for s in common::jsonl_sessions(&catalog) {
        let whole = catalog.load(&s).unwrap();
        let size = std::fs::metadata(&s.source_path).unwrap().len();
        let (tail, start) = catalog
            .load_tail(&s, 4 << 10, LineStart::default())
            .unwrap();
        if size <= 4 << 10 {
            assert_eq!(start, LineStart::default());
            continue;
        }
        assert!(start.offset > 0 && start.offset >= size - (4 << 10));
        let text = std::fs::read(&s.source_path).unwrap();
        let before = text.get(..start.offset as usize).unwrap();
        assert_eq!(
            start.line,
            before.iter().filter(|&&b| b == b'\n').count() as u64
        );
        // Every message of the window starts at or after its first line, and the last messages
        // are the whole read's last messages, line for line.
        for m in &tail.messages {
            assert!(m.source_lines.iter().all(|&l| l > start.line), "{}", s.id);
        }
        let (Some(a), Some(b)) = (tail.messages.last(), whole.messages.last()) else {
            continue;
        };
        assert_eq!((&a.id, &a.source_lines), (&b.id, &b.source_lines));
    }
}
