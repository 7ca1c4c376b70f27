//! The protocol end to end over the in-memory transport: a real server on a thread reading the
//! fixture stores, a real client. Answers equal what the core gives locally; bad input gets
//! coded errors and the server goes on; a follower survives a cut connection.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_sessions_core::live::events::EventType;
use agent_sessions_core::{Library, ProviderKind, Roots, ScanProgress};
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
fn diagnostics_name_the_servers_roots_and_cache() {
    let cache = tempfile::tempdir().unwrap();
    let missing = cache.path().join("no-such-codex-root");
    let roots = claude_roots(&claude_fixture()).with(ProviderKind::Codex, [&missing]);
    let mut client = Client::connect(Box::new(memory(roots.clone(), cache.path()))).unwrap();
    let all: DiagnosticsPlaces = client
        .call(method::DIAGNOSTICS, DiagnosticsParams::default())
        .unwrap();
    let expected = vec![
        RootPlace {
            provider: ProviderKind::Claude,
            root: claude_fixture(),
            exists: true,
        },
        RootPlace {
            provider: ProviderKind::Codex,
            root: missing,
            exists: false,
        },
    ];
    assert_eq!(all.roots, expected);
    // The cache the server's own listing just filled: its file under the server's directory.
    let local = agent_sessions_core::health::CacheInfo::of(Some(cache.path()), &roots);
    let remote = all.cache.unwrap();
    assert_eq!(remote.dir.as_deref(), Some(cache.path()));
    assert_eq!(remote.path, local.path);
    assert!(remote.path.unwrap().starts_with(cache.path()));
    assert!(remote.bytes > 0);
    assert_eq!(remote.bytes, local.bytes);

    let claude_only = DiagnosticsParams {
        providers: vec![ProviderKind::Claude],
    };
    let some: DiagnosticsPlaces = client.call(method::DIAGNOSTICS, claude_only).unwrap();
    assert_eq!(some.roots, expected[..1]);
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
            source_path: None,
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
                    source_path: None,
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
                source_path: None,
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
                source_path: None,
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
        source_path: None,
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
        source_path: None,
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
            source_path: None,
        },
        key: key.clone(),
    };
    assert_eq!(
        client.blob(&params).unwrap(),
        local,
        "the typed call decodes it"
    );
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
            source_path: None,
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

/// `serve`'s `blob` on OpenCode's JSON storage: a `part:` key that is a path (it used to read
/// a `.json` file outside every root) names nothing, as a `tool-results/` one never did.
#[test]
fn a_part_key_that_is_a_path_names_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("opencode");
    let fixture = agent_sessions_test_support::fixture(ProviderKind::Opencode, "1.0.98");
    copy_dir(&fixture, &store);
    // What `part:../../../../secret` reached from `storage/part/<message>/`.
    let outside = tmp.path().join("secret.json");
    std::fs::write(
        &outside,
        r#"{"state":{"output":"SECRET OUTSIDE THE STORE"}}"#,
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let roots = Roots::default().with(ProviderKind::Opencode, [&store]);
    let (_, sessions) = scanned(&roots);
    let mut client = Client::connect(Box::new(memory(roots, cache.path()))).unwrap();
    for key in ["part:../../../../secret", "part:..", "part:a/b"] {
        let params = BlobParams {
            session: SessionRef {
                id: sessions[0].id.clone(),
                provider: Some(ProviderKind::Opencode),
                source_path: None,
            },
            key: key.into(),
        };
        let refused = client.call::<BlobResult>(method::BLOB, params).unwrap_err();
        assert_eq!(refused.code(), "blob_not_found", "{key}");
        assert!(
            refused.to_string().contains("not a file name"),
            "{key}: {refused}"
        );
    }
}

