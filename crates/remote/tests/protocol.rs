//! The protocol end to end over the in-memory transport: a real server on a thread reading the
//! fixture stores, a real client. Answers equal what the core gives locally; bad input gets
//! coded errors and the server goes on; a follower survives a cut connection.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_sessions_core::live::events::EventType;
use agent_sessions_core::{Library, ScanProgress};
use agent_sessions_remote::lines::write_line;
use agent_sessions_remote::protocol::*;
use agent_sessions_remote::transport::Transport;
use agent_sessions_remote::Client;
use serde_json::{json, Value};

use common::*;

fn local_listing(roots: &agent_sessions_core::Roots) -> Vec<Value> {
    let cache = tempfile::tempdir().unwrap();
    let mut lib = Library::open(roots, &[], Some(cache.path().to_path_buf()));
    let report = lib.sessions(&ScanProgress::default()).unwrap();
    report.sessions.iter().map(|s| json!(s)).collect()
}

#[test]
fn hello_then_list_equals_the_local_listing() {
    let cache = tempfile::tempdir().unwrap();
    let roots = claude_roots(&claude_fixture());
    let mut client = Client::connect(Box::new(memory(roots.clone(), cache.path()))).unwrap();
    assert_eq!(client.hello(), &Hello::ours());
    let listed: ListResult = client.call(method::LIST, ListParams::default()).unwrap();
    let remote: Vec<Value> = listed.sessions.iter().map(|s| json!(s)).collect();
    assert!(remote.len() >= 5, "{} sessions", remote.len());
    assert_eq!(remote, local_listing(&roots));
}

#[test]
fn transcript_pages_add_up_to_the_local_transcript() {
    let cache = tempfile::tempdir().unwrap();
    let roots = claude_roots(&claude_fixture());
    let mut client = Client::connect(Box::new(memory(roots.clone(), cache.path()))).unwrap();
    let lib = Library::open(&roots, &[], None);
    let sessions = lib
        .catalog()
        .scan(&ScanProgress::default())
        .unwrap()
        .sessions;
    let longest = sessions
        .iter()
        .max_by_key(|s| s.counts.user + s.counts.assistant)
        .unwrap();
    let local = lib.catalog().load(longest).unwrap();
    assert!(local.messages.len() > 4, "a session of several pages");

    let mut params = ShowParams {
        session: SessionRef {
            id: longest.id[..8].to_owned(),
            provider: None,
        },
        offset: 0,
        limit: 3,
    };
    let mut messages = Vec::new();
    let mut pages = 0;
    loop {
        let page: ShowResult = client.call(method::SHOW, &params).unwrap();
        assert!(page.messages.len() <= 3);
        assert_eq!(page.session.id, longest.id, "a prefix names the session");
        messages.extend(page.messages);
        pages += 1;
        match page.next {
            Some(next) => {
                params.offset = next;
                params.session = SessionRef {
                    id: longest.id.clone(),
                    provider: Some(longest.provider),
                };
            }
            None => break,
        }
    }
    assert!(pages > 1);
    assert_eq!(json!(messages), json!(local.messages));
}

#[test]
fn unknown_sessions_and_ambiguous_prefixes_keep_the_cores_codes() {
    let cache = tempfile::tempdir().unwrap();
    let mut client = Client::connect(Box::new(memory(
        claude_roots(&claude_fixture()),
        cache.path(),
    )))
    .unwrap();
    let show = |client: &mut Client, id: &str| {
        let params = ShowParams {
            session: SessionRef {
                id: id.into(),
                provider: None,
            },
            ..ShowParams::default()
        };
        client.call::<ShowResult>(method::SHOW, params).unwrap_err()
    };
    assert_eq!(
        show(&mut client, "no-such-session").code(),
        "session_not_found"
    );
    assert_eq!(show(&mut client, "").code(), "ambiguous_id");
    let bad: agent_sessions_remote::Error = client
        .call::<Value>(method::SEARCH, json!({ "query": "\"unclosed", "limit": 5 }))
        .unwrap_err();
    assert_eq!(bad.code(), "bad_query", "{bad}");
}

/// Raw lines to a server: what comes back for each.
fn raw_exchange(lines: &[Vec<u8>]) -> Vec<ServerLine> {
    let cache = tempfile::tempdir().unwrap();
    let transport = memory(claude_roots(&claude_fixture()), cache.path());
    let mut stream = transport.open().unwrap();
    let mut reader = BufReader::new(stream.reader);
    let mut replies = Vec::new();
    let read_one = |reader: &mut BufReader<_>| {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        serde_json::from_str::<ServerLine>(&line).unwrap()
    };
    assert!(read_one(&mut reader).hello.is_some());
    for l in lines {
        stream.writer.write_all(l).unwrap();
        stream.writer.write_all(b"\n").unwrap();
        replies.push(read_one(&mut reader));
    }
    replies
}

