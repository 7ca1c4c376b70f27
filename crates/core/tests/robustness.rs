//! Robustness: the JSONL reading path (any bytes, any split of a growing file, any line length:
//! never a panic, and an incremental scan always equals a scan of the whole file), hostile
//! stores (link loops, named pipes, unreadable folders, odd names, oversized documents: a
//! diagnostic, never a hang, a panic or unbounded memory), and fuzzed transcript loaders.

use std::io::Write;
use std::path::{Path, PathBuf};

mod common;

use agent_sessions_core::provider::claude::scan::{scan_file, Cursor, FileRole};
use agent_sessions_core::provider::jsonl::LineReader;
use agent_sessions_core::provider::{ScanOutput, ScanProgress};
use agent_sessions_core::{ProviderKind, SessionMeta};
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
        .filter(|p| in_folder(p, "projects"))
        .collect()
}

/// Whether a folder named `name` holds `path`, at any depth (whatever the system's separator).
fn in_folder(path: &Path, name: &str) -> bool {
    path.parent()
        .is_some_and(|p| p.components().any(|c| c.as_os_str() == name))
}

fn role_for(path: &Path) -> FileRole {
    let name = path.file_name().unwrap().to_string_lossy();
    if in_folder(path, "subagents") {
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

// ---------------------------------------------------------------------------------------------
// Hostile stores

fn scan_store(kind: ProviderKind, root: &Path) -> ScanOutput {
    common::provider_set(kind, root)
        .get(kind)
        .unwrap()
        .scan(&Vec::new(), &ScanProgress::default())
        .unwrap()
}

fn ids(out: &ScanOutput) -> Vec<String> {
    let mut ids: Vec<String> = out.changed.iter().map(|s| s.id.clone()).collect();
    ids.sort();
    ids
}

/// The diagnostics about `path` (or anything below it).
fn problems_at(out: &ScanOutput, path: &Path) -> Vec<String> {
    out.diagnostics
        .items
        .iter()
        .filter(|d| d.path.starts_with(path))
        .map(|d| d.reason.clone())
        .collect()
}

#[cfg(unix)]
fn symlink(target: &str, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// The folder of the first Codex rollout under `root/sessions` (`sessions/YYYY/MM/DD`).
fn codex_day_dir(root: &Path) -> PathBuf {
    let mut dir = root.join("sessions");
    for _ in 0..3 {
        dir = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.is_dir())
            .unwrap();
    }
    dir
}

#[test]
#[cfg(unix)] // symbolic links, named pipes, modes: scripts/test-windows.sh lists it
fn codex_link_loops_list_each_rollout_once_and_are_reported() {
    let dir = common::fixture_copy(ProviderKind::Codex, "0.63.0");
    let want = ids(&scan_store(ProviderKind::Codex, dir.path()));
    assert!(want.len() >= 4);
    // Loops at two levels: with the links followed, each rollout was listed many times over
    // (and two links in one folder made the walk exponential).
    let sessions = dir.path().join("sessions");
    symlink(".", &sessions.join("loop"));
    symlink("..", &codex_day_dir(dir.path()).join("up"));
    std::fs::create_dir_all(dir.path().join("archived_sessions")).unwrap();
    symlink(
        "../sessions",
        &dir.path().join("archived_sessions/elsewhere"),
    );
    let out = scan_store(ProviderKind::Codex, dir.path());
    assert_eq!(ids(&out), want);
    for link in [
        sessions.join("loop"),
        codex_day_dir(dir.path()).join("up"),
        dir.path().join("archived_sessions/elsewhere"),
    ] {
        assert_eq!(
            problems_at(&out, &link),
            ["not read: a symbolic link to a directory, not followed"],
            "{}",
            link.display()
        );
    }
}

#[test]
#[cfg(unix)] // symbolic links, named pipes, modes: scripts/test-windows.sh lists it
fn claude_linked_folders_are_not_followed_and_are_reported() {
    let dir = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let want = ids(&scan_store(ProviderKind::Claude, dir.path()));
    let projects = dir.path().join("projects");
    let project = projects.join("-home-bob-projects-demo");
    // A second project that is the first one again, a loop, and a session folder (with its
    // subagents) linked under another session's name: each listed its sessions again, the last
    // one as children of the wrong parent.
    symlink("-home-bob-projects-demo", &projects.join("-home-bob-copy"));
    symlink(".", &projects.join("loop"));
    symlink(
        "bf86da8c-29bf-4e85-9165-71bec16f7627",
        &project.join("00000000-0000-4000-8000-000000000000"),
    );
    let out = scan_store(ProviderKind::Claude, dir.path());
    assert_eq!(ids(&out), want);
    let reported: Vec<&Path> = out
        .diagnostics
        .items
        .iter()
        .map(|d| d.path.as_path())
        .collect();
    assert_eq!(
        reported,
        [
            projects.join("-home-bob-copy"),
            project.join("00000000-0000-4000-8000-000000000000"),
            projects.join("loop"),
        ]
    );
}

#[test]
#[cfg(unix)] // symbolic links, named pipes, modes: scripts/test-windows.sh lists it
fn opencode_linked_project_folders_are_not_followed_and_are_reported() {
    let dir = common::fixture_copy(ProviderKind::Opencode, "1.0.98");
    let want = ids(&scan_store(ProviderKind::Opencode, dir.path()));
    let sessions = dir.path().join("storage/session");
    let project = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .next()
        .unwrap();
    symlink(
        &project.file_name().to_string_lossy(),
        &sessions.join("copy"),
    );
    symlink(".", &sessions.join("loop"));
    let out = scan_store(ProviderKind::Opencode, dir.path());
    assert_eq!(ids(&out), want);
    for link in ["copy", "loop"] {
        assert_eq!(
            problems_at(&out, &sessions.join(link)),
            ["not read: a symbolic link to a directory, not followed"]
        );
    }
}

/// Puts a named pipe where a session file is expected, scans, and checks that the scan neither
/// opened it (which blocks until a writer comes: forever) nor lost the other sessions.
#[cfg(unix)]
fn a_pipe_is_reported_not_opened(kind: ProviderKind, version: &str, pipe: &Path, root: &Path) {
    let want = ids(&scan_store(kind, root));
    common::mkfifo(pipe);
    let watch = common::PipeWatch::start(pipe);
    let out = scan_store(kind, root);
    assert!(
        !watch.was_opened(),
        "the scan opened the named pipe {}",
        pipe.display()
    );
    assert_eq!(ids(&out), want, "{kind:?} {version}");
    let problems = problems_at(&out, pipe);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("named pipe"), "{problems:?}");
}

#[test]
#[cfg(unix)] // symbolic links, named pipes, modes: scripts/test-windows.sh lists it
fn named_pipes_where_session_files_belong_are_reported_not_opened() {
    let claude = common::fixture_copy(ProviderKind::Claude, "2.1.9");
    let project = claude.path().join("projects/-home-bob-projects-demo");
    a_pipe_is_reported_not_opened(
        ProviderKind::Claude,
        "2.1.9",
        &project.join("11111111-1111-4111-8111-111111111111.jsonl"),
        claude.path(),
    );
    let codex = common::fixture_copy(ProviderKind::Codex, "0.63.0");
    let day = codex_day_dir(codex.path());
    a_pipe_is_reported_not_opened(
        ProviderKind::Codex,
        "0.63.0",
        &day.join("rollout-2026-11-30T09-00-00-11111111-1111-4111-8111-111111111111.jsonl"),
        codex.path(),
    );
    let ts = common::fixture_copy(ProviderKind::Codex, "0.1.2505172129-ts");
    a_pipe_is_reported_not_opened(
        ProviderKind::Codex,
        "0.1.2505172129-ts",
        &ts.path()
            .join("sessions/rollout-2026-11-30-11111111-1111-4111-8111-111111111111.json"),
        ts.path(),
    );
    let opencode = common::fixture_copy(ProviderKind::Opencode, "1.0.98");
    let sessions = opencode.path().join("storage/session");
    let project = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    a_pipe_is_reported_not_opened(
        ProviderKind::Opencode,
        "1.0.98",
        &project.join("ses_pipe.json"),
        opencode.path(),
    );
}

#[test]
#[cfg(unix)] // symbolic links, named pipes, modes: scripts/test-windows.sh lists it
fn pipes_and_devices_are_refused_by_the_shared_opener() {
    use agent_sessions_core::provider::files::{open_regular, read_document};
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("p.jsonl");
    common::mkfifo(&pipe);
    let watch = common::PipeWatch::start(&pipe);
    let e = open_regular(&pipe).unwrap_err();
    assert!(!watch.was_opened());
    assert_eq!(e.to_string(), "not a regular file (a named pipe)");
    // A device that never ends, and a link to it.
    let e = read_document(Path::new("/dev/zero"), 1 << 20).unwrap_err();
    assert_eq!(e.to_string(), "not a regular file (a device)");
    symlink("/dev/zero", &dir.path().join("zero.json"));
    assert!(read_document(&dir.path().join("zero.json"), 1 << 20).is_err());
}

/// Builds one store per provider in which one folder cannot be read, and checks the scan names
/// that folder (and still lists everything else).
#[test]
#[cfg(unix)] // symbolic links, named pipes, modes: scripts/test-windows.sh lists it
fn unreadable_folders_are_reported_with_their_path() {
    if !common::run_unprivileged("unreadable_folders_are_reported_with_their_path") {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let lock = |p: &Path| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o000)).unwrap();
        assert!(
            std::fs::read_dir(p).is_err(),
            "{} is still readable",
            p.display()
        );
    };
    let unlock = |p: &Path| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();

    let claude = root.join("claude");
    let locked_project = claude.join("projects/-locked");
    std::fs::create_dir_all(&locked_project).unwrap();
    std::fs::create_dir_all(claude.join("projects/-open")).unwrap();
    std::fs::write(
        claude.join("projects/-open/22222222-2222-4222-8222-222222222222.jsonl"),
        r#"{"type":"user","sessionId":"s","message":{"content":"hi"}}"#.to_owned() + "\n",
    )
    .unwrap();

    let codex = root.join("codex");
    let locked_day = codex.join("sessions/2026/01/02");
    std::fs::create_dir_all(&locked_day).unwrap();
    std::fs::create_dir_all(codex.join("sessions/2026/01/01")).unwrap();
    std::fs::write(
        codex.join("sessions/2026/01/01/rollout-2026-01-01T00-00-00-33333333-3333-4333-8333-333333333333.jsonl"),
        r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"33333333-3333-4333-8333-333333333333"}}"#.to_owned() + "\n",
    )
    .unwrap();

    let opencode = root.join("opencode");
    let locked_sessions = opencode.join("storage/session/locked");
    std::fs::create_dir_all(&locked_sessions).unwrap();

    for (kind, store, locked) in [
        (ProviderKind::Claude, &claude, &locked_project),
        (ProviderKind::Codex, &codex, &locked_day),
        (ProviderKind::Opencode, &opencode, &locked_sessions),
    ] {
        lock(locked);
        let out = scan_store(kind, store);
        unlock(locked);
        let problems = problems_at(&out, locked);
        assert_eq!(problems.len(), 1, "{kind:?}: {:?}", out.diagnostics);
        assert!(
            problems[0].starts_with("cannot list directory: Permission denied"),
            "{problems:?}"
        );
        let want = usize::from(kind != ProviderKind::Opencode);
        assert_eq!(out.changed.len(), want, "{kind:?}");
    }
}