/// `watch` pushes the change a write makes (the session as listed now) without being asked
/// again; after a cut connection the client watches on from its cursor, which the new
/// connection's feed answers with `reset` (list again).
#[test]
fn a_watch_pushes_a_write_and_resets_after_a_cut_connection() {
    let store = claude_copy();
    let cache = tempfile::tempdir().unwrap();
    let transport = memory(claude_roots(store.path()), cache.path());
    let mut client = Client::connect(Box::new(transport.clone())).unwrap();
    let listed: ListResult = client.call(method::LIST, ListParams::default()).unwrap();
    let root = store.path().to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // The write comes once the watch runs.
        std::thread::sleep(Duration::from_secs(1));
        append_prompt(&root, 1);
    });
    std::thread::spawn(move || {
        let mut cut = false;
        let end = client.watch(listed.seq, &mut |event| {
            let _ = tx.send(Some(event.clone()));
            let written = event
                .changed
                .iter()
                .any(|s| s.id == LIVE_SESSION && s.counts.user == 3);
            if written && !cut {
                cut = true;
                transport.cut();
            }
            !(cut && event.reset)
        });
        let _ = tx.send(None);
        end.unwrap()
    });
    let mut seen = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(Some(event)) => seen.push(event),
            Ok(None) => break,
            Err(_) => panic!("the watch stalled; saw {seen:?}"),
        }
    }
    let written = seen
        .iter()
        .position(|e| {
            e.changed
                .iter()
                .any(|s| s.id == LIVE_SESSION && s.counts.user == 3)
        })
        .expect("the write was pushed");
    assert!(seen[written + 1..].iter().any(|e| e.reset), "{seen:?}");
}

/// A bundle made on the server arrives whole (checked by the bundle reader), goes back up in
/// chunks, and restores there: refused as itself (the store has it) with the store unchanged,
/// restored as a copy with the preview's token, and then listed. Uploads refuse chunks out of
/// order, over the limit, and a file whose digest is not the one announced.
#[test]
fn a_bundle_goes_down_and_back_up_and_restores_as_a_copy() {
    use agent_sessions_core::bundle::Bundle;
    const S: &str = "9d22e384-6685-4b75-ac35-088162e4c4a9";
    let store = claude_copy();
    let work = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut client =
        Client::connect(Box::new(memory(claude_roots(store.path()), cache.path()))).unwrap();
    let file = work.path().join("b.zip");
    let mut out = std::fs::File::create(&file).unwrap();
    let params = BundleExportParams {
        session: SessionRef {
            id: S[..8].to_owned(),
            provider: None,
            source_path: None,
        },
        share_safe: false,
    };
    let exported = client.bundle_export(&params, &mut out).unwrap();
    drop(out);
    assert!(exported.name.ends_with(".agent-session.zip"));
    let bundle = Bundle::open(&file).unwrap();
    assert_eq!(bundle.manifest.session.id, S);
    assert_eq!(
        (bundle.size, bundle.sha256.clone()),
        (exported.bytes, exported.sha256)
    );

    // Hostile chunks.
    let bad: Value = json!({"upload": 99, "offset": 0, "base64": ""});
    let err = client.call::<Value>(method::UPLOAD_CHUNK, bad).unwrap_err();
    assert_eq!(err.code(), "upload_not_found");
    let started: UploadStarted = client
        .call(
            method::UPLOAD_START,
            UploadStartParams {
                bytes: 8,
                sha256: "0".repeat(64),
            },
        )
        .unwrap();
    let chunk = |offset: u64, data: &[u8]| {
        use base64::Engine;
        json!({"upload": started.upload, "offset": offset,
               "base64": base64::engine::general_purpose::STANDARD.encode(data)})
    };
    let err = client
        .call::<Value>(method::UPLOAD_CHUNK, chunk(4, b"abcd"))
        .unwrap_err();
    assert_eq!(err.code(), "bad_params", "{err}");
    let err = client
        .call::<Value>(method::UPLOAD_CHUNK, chunk(0, b"abcdefghij"))
        .unwrap_err();
    assert_eq!(err.code(), "bad_params", "past the announced size: {err}");
    let err = client
        .call::<Value>(method::UPLOAD_CHUNK, chunk(0, &vec![0; UPLOAD_CHUNK + 1]))
        .unwrap_err();
    assert_eq!(err.code(), "bad_params", "over the chunk limit: {err}");
    let half: UploadReceived = client
        .call(method::UPLOAD_CHUNK, chunk(0, b"abcd"))
        .unwrap();
    assert_eq!((half.received, half.complete), (4, false));
    let import = |upload: u64, as_copy: bool, token: Option<String>| BundleImportParams {
        upload,
        dir: work.path().to_path_buf(),
        as_copy,
        token,
    };
    let err = client
        .call::<Value>(method::BUNDLE_IMPORT, import(started.upload, false, None))
        .unwrap_err();
    assert_eq!(err.code(), "bad_params", "a partial upload: {err}");
    let err = client
        .call::<Value>(method::UPLOAD_CHUNK, chunk(4, b"efgh"))
        .unwrap_err();
    assert_eq!(err.code(), "upload_checksum", "{err}");

    // The bundle itself, up in chunks.
    let upload = client.upload(&file).unwrap();
    let before = std::fs::read_dir(store.path().join("projects"))
        .unwrap()
        .count();
    let err = client
        .call::<BundleImportResult>(method::BUNDLE_IMPORT, import(upload, false, None))
        .unwrap_err();
    assert_eq!(err.code(), "session_exists", "{err}");
    let preview: BundleImportResult = client
        .call(method::BUNDLE_IMPORT, import(upload, true, None))
        .unwrap();
    assert!(preview.restored.is_none());
    assert_eq!(
        std::fs::read_dir(store.path().join("projects"))
            .unwrap()
            .count(),
        before
    );
    let err = client
        .call::<BundleImportResult>(
            method::BUNDLE_IMPORT,
            import(upload, true, Some("forged".into())),
        )
        .unwrap_err();
    assert_eq!(err.code(), "restore_token", "{err}");
    let token = Some(preview.preview.token.clone());
    let done: BundleImportResult = client
        .call(method::BUNDLE_IMPORT, import(upload, true, token))
        .unwrap();
    let restored = done.restored.unwrap();
    assert_eq!(restored.session_id, preview.preview.session_id);
    assert_ne!(restored.session_id, S);
    assert_eq!(done.session.unwrap().id, restored.session_id);
    let listed: ListResult = client.call(method::LIST, ListParams::default()).unwrap();
    assert!(listed.sessions.iter().any(|s| s.id == restored.session_id));
    // The upload is done with.
    let err = client
        .call::<Value>(method::BUNDLE_IMPORT, import(upload, true, None))
        .unwrap_err();
    assert_eq!(err.code(), "upload_not_found");
}

