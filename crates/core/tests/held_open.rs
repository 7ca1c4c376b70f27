//! A live agent keeps its session file open and appends to it while we scan and follow it. On
//! Windows a reader that opened the file without sharing write access would be refused while
//! the agent holds it, and a reader holding it so would make the agent's next open of its own
//! file fail (the EBUSY another tool's users met). A second process of this test binary plays
//! the agent: it holds the file open for writing (sharing only read and write, as an agent
//! may) and appends, through that handle and through a new open per record as Node's
//! `appendFileSync` does, while this process scans and follows. Run under Wine by
//! `scripts/test-windows.sh`, on Linux by `cargo test`.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use agent_sessions_core::live::follow::Follower;
use agent_sessions_core::model::{Diagnostic, Part};
use agent_sessions_core::{ProviderKind, ScanProgress};
use serde_json::Value;

const TEST: &str = "a_file_held_open_by_a_writing_agent_is_read_without_locking_it";
/// Set in the writer's environment: the file it appends to.
const WRITER: &str = "AGENT_SESSIONS_TEST_HELD_OPEN";
const RECORDS: usize = 60;

/// The agent's open: append, sharing read and write (never delete) with other handles.
fn open_like_an_agent(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.append(true);
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        const FILE_SHARE_READ: u32 = 1;
        const FILE_SHARE_WRITE: u32 = 2;
        options.share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE);
    }
    options.open(path)
}

/// A user record like the file's first, saying `marker`.
fn record(first: &Value, marker: &str, n: usize) -> String {
    let mut r = first.clone();
    r["uuid"] = format!("00000000-0000-4000-8000-{n:012}").into();
    r["message"]["content"] = marker.into();
    let mut line = r.to_string();
    line.push('\n');
    line
}

/// The writer's part: holds the file, says so, appends [`RECORDS`] records, one in two
/// through a handle opened for that record alone. Any refused open or write fails it.
fn write_while_held(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let first: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["type"] == "user" && r["message"]["content"].is_string())
        .expect("a user record to copy");
    let mut held = open_like_an_agent(path).unwrap();
    println!("holding");
    std::io::stdout().flush().unwrap();
    for n in 0..RECORDS {
        let line = record(&first, &format!("held-open marker {n}"), n);
        if n % 2 == 0 {
            held.write_all(line.as_bytes()).unwrap();
        } else {
            let mut own = open_like_an_agent(path)
                .unwrap_or_else(|e| panic!("the agent could not open its own file again: {e}"));
            own.write_all(line.as_bytes()).unwrap();
        }
        std::thread::sleep(Duration::from_millis(15));
    }
}

fn markers(messages: &[agent_sessions_core::model::Message]) -> usize {
    let text = |p: &Part| match p {
        Part::Text { text } => text.contains("held-open marker"),
        _ => false,
    };
    messages.iter().filter(|m| m.parts.iter().any(text)).count()
}

#[test]
fn a_file_held_open_by_a_writing_agent_is_read_without_locking_it() {
    if let Some(path) = std::env::var_os(WRITER) {
        return write_while_held(Path::new(&path));
    }
    let store = common::fixture_copy(ProviderKind::Claude, "2.1.332");
    let catalog = common::catalog(ProviderKind::Claude, store.path());
    let mut sessions = common::jsonl_sessions(&catalog);
    sessions.retain(|s| s.parent_id.is_none());
    let session = sessions.into_iter().next().expect("a Claude session");
    let mut writer = Command::new(std::env::current_exe().unwrap())
        .args([TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env(WRITER, &session.source_path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = BufReader::new(writer.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("holding") {
        line.clear();
        assert_ne!(
            said.read_line(&mut line).unwrap(),
            0,
            "the writer ended early"
        );
    }
    let mut follower = Follower::new(session.clone(), 0);
    let (mut scans, mut followed) = (0, 0);
    while writer.try_wait().unwrap().is_none() {
        let report = catalog.scan(&ScanProgress::default()).unwrap();
        assert!(
            report.sessions.iter().any(|s| s.id == session.id),
            "the held session is listed"
        );
        // A file-level diagnostic (not a line's): the file itself was not read.
        let items = report.diagnostics.items.iter();
        let refused: Vec<&Diagnostic> = items.filter(|d| d.line.is_none()).collect();
        assert_eq!(
            refused,
            [] as [&Diagnostic; 0],
            "nothing refused while held"
        );
        followed += follower.poll(&catalog).unwrap().events.len();
        scans += 1;
    }
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut said, &mut rest).unwrap();
    let status = writer.wait().unwrap();
    assert!(
        status.success() && rest.contains("1 passed"),
        "the writer was refused: {status}\n{rest}"
    );
    assert!(scans > 1, "scanned {scans} times while the file was held");
    followed += follower.poll(&catalog).unwrap().events.len();
    assert!(followed > 0);
    let whole = catalog.load(&session).unwrap();
    assert_eq!(
        markers(&whole.messages),
        RECORDS,
        "every appended record is read"
    );
}
