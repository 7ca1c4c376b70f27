//! Whatever bytes arrive, the server answers every line with one well-formed line (a result or
//! a coded error), never panics, and ends when its input does; the line reader keeps at most
//! its cap of any line.

mod common;

use std::io::BufReader;
use std::sync::{Arc, Mutex};

use agent_sessions_core::Roots;
use agent_sessions_remote::lines::{Line, LineReader};
use agent_sessions_remote::protocol::ServerLine;
use agent_sessions_remote::server::{serve, Options};
use common::SharedVec;
use proptest::prelude::*;

/// Lines that are JSON-ish often enough to reach the methods: random bytes, random methods
/// with random parameters, and requests that are almost right.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let methods = prop::sample::select(vec![
        "list",
        "changes",
        "show",
        "search",
        "log",
        "cancel",
        "blob",
        "stats",
        "diagnostics",
        "resume",
        "roots",
        "trash",
        "handoff",
        "nope",
        "",
    ]);
    let params = prop_oneof![
        Just("{}".to_owned()),
        Just("null".to_owned()),
        Just(r#"{"id":"x","offset":18446744073709551615,"limit":-1}"#.to_owned()),
        Just(r#"{"query":"\"","limit":0}"#.to_owned()),
        Just(r#"{"roots":[["claude","/nonexistent"]]}"#.to_owned()),
        "[ -~]{0,40}",
    ];
    prop_oneof![
        prop::collection::vec(
            any::<u8>().prop_filter("no newline", |b| *b != b'\n'),
            0..200
        ),
        (any::<u32>(), methods, params).prop_map(|(id, m, p)| {
            format!(r#"{{"id":{id},"method":"{m}","params":{p}}}"#).into_bytes()
        }),
    ]
}

/// Transfer requests with hostile fields: unknown and reused upload numbers, offsets out of
/// order or past the end, chunks that are not base64 or over the limit, sizes over the limit,
/// digests that are not hex, imports of uploads that are missing, partial or not bundles.
fn transfer_line() -> impl Strategy<Value = String> {
    let upload = prop::sample::select(vec![0u64, 1, 2, u64::MAX]);
    let offset = prop::sample::select(vec![0u64, 1, 3, 4, 524_288, u64::MAX]);
    let data = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..8).prop_map(|b| {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.encode(b)
        }),
        Just("not base64!".to_owned()),
        // One byte over the chunk limit.
        Just("A".repeat((512 * 1024 + 3) / 3 * 4)),
    ];
    let bytes = prop::sample::select(vec![0u64, 4, 8, 1 << 40]);
    let sha = prop_oneof![
        Just("0".repeat(64)),
        // The SHA-256 of four zero bytes.
        Just("df3f619804a92fdb4057192dc43dd748ea778adc52bc498ce80524c014b81119".to_owned()),
        Just("xyz".to_owned()),
    ];
    let dir = prop::sample::select(vec!["/nonexistent", "../..", "/tmp", ""]);
    prop_oneof![
        (bytes, sha).prop_map(|(b, s)| {
            format!(r#"{{"id":1,"method":"upload_start","params":{{"bytes":{b},"sha256":"{s}"}}}}"#)
        }),
        (upload.clone(), offset, data).prop_map(|(u, o, d)| {
            format!(r#"{{"id":2,"method":"upload_chunk","params":{{"upload":{u},"offset":{o},"base64":"{d}"}}}}"#)
        }),
        (upload, dir, any::<bool>()).prop_map(|(u, d, c)| {
            format!(r#"{{"id":3,"method":"bundle_import","params":{{"upload":{u},"dir":"{d}","as_copy":{c},"token":"x"}}}}"#)
        }),
        Just(r#"{"id":4,"method":"bundle_export","params":{"id":"nope"}}"#.to_owned()),
    ]
}

/// The replies to `lines` from a server over no stores, each checked to be one well-formed
/// answer (never a panic's `internal`).
fn serve_lines(lines: &[Vec<u8>]) -> Result<(), TestCaseError> {
    let mut input = Vec::new();
    for l in lines {
        input.extend_from_slice(l);
        input.push(b'\n');
    }
    let output = Arc::new(Mutex::new(Vec::new()));
    let options = Options {
        roots: Roots::default(),
        cache_dir: None,
        resolve: Box::new(|r| Ok(r.clone())),
    };
    serve(&input[..], SharedVec(output.clone()), options).unwrap();
    let text = String::from_utf8(output.lock().unwrap().clone()).unwrap();
    let replies: Vec<ServerLine> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    prop_assert!(replies[0].hello.is_some());
    prop_assert_eq!(replies.len(), lines.len() + 1);
    for r in &replies[1..] {
        prop_assert!(r.result.is_some() != r.error.is_some(), "{:?}", r);
        if let Some(e) = &r.error {
            prop_assert!(!e.code.is_empty() && !e.message.is_empty());
            prop_assert!(e.code != "internal", "a panic: {:?}", e);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn transfer_requests_get_one_well_formed_answer_each(lines in prop::collection::vec(transfer_line(), 0..16)) {
        let lines: Vec<Vec<u8>> = lines.into_iter().map(String::into_bytes).collect();
        serve_lines(&lines)?;
    }

    #[test]
    fn every_line_gets_one_well_formed_answer(lines in prop::collection::vec(line(), 0..12)) {
        serve_lines(&lines)?;
    }

    #[test]
    fn the_reader_never_keeps_more_than_its_cap(
        chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..300), 0..20),
        cap in 1usize..64,
    ) {
        let input: Vec<u8> = chunks.concat();
        let mut reader = LineReader::new(BufReader::with_capacity(16, &input[..]), cap);
        let mut seen = 0;
        while let Some(line) = reader.next_line().unwrap() {
            let len = match line {
                Line::Text(t) => { prop_assert!(t.len() <= cap); t.len() }
                Line::TooLong { len } => { prop_assert!(len > cap); len }
            };
            seen += len + 1;
        }
        // Every byte was accounted for (a last line may lack its newline).
        prop_assert!(seen == input.len() || seen == input.len() + 1);
    }
}