#[test]
fn bad_lines_get_coded_errors_and_the_server_goes_on() {
    let long = vec![b'x'; MAX_REQUEST_LINE + 10];
    let replies = raw_exchange(&[
        long,
        b"{not json".to_vec(),
        br#"{"id":5,"method":"launch_missiles"}"#.to_vec(),
        br#"{"id":6,"method":"show","params":{"id":7}}"#.to_vec(),
        br#"{"id":7,"method":"cancel","params":{"id":99}}"#.to_vec(),
        br#"{"id":8,"method":"list"}"#.to_vec(),
    ]);
    let codes: Vec<Option<&str>> = replies
        .iter()
        .map(|r| r.error.as_ref().map(|e| e.code.as_str()))
        .collect();
    assert_eq!(
        codes,
        [
            Some("line_too_long"),
            Some("bad_request"),
            Some("unknown_method"),
            Some("bad_params"),
            None,
            None
        ]
    );
    assert_eq!(
        replies[2].id,
        Some(5),
        "an error names its request when it could be read"
    );
    assert_eq!(replies[4].result, Some(json!({ "cancelled": false })));
    assert!(
        replies[5].result.as_ref().unwrap()["sessions"]
            .as_array()
            .unwrap()
            .len()
            >= 5
    );
}

#[test]
fn the_server_ends_when_its_input_closes() {
    let cache = tempfile::tempdir().unwrap();
    let output = Arc::new(Mutex::new(Vec::new()));
    let out = SharedVec(output.clone());
    let input = b"{\"id\":1,\"method\":\"stats\",\"params\":{\"by\":\"agent\"}}\n".to_vec();
    let options = agent_sessions_remote::server::Options {
        roots: claude_roots(&claude_fixture()),
        cache_dir: Some(cache.path().to_path_buf()),
        resolve: Box::new(|r| Ok(r.clone())),
    };
    agent_sessions_remote::server::serve(&input[..], out, options).unwrap();
    let text = String::from_utf8(output.lock().unwrap().clone()).unwrap();
    let lines: Vec<ServerLine> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    let stats = lines[1].result.as_ref().unwrap();
    assert_eq!(stats["by"], "agent");
    assert_eq!(stats["groups"][0]["key"], "claude");
}

/// A live session grows while its follower's connection is cut twice: every new event arrives
/// once, in order, and the client opened new connections to get them.
#[test]
fn a_follower_resumes_from_its_cursor_after_a_cut_connection() {
    let store = claude_copy();
    let cache = tempfile::tempdir().unwrap();
    let pid_file = claim_live(store.path());
    let transport = memory(claude_roots(store.path()), cache.path());
    let mut client = Client::connect(Box::new(transport.clone())).unwrap();
    let log: LogResult = client
        .call(
            method::LOG,
            SessionRef {
                id: LIVE_SESSION.into(),
                provider: None,
            },
        )
        .unwrap();
    assert!(!log.ended, "claimed live");

    let root = store.path().to_path_buf();
    let writer = std::thread::spawn(move || {
        for n in 1..=3 {
            std::thread::sleep(Duration::from_millis(400));
            append_prompt(&root, n);
            std::thread::sleep(Duration::from_millis(400));
            if n < 3 {
                transport.cut();
            }
        }
        std::thread::sleep(Duration::from_millis(400));
        std::fs::remove_file(pid_file).unwrap();
    });
    let mut prompts = Vec::new();
    let mut last = log.cursor;
    let params = FollowParams {
        provider: log.session.provider,
        id: log.session.id.clone(),
        cursor: log.cursor,
    };
    client
        .follow(params, &mut |e| {
            for ev in &e.events {
                assert!(ev.seq > last, "events arrive once, in order");
                last = ev.seq;
                if ev.kind == EventType::Prompt {
                    prompts.push(ev.seq);
                }
            }
            true
        })
        .unwrap();
    writer.join().unwrap();
    assert_eq!(prompts.len(), 3, "each appended prompt, once");
    assert!(
        client.connections >= 3,
        "{} connections",
        client.connections
    );
}