#[test]
fn a_codex_rollout_named_in_multibyte_text_without_meta_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    // The last 36 bytes of the name begin inside the `é`.
    let name = format!("rollout-é{}.jsonl", "a".repeat(35));
    std::fs::write(
        sessions.join(&name),
        r#"{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#.to_owned() + "\n",
    )
    .unwrap();
    let out = scan_store(ProviderKind::Codex, dir.path());
    assert_eq!(ids(&out), [format!("é{}", "a".repeat(35))]);
}

#[test]
fn oversized_single_json_documents_are_reported_not_read() {
    // Sparse files: the size is real, the disk and the test stay small.
    let sparse = |path: &Path, len: u64| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::File::create(path).unwrap().set_len(len).unwrap();
    };
    let ts = common::fixture_copy(ProviderKind::Codex, "0.1.2505172129-ts");
    let big = ts
        .path()
        .join("sessions/rollout-2026-11-30-44444444-4444-4444-8444-444444444444.json");
    sparse(&big, 2 << 30);
    let out = scan_store(ProviderKind::Codex, ts.path());
    assert_eq!(out.changed.len(), 1, "the other rollout is still read");
    let problems = problems_at(&out, &big);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("file of 2 GiB is larger than the 64 MiB read as one document"),
        "{problems:?}"
    );

    let opencode = common::fixture_copy(ProviderKind::Opencode, "1.0.98");
    let sessions = opencode.path().join("storage/session");
    let project = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    an_oversized_document_is_reported(
        ProviderKind::Opencode,
        opencode.path(),
        &project.join("ses_big.json"),
    );
}

