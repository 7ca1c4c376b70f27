//! Live sessions end to end in the core: a watcher sees appends (and OpenCode's WAL writes),
//! the index follows, live flags and turn states change, and a follower reads new events.

mod common;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use agent_sessions_core::live::events::{EventType, TurnState};
use agent_sessions_core::live::follow::Follower;
use agent_sessions_core::{watch, Library, ProviderKind, ScanProgress};

const SESSION: &str = "ceefe47d-84be-4483-8ce5-5f829cfd22c9";

/// Watches what the library's providers read; each debounced change arrives on the receiver.
fn watch_library(lib: &Library) -> (watch::Watcher, mpsc::Receiver<Vec<std::path::PathBuf>>) {
    let (tx, rx) = mpsc::channel();
    let targets = watch::targets(lib.catalog().providers());
    let w = watch::watch(&targets, Duration::from_millis(50), move |paths| {
        let _ = tx.send(paths);
    })
    .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    (w, rx)
}

#[cfg(target_os = "linux")]
#[test]
fn a_growing_claude_session_is_seen_live_with_its_turn_state_and_events() {
    let store = common::fixture_copy(ProviderKind::Claude, "2.1.332");
    let cache = tempfile::tempdir().unwrap();
    let roots = common::roots(ProviderKind::Claude, store.path());
    let mut lib = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
    let p = ScanProgress::default();
    let find = |lib: &mut Library| {
        lib.sessions(&p)
            .unwrap()
            .sessions
            .into_iter()
            .find(|s| s.id == SESSION)
            .unwrap()
    };
    assert!(!find(&mut lib).live);

    common::claim_live(store.path(), SESSION, "busy");
    let s = find(&mut lib);
    assert!(s.live);
    assert_eq!(
        s.turn,
        Some(TurnState::Unknown),
        "its last event is hours old: no evidence"
    );

    let mut follower = Follower::new(s.clone(), 0);
    let first = follower.poll(lib.catalog()).unwrap();
    assert!(!first.ended && !first.events.is_empty());
    assert_eq!(first.events.last().unwrap().kind, EventType::Stop);

    let (_w, rx) = watch_library(&lib);
    let file = s.source_path.clone();
    let started = Instant::now();
    let now = chrono::Utc::now().to_rfc3339();
    common::append_line(
        &file,
        &format!(
            r#"{{"type":"user","uuid":"n1","sessionId":"{SESSION}","timestamp":"{now}","message":{{"role":"user","content":"and now the tests"}}}}"#
        ),
    );
    rx.recv_timeout(Duration::from_secs(5))
        .expect("the watcher saw nothing");
    let report = lib.refresh(&p).unwrap();
    eprintln!("append → watcher → index: {:?}", started.elapsed());
    assert_eq!(report.changed, 1);
    let s = find(&mut lib);
    assert_eq!(s.turn, Some(TurnState::Working), "a prompt means working");
    assert_eq!(s.counts.user, 3);

    let update = follower.poll(lib.catalog()).unwrap();
    assert_eq!(update.events.len(), 1);
    assert_eq!(update.events[0].kind, EventType::Prompt);
    assert!(update.events[0].seq > first.cursor);

    let now = chrono::Utc::now().to_rfc3339();
    common::append_line(
        &file,
        &format!(
            r#"{{"type":"assistant","uuid":"n2","parentUuid":"n1","sessionId":"{SESSION}","timestamp":"{now}","message":{{"id":"msg_n2","model":"claude-x","role":"assistant","content":[{{"type":"text","text":"Tests added."}}]}}}}"#
        ),
    );
    rx.recv_timeout(Duration::from_secs(5))
        .expect("the watcher saw nothing");
    lib.refresh(&p).unwrap();
    assert_eq!(
        find(&mut lib).turn,
        Some(TurnState::Waiting),
        "an answered turn waits"
    );
    let update = follower.poll(lib.catalog()).unwrap();
    assert_eq!(
        update.events.iter().map(|e| e.kind).collect::<Vec<_>>(),
        vec![EventType::Stop]
    );

    // The agent exits: its pid file goes, the session ends.
    std::fs::remove_file(store.path().join("sessions/99999.json")).unwrap();
    let last = follower.poll(lib.catalog()).unwrap();
    assert!(last.ended);
    assert_eq!(last.events.last().unwrap().kind, EventType::SessionEnd);
    assert!(!find(&mut lib).live);
}