/// A follower whose cursor lies before the server's window hears `truncated`.
#[test]
fn a_cursor_out_of_the_window_is_reported_truncated() {
    let store = claude_copy();
    let cache = tempfile::tempdir().unwrap();
    claim_live(store.path());
    // 17 MiB of prompts: more than the follower's 16 MiB window.
    let path = store.path().join(format!(
        "projects/-home-bob-projects-demo/{LIVE_SESSION}.jsonl"
    ));
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    let filler = "y".repeat(4000);
    for n in 0..4400 {
        writeln!(f, r#"{{"type":"user","uuid":"f{n}","sessionId":"{LIVE_SESSION}","timestamp":"2026-11-30T10:00:00.000Z","message":{{"role":"user","content":"{filler}"}}}}"#).unwrap();
    }
    drop(f);
    let mut client =
        Client::connect(Box::new(memory(claude_roots(store.path()), cache.path()))).unwrap();
    let params = FollowParams {
        provider: agent_sessions_core::ProviderKind::Claude,
        id: LIVE_SESSION.into(),
        cursor: 0,
    };
    let mut first = None;
    client
        .follow(params, &mut |e| {
            first.get_or_insert_with(|| e.clone());
            false
        })
        .unwrap();
    let first = first.unwrap();
    assert!(first.truncated);
    assert!(!first.events.is_empty());
}

#[test]
fn a_request_line_is_written_as_one_line() {
    let mut out = Vec::new();
    write_line(
        &mut out,
        &Request {
            id: 1,
            method: "list".into(),
            params: json!({ "text": "a\nb" }),
        },
    )
    .unwrap();
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1);
}

/// `changes` after a `list`: the session a write changed comes back, listed as it is now.
#[test]
fn changes_since_a_cursor_name_the_session_a_write_changed() {
    let store = claude_copy();
    let cache = tempfile::tempdir().unwrap();
    let mut client =
        Client::connect(Box::new(memory(claude_roots(store.path()), cache.path()))).unwrap();
    let listed: ListResult = client.call(method::LIST, ListParams::default()).unwrap();
    // The first call starts the server's refresh loop; nothing changed yet.
    let first: Value = client
        .call(method::CHANGES, ChangesParams { cursor: listed.seq })
        .unwrap();
    assert_eq!(first["changed"], json!([]));
    let mut cursor = first["seq"].as_u64().unwrap();
    append_prompt(store.path(), 1);
    let until = std::time::Instant::now() + Duration::from_secs(15);
    let changed = loop {
        let delta: Value = client
            .call(method::CHANGES, ChangesParams { cursor })
            .unwrap();
        cursor = delta["seq"].as_u64().unwrap();
        if let Some(s) = delta["changed"].as_array().and_then(|c| c.first()) {
            break s.clone();
        }
        assert!(std::time::Instant::now() < until, "no change reported");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(changed["id"], LIVE_SESSION);
    assert_eq!(changed["counts"]["user"], 3, "listed as it is now");
}

/// A blob key from a transcript page gives the bytes the store holds.
#[test]
fn a_blob_comes_back_whole() {
    use base64::Engine;
    let cache = tempfile::tempdir().unwrap();
    let roots = claude_roots(&claude_fixture());
    let mut client = Client::connect(Box::new(memory(roots.clone(), cache.path()))).unwrap();
    let lib = Library::open(&roots, &[], None);
    let sessions = lib
        .catalog()
        .scan(&ScanProgress::default())
        .unwrap()
        .sessions;
    let (session, key) = sessions
        .iter()
        .find_map(|s| {
            let t = lib.catalog().load(s).ok()?;
            let text = serde_json::to_string(&t.messages).ok()?;
            let at = text.find("\"output_blob\":\"")? + "\"output_blob\":\"".len();
            let key = text[at..].split('"').next()?.to_owned();
            Some((s.clone(), key))
        })
        .expect("a fixture session with a blob");
    let local = agent_sessions_core::blob::read(lib.catalog(), &session, &key).unwrap();
    let params = BlobParams {
        session: SessionRef {
            id: session.id.clone(),
            provider: Some(session.provider),
        },
        key: key.clone(),
    };
    let got: BlobResult = client.call(method::BLOB, params).unwrap();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(got.base64)
        .unwrap();
    assert_eq!(bytes, local);
    assert_eq!(got.bytes, local.len());
    let missing = BlobParams {
        session: SessionRef {
            id: session.id.clone(),
            provider: None,
        },
        key: "tool-results/../../etc/passwd".into(),
    };
    assert_eq!(
        client
            .call::<BlobResult>(method::BLOB, missing)
            .unwrap_err()
            .code(),
        "blob_not_found"
    );
}