/// Makes `big` a sparse file one byte larger than a document is read whole, scans `root`, and
/// checks that the file is reported (once, as too large) and the sessions listed before are
/// listed still.
fn an_oversized_document_is_reported(kind: ProviderKind, root: &Path, big: &Path) {
    let want = ids(&scan_store(kind, root));
    std::fs::create_dir_all(big.parent().unwrap()).unwrap();
    // Sparse: the size is real, the disk and the test stay small.
    let max = agent_sessions_core::provider::files::MAX_DOCUMENT;
    std::fs::File::create(big)
        .unwrap()
        .set_len(max + 1)
        .unwrap();
    let out = scan_store(kind, root);
    assert_eq!(ids(&out), want, "{kind:?}");
    let problems = problems_at(&out, big);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("is larger than the 64 MiB"),
        "{problems:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Fuzzed transcript loaders: records built from each format's own words, nested at random, so
// the loaders' branches are reached with every type in every field. Inputs stay a few KB.

/// Words of the three formats, as keys and as values.
const WORDS: &[&str] = &[
    "type",
    "role",
    "content",
    "text",
    "message",
    "payload",
    "id",
    "sessionId",
    "uuid",
    "parentUuid",
    "timestamp",
    "tool_use_id",
    "name",
    "input",
    "call_id",
    "output",
    "arguments",
    "summary",
    "metadata",
    "compaction_output",
    "model",
    "usage",
    "isSidechain",
    "isMeta",
    "cwd",
    "user",
    "assistant",
    "system",
    "developer",
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "response_item",
    "event_msg",
    "session_meta",
    "compacted",
    "turn_context",
    "reasoning",
    "tool_use",
    "tool_result",
    "thinking",
    "image",
    "source",
    "data",
    "input_text",
    "output_text",
    "user_message",
    "token_count",
    "info",
    "total_token_usage",
    "input_tokens",
    "output_tokens",
    "state",
    "status",
    "tool",
    "file",
    "patch",
    "step-start",
    "step-finish",
    "compaction",
    "synthetic",
    "time",
    "created",
    "updated",
    "parentID",
    "sessionID",
    "messageID",
    "tokens",
    "cache",
    "read",
    "write",
    "cost",
    "modelID",
    "url",
    "files",
    "hash",
    "agent",
    "auto",
    "completed",
    "error",
    "metadata",
    "exit_code",
    "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch",
    "apply_patch",
    "<environment_context>",
    "## My request for Codex:",
    "subtype",
    "compact_boundary",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(WORDS).prop_map(str::to_owned),
        1 => "[a-zé€😀<>/\\\\\" \n-]{0,12}",
    ]
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..2_000_000_000_000).prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        word().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(word(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// An object whose `type` (and `role`, and `payload.type`) are words of the formats.
fn record() -> impl Strategy<Value = serde_json::Value> {
    (
        word(),
        word(),
        word(),
        proptest::collection::btree_map(word(), json_value(), 0..6),
        proptest::collection::btree_map(word(), json_value(), 0..6),
    )
        .prop_map(|(kind, role, inner, mut fields, mut payload)| {
            payload.insert("type".into(), inner.into());
            payload.insert("role".into(), role.clone().into());
            fields.insert("type".into(), kind.into());
            fields.insert("role".into(), role.into());
            fields.insert(
                "payload".into(),
                serde_json::Value::Object(payload.into_iter().collect()),
            );
            serde_json::Value::Object(fields.into_iter().collect())
        })
}

fn jsonl(records: &[serde_json::Value]) -> String {
    records.iter().map(|r| r.to_string() + "\n").collect()
}

/// Scans `root` and loads every session found plus `direct` (a session the scan may not list,
/// loaded all the same); every load must succeed and agree with the scan's counts.
fn scan_and_load(kind: ProviderKind, root: &Path, direct: &[SessionMeta]) {
    let set = common::provider_set(kind, root);
    let provider = set.get(kind).unwrap();
    let out = provider
        .scan(&Vec::new(), &ScanProgress::default())
        .unwrap();
    for meta in &out.changed {
        let t = provider.load(meta).unwrap();
        assert_eq!(t.session.counts, meta.counts, "{kind:?} {}", meta.id);
    }
    for meta in direct {
        provider.load(meta).unwrap();
    }
}

fn meta(kind: ProviderKind, id: &str, path: PathBuf) -> SessionMeta {
    SessionMeta::new(kind, id.to_owned(), path)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn claude_transcripts_load_whatever_the_records(
        records in proptest::collection::vec(record(), 0..12),
        tail in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("projects/-p");
        std::fs::create_dir_all(&project).unwrap();
        let path = project.join("55555555-5555-4555-8555-555555555555.jsonl");
        let mut data = jsonl(&records).into_bytes();
        data.extend(&tail);
        std::fs::write(&path, data).unwrap();
        let direct = meta(ProviderKind::Claude, "55555555-5555-4555-8555-555555555555", path);
        scan_and_load(ProviderKind::Claude, dir.path(), &[direct]);
    }

    #[test]
    fn codex_rollouts_load_whatever_the_records(
        records in proptest::collection::vec(record(), 0..12),
        tail in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("sessions/2026/01/01");
        std::fs::create_dir_all(&sessions).unwrap();
        let path = sessions.join("rollout-2026-01-01T00-00-00-66666666-6666-4666-8666-666666666666.jsonl");
        let mut data = jsonl(&records).into_bytes();
        data.extend(&tail);
        std::fs::write(&path, data).unwrap();
        let direct = meta(ProviderKind::Codex, "66666666-6666-4666-8666-666666666666", path);
        scan_and_load(ProviderKind::Codex, dir.path(), &[direct]);
    }

    #[test]
    fn codex_typescript_rollouts_load_whatever_the_document(
        session in json_value(),
        items in proptest::collection::vec(record(), 0..12),
        whole in json_value(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        let shaped = sessions.join("rollout-2026-01-01-77777777-7777-4777-8777-777777777777.json");
        std::fs::write(&shaped, serde_json::json!({"session": session, "items": items}).to_string()).unwrap();
        let other = sessions.join("rollout-2026-01-01-88888888-8888-4888-8888-888888888888.json");
        std::fs::write(&other, whole.to_string()).unwrap();
        let set = common::provider_set(ProviderKind::Codex, dir.path());
        let provider = set.get(ProviderKind::Codex).unwrap();
        let out = provider.scan(&Vec::new(), &ScanProgress::default()).unwrap();
        for meta in &out.changed {
            let t = provider.load(meta).unwrap();
            prop_assert_eq!(t.session.counts, meta.counts);
        }
        // A document that is not `{session, items}` is an error, not a panic.
        let _ = provider.load(&meta(ProviderKind::Codex, "88888888-8888-4888-8888-888888888888", other));
    }

    #[test]
    fn opencode_json_storage_loads_whatever_the_files(
        session in proptest::collection::btree_map(word(), json_value(), 0..6),
        messages in proptest::collection::vec(
            (word(), proptest::collection::btree_map(word(), json_value(), 0..5),
             proptest::collection::vec((word(), proptest::collection::btree_map(word(), json_value(), 0..5)), 0..4)),
            0..5),
        broken in proptest::collection::vec(any::<u8>(), 0..32),
    ) {
        use serde_json::Value;
        let dir = tempfile::tempdir().unwrap();
        let storage = dir.path().join("storage");
        let id = "ses_fuzz";
        let mut session: serde_json::Map<String, Value> = session.into_iter().collect();
        session.insert("id".into(), id.into());
        let session_file = storage.join("session/proj").join(format!("{id}.json"));
        std::fs::create_dir_all(session_file.parent().unwrap()).unwrap();
        std::fs::write(&session_file, Value::Object(session).to_string()).unwrap();
        for (n, (role, fields, parts)) in messages.iter().enumerate() {
            let msg_id = format!("msg_{n:02}");
            let mut msg: serde_json::Map<String, Value> = fields.clone().into_iter().collect();
            msg.insert("id".into(), msg_id.clone().into());
            msg.insert("role".into(), role.clone().into());
            let dir = storage.join("message").join(id);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("{msg_id}.json")), Value::Object(msg).to_string()).unwrap();
            let part_dir = storage.join("part").join(&msg_id);
            std::fs::create_dir_all(&part_dir).unwrap();
            for (p, (kind, fields)) in parts.iter().enumerate() {
                let mut part: serde_json::Map<String, Value> = fields.clone().into_iter().collect();
                part.insert("id".into(), format!("prt_{p:02}").into());
                part.insert("type".into(), kind.clone().into());
                std::fs::write(part_dir.join(format!("prt_{p:02}.json")), Value::Object(part).to_string()).unwrap();
            }
            // And a file that is not JSON at all beside the parts.
            std::fs::write(part_dir.join("prt_zz.json"), &broken).unwrap();
        }
        let set = common::provider_set(ProviderKind::Opencode, dir.path());
        let provider = set.get(ProviderKind::Opencode).unwrap();
        let out = provider.scan(&Vec::new(), &ScanProgress::default()).unwrap();
        prop_assert_eq!(out.changed.len(), 1);
        let t = provider.load(&out.changed[0]).unwrap();
        prop_assert_eq!(t.messages.len(), messages.len());
    }
}

/// A file or folder name as found on disk: any text, multi-byte, control characters, a leading
/// `-`, up to the 255-byte limit.
fn hostile_name() -> impl Strategy<Value = String> {
    prop_oneof![HOSTILE_CHARS, "-[a-z-]{0,8}", "[a€]{150,180}",]
        .prop_filter("a single, real name", |n| {
            n != "." && n != ".." && n.len() <= 200 && !n.contains('/')
        })
        // Windows refuses a name ending in a space or a dot (and the characters left out above).
        .prop_filter("a name Windows allows", |n| {
            !cfg!(windows) || !(n.ends_with(' ') || n.ends_with('.'))
        })
}

/// The characters of a hostile name: on Windows those it allows in a name (no control
/// characters, none of `<>:"/\|?*`).
const HOSTILE_CHARS: &str = if cfg!(windows) {
    "[a-zé€😀 '$;`&-]{1,40}"
} else {
    "[a-zé€😀\n\t\r '\"$;`|&<>*?\\\\-]{1,40}"
};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn hostile_names_are_listed_and_loaded(name in hostile_name()) {
        // Claude: the project folder and the session file take the name.
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("projects").join(&name);
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            project.join(format!("{name}.jsonl")),
            r#"{"type":"user","sessionId":"s","message":{"content":"hi"}}"#.to_owned() + "\n",
        ).unwrap();
        let out = scan_store(ProviderKind::Claude, dir.path());
        prop_assert_eq!(ids(&out), [name.clone()]);
        scan_and_load(ProviderKind::Claude, dir.path(), &[]);

        // Codex: a folder and a rollout without `session_meta` (the id comes from the name).
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("sessions").join(&name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(format!("rollout-{name}.jsonl")),
            r#"{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#.to_owned() + "\n",
        ).unwrap();
        let out = scan_store(ProviderKind::Codex, dir.path());
        prop_assert_eq!(out.changed.len(), 1);
        let stem = format!("rollout-{}", name);
        prop_assert!(stem.ends_with(&out.changed[0].id));
        scan_and_load(ProviderKind::Codex, dir.path(), &[]);

        // OpenCode: the project folder and the session id take the name.
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("storage/session").join(&name);
        std::fs::create_dir_all(&sessions).unwrap();
        std::fs::write(
            sessions.join(format!("{name}.json")),
            serde_json::json!({"id": name, "title": name, "time": {"created": 1, "updated": 2}}).to_string(),
        ).unwrap();
        let messages = dir.path().join("storage/message").join(&name);
        std::fs::create_dir_all(&messages).unwrap();
        std::fs::write(messages.join("msg_1.json"), r#"{"id":"msg_1","role":"user"}"#).unwrap();
        let out = scan_store(ProviderKind::Opencode, dir.path());
        prop_assert_eq!(ids(&out), [name.clone()]);
        scan_and_load(ProviderKind::Opencode, dir.path(), &[]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// OpenCode's database rows are as hostile as its files: any `data` in any message or part
    /// row (JSON of any shape, or not JSON), and any times, still scan and load — bad rows are
    /// skipped or shown as they are, never a panic or an error for the whole session.
    #[test]
    fn opencode_db_rows_load_whatever_their_data(
        messages in proptest::collection::vec((0usize..44, prop_oneof![
            json_value().prop_map(|v| v.to_string()),
            "[^\u{0}]{0,40}",
        ]), 0..8),
        parts in proptest::collection::vec((0usize..111, prop_oneof![
            json_value().prop_map(|v| v.to_string()),
            proptest::collection::btree_map(word(), json_value(), 0..5)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect()).to_string()),
            "[^\u{0}]{0,40}",
        ]), 0..12),
        times in proptest::collection::vec((0usize..111, any::<i64>()), 0..4),
    ) {
        let store = common::fixture_copy(ProviderKind::Opencode, "1.2.27");
        let db = rusqlite::Connection::open(store.path().join("opencode.db")).unwrap();
        let rowid = |table: &str, n: usize| -> i64 {
            db.query_row(&format!("SELECT rowid FROM {table} ORDER BY rowid LIMIT 1 OFFSET ?1"), [n as i64], |r| r.get(0)).unwrap()
        };
        for (n, data) in &messages {
            let id = rowid("message", *n);
            db.execute("UPDATE message SET data = ?1 WHERE rowid = ?2", rusqlite::params![data, id]).unwrap();
        }
        for (n, data) in &parts {
            let id = rowid("part", *n);
            db.execute("UPDATE part SET data = ?1 WHERE rowid = ?2", rusqlite::params![data, id]).unwrap();
        }
        for (n, t) in &times {
            let id = rowid("part", *n);
            db.execute("UPDATE part SET time_created = ?1 WHERE rowid = ?2", rusqlite::params![t, id]).unwrap();
        }
        drop(db);
        let set = common::provider_set(ProviderKind::Opencode, store.path());
        let provider = set.get(ProviderKind::Opencode).unwrap();
        let out = provider.scan(&Vec::new(), &ScanProgress::default()).unwrap();
        prop_assert!(!out.changed.is_empty());
        for meta in &out.changed {
            prop_assert!(provider.load(meta).is_ok(), "{} did not load", meta.id);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Gemini CLI and Qwen Code: their records (Gemini API parts in both), fuzzed; their session
// files replaced by a pipe or a document too big to read.

/// The record kinds both agents write (`type`), and Gemini's `$set` / `$rewindTo` keys.
const GENAI_TYPES: &[&str] = &[
    "user",
    "gemini",
    "info",
    "error",
    "warning",
    "assistant",
    "tool_result",
    "system",
    "$set",
    "$rewindTo",
];

/// A record of either agent: a kind of theirs, and any value in the fields they read.
fn genai_record() -> impl Strategy<Value = serde_json::Value> {
    (
        record(),
        proptest::sample::select(GENAI_TYPES),
        proptest::collection::vec(json_value(), 6),
    )
        .prop_map(|(mut r, kind, values)| {
            let keys = [
                "content",
                "toolCalls",
                "message",
                "$set",
                "thoughts",
                "tokens",
            ];
            for (key, value) in keys.into_iter().zip(values) {
                r[key] = value;
            }
            r["type"] = kind.into();
            r
        })
}

/// `records` as JSON Lines, after `head` if there is one, then `tail` (any bytes: a cut line,
/// text that is not UTF-8).
fn jsonl_bytes(
    head: Option<serde_json::Value>,
    records: &[serde_json::Value],
    tail: &[u8],
) -> Vec<u8> {
    let all: Vec<serde_json::Value> = head.into_iter().chain(records.iter().cloned()).collect();
    let mut data = jsonl(&all).into_bytes();
    data.extend(tail);
    data
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Gemini CLI sessions in both of their forms (0.39's JSONL log after a metadata line, and
    /// the older single `ConversationRecord`) and a Qwen Code session (0.5+ JSONL), any
    /// records, cut or followed by any bytes: listed and loaded with the scan's counts, never a
    /// panic.
    #[test]
    fn gemini_and_qwen_sessions_load_whatever_the_records(
        records in proptest::collection::vec(genai_record(), 0..12),
        tail in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (gemini, qwen) = (dir.path().join("gemini"), dir.path().join("qwen"));
        let chats = gemini.join("tmp/demo/chats");
        std::fs::create_dir_all(&chats).unwrap();
        let id = "77777777-7777-4777-8777-777777777777";
        let head = serde_json::json!({"sessionId": id, "projectHash": "0", "startTime": "2026-01-01T00:00:00Z"});
        let log = chats.join("session-2026-01-01T00-00-77777777.jsonl");
        std::fs::write(&log, jsonl_bytes(Some(head), &records, &tail)).unwrap();
        let whole = serde_json::json!({"sessionId": "88888888-8888-4888-8888-888888888888", "messages": records});
        let mut doc = whole.to_string().into_bytes();
        doc.extend(&tail);
        std::fs::write(chats.join("session-2026-01-01T00-01-88888888.json"), doc).unwrap();
        scan_and_load(ProviderKind::Gemini, &gemini, &[meta(ProviderKind::Gemini, id, log)]);

        let chats = qwen.join("projects/-home-p/chats");
        std::fs::create_dir_all(&chats).unwrap();
        let id = "99999999-9999-4999-8999-999999999999";
        let path = chats.join(format!("{id}.jsonl"));
        std::fs::write(&path, jsonl_bytes(None, &records, &tail)).unwrap();
        scan_and_load(ProviderKind::Qwen, &qwen, &[meta(ProviderKind::Qwen, id, path)]);
    }
}

#[test]
#[cfg(unix)] // named pipes: scripts/test-windows.sh lists it
fn gemini_and_qwen_session_files_that_are_pipes_are_reported_not_opened() {
    let log = common::fixture_copy(ProviderKind::Gemini, "0.61.0");
    a_pipe_is_reported_not_opened(
        ProviderKind::Gemini,
        "0.61.0",
        &log.path()
            .join("tmp/demo/chats/session-2026-12-06T14-10-11111111.jsonl"),
        log.path(),
    );
    let doc = common::fixture_copy(ProviderKind::Gemini, "0.38.2");
    a_pipe_is_reported_not_opened(
        ProviderKind::Gemini,
        "0.38.2",
        &doc.path()
            .join("tmp/demo/chats/session-2026-12-06T14-10-11111111.json"),
        doc.path(),
    );
    let qwen = common::fixture_copy(ProviderKind::Qwen, "0.24.4");
    let chats = qwen
        .path()
        .join("projects/-tmp-agent-rec-qwen-0-24-4-home-projects-demo/chats");
    a_pipe_is_reported_not_opened(
        ProviderKind::Qwen,
        "0.24.4",
        &chats.join("11111111-1111-4111-8111-111111111111.jsonl"),
        qwen.path(),
    );
}

/// A Gemini CLI session of the one-document generation (before 0.39) too big to read whole is
/// reported, and the project's other sessions are still listed.
#[test]
fn an_oversized_gemini_conversation_record_is_reported_not_read() {
    let store = common::fixture_copy(ProviderKind::Gemini, "0.38.2");
    let big = store
        .path()
        .join("tmp/demo/chats/session-2026-12-06T14-10-22222222.json");
    an_oversized_document_is_reported(ProviderKind::Gemini, store.path(), &big);
}

/// A GitHub Copilot CLI log with damage in it (a line that is not JSON, one with invalid UTF-8,
/// an event of a type we do not know, a last line still being written, a 2 MB line) lists the
/// same session with the same counts, each bad line a counted diagnostic; the line being
/// written counts once it is whole. A named pipe where a flat log belongs is reported, never
/// opened, and so is a history document larger than a document is read.
#[test]
fn copilot_damaged_logs_are_counted_never_fatal() {
    let dir = common::fixture_copy(ProviderKind::Copilot, "1.0.102");
    let id = "8c6f5941-1ddf-46c3-927e-c21669d3b25a";
    let log = dir
        .path()
        .join("session-state")
        .join(id)
        .join("events.jsonl");
    let before = scan_store(ProviderKind::Copilot, dir.path());
    let counts = |out: &ScanOutput| out.changed.iter().find(|s| s.id == id).unwrap().counts;
    let want = counts(&before);
    let huge = format!(
        "{{\"type\":\"tool.execution_partial_result\",\"data\":{{\"partialOutput\":\"{}\"}}}}\n",
        "x".repeat(2 << 20)
    );
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    f.write_all(b"not json\n").unwrap();
    f.write_all(b"{\"type\":\"user.message\",\"data\":{\"content\":\"bad \xff byte\"}}\n")
        .unwrap();
    f.write_all(b"{\"type\":\"session.from_the_future\",\"data\":{}}\n")
        .unwrap();
    f.write_all(huge.as_bytes()).unwrap();
    f.write_all(b"{\"type\":\"user.message\",\"data\":{\"content\":\"half")
        .unwrap();
    drop(f);
    let out = scan_store(ProviderKind::Copilot, dir.path());
    let mut grown = want;
    grown.user += 1; // the repaired line
    assert_eq!(counts(&out), grown);
    let problems = problems_at(&out, &log);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[1].contains("session.from_the_future"),
        "{problems:?}"
    );
    let session = out.changed.iter().find(|s| s.id == id).unwrap();
    let provider = common::provider_set(ProviderKind::Copilot, dir.path());
    let t = provider
        .get(ProviderKind::Copilot)
        .unwrap()
        .load(session)
        .unwrap();
    assert_eq!(t.session.counts, grown);
    assert_eq!(t.diagnostics.parse_errors, 2, "{:?}", t.diagnostics);
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    f.write_all(b" done\"}}\n").unwrap();
    drop(f);
    grown.user += 1;
    assert_eq!(
        counts(&scan_store(ProviderKind::Copilot, dir.path())),
        grown
    );

    #[cfg(unix)] // named pipes: Windows has none in a folder
    {
        let flat = dir
            .path()
            .join("session-state/11111111-2222-4333-8444-555555555555.jsonl");
        a_pipe_is_reported_not_opened(ProviderKind::Copilot, "1.0.102", &flat, dir.path());
    }
    let big = dir
        .path()
        .join("history-session-state/session_11111111-2222-4333-8444-666666666666_1.json");
    an_oversized_document_is_reported(ProviderKind::Copilot, dir.path(), &big);
}