/// An Aider run restored on a host into a directory no agent ran in and no root names is
/// listed by that host from then on, over a new connection, as after a local `bundle import`
/// (issue 33): the host's cache remembers the directory; once the history is gone, it is not.
#[test]
fn an_aider_run_restored_on_a_host_is_listed_there_afterwards() {
    const RUN: &str = "aider-4af21869db5e7876";
    let fixture = agent_sessions_test_support::fixture(ProviderKind::Aider, "0.86.2");
    let work = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let source = Roots::default().with(ProviderKind::Aider, [&fixture]);
    let mut from = Client::connect(Box::new(memory(source, cache.path()))).unwrap();
    let file = work.path().join("run.zip");
    let mut out = std::fs::File::create(&file).unwrap();
    let params = BundleExportParams {
        session: SessionRef {
            id: RUN.to_owned(),
            provider: Some(ProviderKind::Aider),
            source_path: None,
        },
        share_safe: false,
    };
    from.bundle_export(&params, &mut out).unwrap();
    drop(out);

    // The host: no Aider root, its own cache; the target a fresh directory.
    let host_cache = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let dir = agent_sessions_test_support::Canonical::canonical(target.path());
    let connect = || Client::connect(Box::new(memory(Roots::default(), host_cache.path())));
    let mut host = connect().unwrap();
    let upload = host.upload(&file).unwrap();
    let import = |token: Option<String>| BundleImportParams {
        upload,
        dir: dir.clone(),
        as_copy: false,
        token,
    };
    let preview: BundleImportResult = host.call(method::BUNDLE_IMPORT, import(None)).unwrap();
    let token = Some(preview.preview.token.clone());
    let done: BundleImportResult = host.call(method::BUNDLE_IMPORT, import(token)).unwrap();
    let restored = done.restored.unwrap().session_id;
    drop(host);

    let aider_cwds = || {
        let mut again = connect().unwrap();
        let listed: ListResult = again.call(method::LIST, ListParams::default()).unwrap();
        listed
            .sessions
            .into_iter()
            .filter(|s| s.provider == ProviderKind::Aider)
            .map(|s| (s.id, s.cwd))
            .collect::<Vec<_>>()
    };
    let cwd = Some(dir.to_string_lossy().into_owned());
    assert!(
        aider_cwds().contains(&(restored, cwd.clone())),
        "{:?}",
        aider_cwds()
    );
    std::fs::remove_file(dir.join(".aider.chat.history.md")).unwrap();
    assert!(aider_cwds().iter().all(|(_, c)| *c != cwd));
}

/// Makes `file` an hour old: no agent is writing it (trash leaves recent sessions alone).
fn an_hour_old(file: &std::path::Path) {
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(old)
        .unwrap();
}

