//! Property tests for the JSONL reading path: any bytes, any split of a growing file, any line
//! length — never a panic, and an incremental scan always equals a scan of the whole file.

use std::io::Write;
use std::path::{Path, PathBuf};

use agent_sessions_core::provider::claude::scan::{scan_file, Cursor, FileRole};
use agent_sessions_core::provider::jsonl::LineReader;
use proptest::prelude::*;

/// Every `.jsonl` file under `testdata/<provider>`, sorted.
fn jsonl_files(provider: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(provider);
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The Claude transcripts (not `history.jsonl`).
fn fixture_files() -> Vec<PathBuf> {
    jsonl_files("claude")
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("/projects/"))
        .collect()
}

fn role_for(path: &Path) -> FileRole {
    let name = path.file_name().unwrap().to_string_lossy();
    if path.to_string_lossy().contains("/subagents/") {
        FileRole::Subagent { parent: "p".into() }
    } else if name.starts_with("agent-") {
        FileRole::FlatAgent
    } else {
        FileRole::Main
    }
}

/// Writes `data` in two steps, split at `cut`, scanning after each, and compares with one scan.
fn split_scan_equals_whole(data: &[u8], cut: usize, role: &FileRole) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, &data[..cut]).unwrap();
    let first = scan_file(&path, role, Cursor::default()).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(&data[cut..]).unwrap();
    drop(f);
    let resumed = scan_file(&path, role, first).unwrap();
    let whole = scan_file(&path, role, Cursor::default()).unwrap();
    assert_eq!(resumed, whole, "split at byte {cut}");
}

#[test]
fn every_fixture_resumes_from_any_line_boundary_or_mid_line() {
    let files = fixture_files();
    assert!(
        files.len() > 40,
        "found only {} fixture transcripts",
        files.len()
    );
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let role = role_for(&path);
        let mut cuts: Vec<usize> = data
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1)
            .collect();
        // And in the middle of lines, as a live writer leaves them.
        cuts.extend((0..data.len()).step_by(997));
        for cut in cuts {
            split_scan_equals_whole(&data, cut.min(data.len()), &role);
        }
    }
}

fn record_line() -> impl Strategy<Value = String> {
    let text = "[a-zA-Z0-9 \\\\\"é\u{1F600}]{0,40}";
    prop_oneof![
        text.prop_map(|t| format!(
            r#"{{"type":"user","sessionId":"s","message":{{"content":{}}}}}"#,
            serde_json::to_string(&t).unwrap()
        )),
        (0u8..5, "[a-z]{1,6}").prop_map(|(n, id)| format!(
            r#"{{"type":"assistant","message":{{"id":"m{n}","model":"x","content":[{{"type":"tool_use","id":"{id}"}}],"usage":{{"output_tokens":{n}}}}}}}"#
        )),
        Just(r#"{"type":"summary","summary":"s","leafUuid":"u"}"#.to_owned()),
        Just(r#"{"type":"user","message":"not an object"}"#.to_owned()),
        Just(r#"{"type":["odd"],"isMeta":"yes","timestamp":5}"#.to_owned()),
        Just("not json at all".to_owned()),
        Just(r#"{"type":"user","message":{"content":"lone \ud800 surrogate"}}"#.to_owned()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, &data).unwrap();
        let c = scan_file(&path, &FileRole::Main, Cursor::default()).unwrap();
        prop_assert!(c.offset <= data.len() as u64);
    }

    #[test]
    fn growing_files_resume_exactly(
        lines in proptest::collection::vec(record_line(), 1..30),
        cut_frac in 0.0f64..1.0,
    ) {
        let data = lines.join("\n") + "\n";
        let cut = (data.len() as f64 * cut_frac) as usize;
        split_scan_equals_whole(data.as_bytes(), cut, &FileRole::Main);
    }

    #[test]
    fn line_reader_returns_every_line_or_says_it_was_too_long(
        lens in proptest::collection::vec(0usize..300, 1..20),
        max in 16usize..200,
    ) {
        let lines: Vec<String> = lens.iter().enumerate().map(|(i, n)| format!("{i}:{}", "x".repeat(*n))).collect();
        let data = lines.join("\n") + "\n";
        let mut reader = LineReader::new(data.as_bytes(), 0, 0).with_max_line(max);
        let mut seen = 0;
        while let Some(line) = reader.next_line().unwrap() {
            let want = &lines[seen];
            if want.len() > max {
                prop_assert!(line.too_long);
            } else {
                prop_assert_eq!(line.bytes, want.as_bytes());
            }
            prop_assert_eq!(line.number, seen as u64 + 1);
            seen += 1;
        }
        prop_assert_eq!(seen, lines.len());
        prop_assert_eq!(reader.offset(), data.len() as u64);
    }
}

#[test]
fn every_codex_rollout_resumes_from_any_line_boundary() {
    use agent_sessions_core::provider::codex::scan::{
        scan_file as codex_scan, Cursor as CodexCursor,
    };
    let files = jsonl_files("codex");
    assert!(files.len() >= 19, "found only {} rollouts", files.len());
    for path in files {
        let data = std::fs::read(&path).unwrap();
        for cut in (0..data.len()).step_by(331).chain(
            data.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("r.jsonl");
            std::fs::write(&p, &data[..cut]).unwrap();
            let first = codex_scan(&p, CodexCursor::default()).unwrap();
            std::fs::write(&p, &data).unwrap();
            let resumed = codex_scan(&p, first).unwrap();
            let whole = codex_scan(&p, CodexCursor::default()).unwrap();
            assert_eq!(resumed, whole, "{} split at {cut}", path.display());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn codex_random_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        use agent_sessions_core::provider::codex::scan::{scan_file as codex_scan, Cursor as CodexCursor};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(&path, &data).unwrap();
        let c = codex_scan(&path, CodexCursor::default()).unwrap();
        prop_assert!(c.offset <= data.len() as u64);
    }
}

#[test]
fn a_multi_megabyte_line_is_read_in_bounded_steps() {
    // A 5 MiB tool output on one line, between two normal records.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let big = "y".repeat(5 << 20);
    let data = format!(
        "{}\n{}\n{}\n",
        r#"{"type":"user","sessionId":"s","message":{"content":"go"}}"#,
        format_args!(
            r#"{{"type":"user","sessionId":"s","message":{{"content":[{{"type":"tool_result","tool_use_id":"t","content":"{big}"}}]}}}}"#
        ),
        r#"{"type":"assistant","message":{"id":"m","model":"x","content":[]}}"#
    );
    std::fs::write(&path, data).unwrap();
    let c = scan_file(&path, &FileRole::Main, Cursor::default()).unwrap();
    assert_eq!((c.acc.counts.user, c.acc.counts.assistant), (1, 1));
    assert_eq!(c.problems.count, 0);
}