#[test]
fn a_write_through_opencode_wal_is_seen_by_the_watcher() {
    let store = common::fixture_copy(ProviderKind::Opencode, "1.18.33");
    let cache = tempfile::tempdir().unwrap();
    let roots = common::roots(ProviderKind::Opencode, store.path());
    let mut lib = Library::open(&roots, &[], Some(cache.path().to_path_buf()));
    let p = ScanProgress::default();
    lib.sessions(&p).unwrap();
    let writer = rusqlite::Connection::open(store.path().join("opencode.db")).unwrap();
    writer.pragma_update(None, "journal_mode", "wal").unwrap();
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    let (_w, rx) = watch_library(&lib);
    writer
        .execute(
            "UPDATE session SET title = 'renamed live', time_updated = time_updated + 1 WHERE id = 'ses_dd4339e7fffeEdarK7FDG4nA4y'",
            [],
        )
        .unwrap();
    let paths = rx
        .recv_timeout(Duration::from_secs(5))
        .expect("the watcher saw nothing");
    assert!(
        paths
            .iter()
            .any(|p| p.to_string_lossy().contains("opencode.db")),
        "{paths:?}"
    );
    assert_eq!(lib.refresh(&p).unwrap().changed, 1);
    let s = lib
        .sessions(&p)
        .unwrap()
        .sessions
        .into_iter()
        .find(|s| s.id == "ses_dd4339e7fffeEdarK7FDG4nA4y")
        .unwrap();
    assert_eq!(s.title.as_deref(), Some("renamed live"));
}

/// Cline's turn state while it runs comes from what its task records last (`ui_messages.json`,
/// 2.x and the extension): a request in flight is working, a finished reply waits, and an `ask`
/// that wants an answer — a question, an approval of a command or tool, a failed request's
/// retry — needs the user; one still streaming (`partial`) is not asked yet.
#[test]
fn a_cline_tasks_last_message_kind_is_its_turn_state() {
    use serde_json::{json, Value};
    let store = common::fixture_copy(ProviderKind::Cline, "2.18.0");
    let id = "1796568459073";
    let file = store
        .path()
        .join("data/tasks")
        .join(id)
        .join("ui_messages.json");
    let recorded: Vec<Value> = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    // The task up to its answer (not the resume offer the CLI added when it exited).
    let done = recorded
        .iter()
        .rposition(|m| m["say"] == "completion_result")
        .unwrap();
    let task = &recorded[..=done];
    let state = |extra: &[Value]| {
        let now = chrono::Utc::now();
        let mut items: Vec<Value> = task.iter().chain(extra).cloned().collect();
        for m in &mut items {
            m["ts"] = now.timestamp_millis().into();
        }
        std::fs::write(&file, serde_json::to_vec(&items).unwrap()).unwrap();
        let catalog = common::catalog(ProviderKind::Cline, store.path());
        let all = catalog.scan(&ScanProgress::default()).unwrap().sessions;
        let s = all.iter().find(|s| s.id == id).unwrap();
        let t = catalog.load(s).unwrap();
        let events = agent_sessions_core::live::events::project(&t.messages, false);
        agent_sessions_core::live::events::turn_state(&events, now, 600)
    };
    let say = |kind: &str, text: &str| json!({"type": "say", "say": kind, "text": text});
    let ask = |kind: &str, text: &str| json!({"type": "ask", "ask": kind, "text": text});
    let asked = [
        say("user_feedback", "and the tests?"),
        say("api_req_started", "{}"),
    ];
    let with = |last: Value| {
        let mut all = asked.to_vec();
        all.push(last);
        state(&all)
    };
    assert_eq!(state(&[]), TurnState::Waiting, "an answered task waits");
    assert_eq!(
        state(&[ask("completion_result", "")]),
        TurnState::Waiting,
        "the extension's offer after an answer is no question"
    );
    assert_eq!(state(&asked), TurnState::Working, "a request in flight");
    assert_eq!(
        with(ask("followup", "{\"question\":\"Which tests?\"}")),
        TurnState::NeedsInput
    );
    assert_eq!(with(ask("command", "cargo test")), TurnState::NeedsInput);
    assert_eq!(
        with(ask("tool", "{\"tool\":\"readFile\",\"path\":\"a.txt\"}")),
        TurnState::NeedsInput
    );
    assert_eq!(with(ask("api_req_failed", "500")), TurnState::NeedsInput);
    let mut streaming = ask("followup", "{\"question\":\"Whi");
    streaming["partial"] = true.into();
    assert_ne!(
        with(streaming),
        TurnState::NeedsInput,
        "a question still streaming is not asked yet"
    );
}