/// `trash` without a plan only plans; with a plan other than the one planning gives now it is
/// refused as `stale_plan` and nothing is touched (what runs is exactly what was shown).
#[test]
fn trash_runs_only_the_plan_planning_gives_now() {
    use agent_sessions_core::actions::trash::Plan;
    const S: &str = "9d22e384-6685-4b75-ac35-088162e4c4a9";
    let store = claude_copy();
    let file = store
        .path()
        .join(format!("projects/-home-bob-projects-demo/{S}.jsonl"));
    an_hour_old(&file);
    allow_delete();
    let cache = tempfile::tempdir().unwrap();
    let mut client =
        Client::connect(Box::new(memory(claude_roots(store.path()), cache.path()))).unwrap();
    let mut params = TrashParams {
        session: SessionRef {
            id: S.to_owned(),
            provider: None,
            source_path: None,
        },
        permanent: false,
        subagents: None,
        plan: None,
    };
    let planned: Value = client.call(method::TRASH, &params).unwrap();
    assert!(planned["done"].is_null());
    let mut plan: Plan = serde_json::from_value(planned["plan"].clone()).unwrap();
    assert_eq!(plan.session.id, S);
    plan.notes.push("not what was planned".into());
    params.plan = Some(plan);
    let err = client.call::<Value>(method::TRASH, &params).unwrap_err();
    assert_eq!(err.code(), "stale_plan", "{err}");
    assert!(file.exists(), "nothing was touched");
}

/// A Claude transcript saved as `..jsonl` on the host is session `.`, whose plan took the
/// whole `projects/` folder: over the protocol too it is refused (`invalid_session_id`),
/// planned or run, and nothing on the host moves.
#[test]
fn trash_of_a_session_named_dot_is_refused_on_the_host() {
    use agent_sessions_core::actions::trash::Plan;
    let store = claude_copy();
    let demo = store.path().join("projects/-home-bob-projects-demo");
    let hostile = demo.join("..jsonl");
    std::fs::copy(
        demo.join("9d22e384-6685-4b75-ac35-088162e4c4a9.jsonl"),
        &hostile,
    )
    .unwrap();
    an_hour_old(&hostile);
    allow_delete();
    let before = agent_sessions_test_support::snapshot(store.path());
    let cache = tempfile::tempdir().unwrap();
    let mut client =
        Client::connect(Box::new(memory(claude_roots(store.path()), cache.path()))).unwrap();
    let mut params = TrashParams {
        session: SessionRef {
            id: ".".to_owned(),
            provider: Some(ProviderKind::Claude),
            source_path: Some(hostile.clone()),
        },
        permanent: false,
        subagents: Some(true),
        plan: None,
    };
    let err = client.call::<Value>(method::TRASH, &params).unwrap_err();
    assert_eq!(err.code(), "invalid_session_id", "{err}");
    // A plan sent to be run (as a client that planned elsewhere would) is planned again there.
    let (_, sessions) = scanned(&claude_roots(store.path()));
    let session = sessions.iter().find(|s| s.source_path == hostile).unwrap();
    let forged: Plan = serde_json::from_value(json!({
        "mode": "trash",
        "session": {"provider": "claude", "id": ".", "title": null,
                    "source_path": hostile, "updated_at": session.updated_at},
        "subagents": [], "include_subagents": true, "notes": [],
        "steps": [{"kind": "os_trash", "items": [
            {"path": demo.join(".."), "dir": true, "bytes": 0, "files": 0}]}],
    }))
    .unwrap();
    params.plan = Some(forged);
    let err = client.call::<Value>(method::TRASH, &params).unwrap_err();
    assert_eq!(err.code(), "invalid_session_id", "{err}");
    assert_eq!(agent_sessions_test_support::snapshot(store.path()), before);
}

