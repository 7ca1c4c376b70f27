//! Streams (`follow`, `watch`) a client can hold on one connection: a bounded number, each under
//! an id of its own.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agent_sessions_remote::protocol::{ServerLine, MAX_STREAMS};
use agent_sessions_remote::transport::Transport;
use serde_json::json;

use common::*;

/// The answer (result or error, never an event) to request `id`, skipping the events of the
/// streams that run meanwhile.
fn answer(lines: &mpsc::Receiver<ServerLine>, id: u64) -> ServerLine {
    // The running watches send an event every few seconds: the wait is for the answer.
    let deadline = Instant::now() + Duration::from_secs(20);
    while let Ok(line) = lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        if line.id == Some(id) && line.event.is_none() {
            return line;
        }
    }
    panic!("no answer to request {id}")
}

fn code(line: &ServerLine) -> Option<&str> {
    line.error.as_ref().map(|e| e.code.as_str())
}

/// One more `watch` than the limit is refused with `too_many_streams`, and a stream under an id
/// that is running already with `stream_id_in_use`: the running one keeps its cancel handle, so
/// `cancel` stops it (its final answer comes) and frees its place for another.
#[test]
fn streams_per_connection_are_bounded_and_their_ids_unique() {
    let cache = tempfile::tempdir().unwrap();
    let transport = memory(claude_roots(&claude_fixture()), cache.path());
    let mut stream = transport.open().unwrap();
    let (tx, lines) = mpsc::channel();
    let mut reader = BufReader::new(stream.reader);
    std::thread::spawn(move || loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        let _ = tx.send(serde_json::from_str::<ServerLine>(&line).unwrap());
    });
    let hello = lines.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(hello.hello.is_some());
    let mut send = |request: serde_json::Value| {
        writeln!(stream.writer, "{request}").unwrap();
    };
    let watch = |id: u64| json!({ "id": id, "method": "watch", "params": { "cursor": 0 } });

    for id in 1..=MAX_STREAMS as u64 {
        send(watch(id));
    }
    let over = MAX_STREAMS as u64 + 1;
    send(watch(over));
    assert_eq!(code(&answer(&lines, over)), Some("too_many_streams"));

    send(watch(1));
    let again = answer(&lines, 1);
    assert_eq!(code(&again), Some("stream_id_in_use"), "{again:?}");

    send(json!({ "id": 100, "method": "cancel", "params": { "id": 1 } }));
    assert_eq!(
        answer(&lines, 100).result,
        Some(json!({ "cancelled": true }))
    );
    let ended = answer(&lines, 1);
    assert_eq!(
        ended.result.as_ref().unwrap()["cancelled"],
        true,
        "{ended:?}"
    );

    // Its place is free again.
    send(watch(over));
    send(json!({ "id": 101, "method": "cancel", "params": { "id": over } }));
    assert_eq!(
        answer(&lines, 101).result,
        Some(json!({ "cancelled": true }))
    );
    assert_eq!(answer(&lines, over).error, None);
}