/// `raw`: the records behind a message of each agent's fixture store, as the remote reads them,
/// equal the local core call's (lines of a Claude or Codex file, OpenCode's rows); a bad
/// message id, an unknown message or session get their codes.
#[test]
fn raw_records_are_the_local_ones_for_each_agent() {
    use agent_sessions_core::raw;
    let cache = tempfile::tempdir().unwrap();
    let roots = every_agent_roots();
    let mut client = Client::connect(Box::new(memory(roots.clone(), cache.path()))).unwrap();
    let (lib, sessions) = scanned(&roots);
    let mut seen = Vec::new();
    for kind in [
        ProviderKind::Claude,
        ProviderKind::Codex,
        ProviderKind::Opencode,
    ] {
        let mut records = 0;
        for session in sessions.iter().filter(|s| s.provider == kind).take(3) {
            let transcript = lib.catalog().load(session).unwrap();
            for message in &transcript.messages {
                let params = RawParams {
                    session: SessionRef {
                        id: session.id.clone(),
                        provider: Some(kind),
                        source_path: None,
                    },
                    message: message.id.clone(),
                };
                let remote = client.raw(&params).unwrap();
                let local = raw::records(lib.catalog(), session, message).unwrap();
                assert_eq!(remote, local, "{kind:?} {} {}", session.id, message.id);
                records += remote.records.len();
            }
        }
        assert!(records > 0, "no records of {kind:?}");
        seen.push(kind);
    }
    assert_eq!(seen.len(), 3);

    let first = sessions.first().unwrap();
    let at = |id: &str, message: &str| RawParams {
        session: SessionRef {
            id: id.to_owned(),
            provider: None,
            source_path: None,
        },
        message: message.to_owned(),
    };
    let code = |client: &mut Client, p: RawParams| match client.raw(&p).unwrap_err() {
        agent_sessions_remote::Error::Server(w) => w.code,
        other => panic!("not a server error: {other}"),
    };
    assert_eq!(code(&mut client, at(&first.id, "")), "bad_params");
    assert_eq!(code(&mut client, at(&first.id, "a\u{1b}[2J")), "bad_params");
    assert_eq!(
        code(&mut client, at(&first.id, &"x".repeat(300))),
        "bad_params"
    );
    assert_eq!(
        code(&mut client, at(&first.id, "no-such")),
        "message_not_found"
    );
    assert_eq!(
        code(&mut client, at("00000000-nope", "no-such")),
        "session_not_found"
    );
    // The connection goes on after refusals.
    let message = lib.catalog().load(first).unwrap().messages[0].id.clone();
    assert!(client.raw(&at(&first.id, &message)).is_ok());
}

/// While nothing changes, a `watch` still sends an empty event every `HEARTBEAT` (the same
/// `seq`, nothing changed): a client that no longer wants it stops there, and the connection
/// answers again.
#[test]
fn an_idle_watch_sends_empty_events_and_stops_when_told() {
    let cache = tempfile::tempdir().unwrap();
    let mut client = Client::connect(Box::new(memory(
        claude_roots(&claude_fixture()),
        cache.path(),
    )))
    .unwrap();
    let listed: ListResult = client.call(method::LIST, ListParams::default()).unwrap();
    let started = std::time::Instant::now();
    let mut seen = Vec::new();
    let end = client
        .watch(listed.seq, &mut |event| {
            seen.push(event.clone());
            event.reset || !event.changed.is_empty()
        })
        .unwrap();
    let last = seen.last().unwrap();
    assert!(
        !last.reset && last.changed.is_empty() && last.removed.is_empty(),
        "{seen:?}"
    );
    assert_eq!(end, last.seq);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let again: ListResult = client.call(method::LIST, ListParams::default()).unwrap();
    assert_eq!(again.sessions.len(), listed.sessions.len());
}

/// `log` asked again as a session grows (the app's Timeline tab on a remote host): the server
/// keeps the session's follower between the requests, and each answer is still the whole
/// timeline a new follower over the same file gives.
#[test]
fn log_asked_again_as_a_session_grows_answers_the_whole_timeline() {
    use agent_sessions_core::live::follow::Follower;
    let store = claude_copy();
    let cache = tempfile::tempdir().unwrap();
    let roots = claude_roots(store.path());
    let mut client = Client::connect(Box::new(memory(roots.clone(), cache.path()))).unwrap();
    let named = SessionRef {
        id: LIVE_SESSION.into(),
        provider: Some(ProviderKind::Claude),
        source_path: None,
    };
    let (lib, sessions) = scanned(&roots);
    let meta = sessions.iter().find(|s| s.id == LIVE_SESSION).unwrap();
    let mut prompts = 0;
    for n in 0..4 {
        if n > 0 {
            append_prompt(store.path(), n);
        }
        let log = client.log(&named).unwrap();
        let fresh = Follower::new(meta.clone(), 0).poll(lib.catalog()).unwrap();
        assert_eq!(log.events, fresh.events, "after {n} appends");
        assert_eq!(log.cursor, fresh.cursor);
        let now = log.events.iter().filter(|e| e.kind == EventType::Prompt);
        let now = now.count();
        assert!(
            n == 0 || now == prompts + 1,
            "{now} prompts after {n} appends"
        );
        prompts = now;
    }
}
