//! Every recorded Gemini CLI and Qwen Code store (`testdata/{gemini,qwen}/<version>/`) read
//! by its provider and checked against its `EXPECTED.json`, which `tests/record/expected.py`
//! computed from the raw files without any of this code: the sessions listed, their parents,
//! directories and counts, and that a load counts what the scan listed.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::genai::{is_hash_folder, project_hash};
use crate::registry::agent;
use crate::Provider;
use agent_sessions_model::{NoticeKind, Part, ProviderKind, SessionMeta, Transcript};

fn versions(kind: ProviderKind) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(kind.as_str());
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("EXPECTED.json").is_file())
        .collect();
    out.sort();
    out
}

pub(crate) fn provider(kind: ProviderKind, version: &Path) -> Box<dyn Provider> {
    (agent(kind).provider)(vec![version.join(agent(kind).fixture_store)])
}

pub(crate) fn scan(p: &dyn Provider) -> Vec<SessionMeta> {
    let out = p.scan(&Vec::new(), &Default::default()).unwrap();
    assert_eq!(out.diagnostics.parse_errors, 0, "{:?}", out.diagnostics);
    out.changed
}

fn errors(t: &Transcript) -> u64 {
    let is_error = |p: &Part| {
        matches!(
            p,
            Part::Notice {
                source: NoticeKind::Error,
                ..
            }
        )
    };
    t.messages
        .iter()
        .filter(|m| m.parts.iter().any(is_error))
        .count() as u64
}

/// What differs between one listed session and its expectation (empty: nothing).
fn compare(p: &dyn Provider, s: &SessionMeta, want: &Value) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut check = |what: &str, got: Value, want: &Value| {
        if &got != want {
            wrong.push(format!("{}: {what} is {got}, expected {want}", s.id));
        }
    };
    check("parent", s.parent_id.clone().into(), &want["parent_id"]);
    let folder = s.source_path.ancestors().find_map(|a| {
        let name = a.file_name()?.to_str()?;
        is_hash_folder(name).then(|| name.to_owned())
    });
    let want_cwd = want["cwd"].as_str().unwrap_or_default();
    match (&s.cwd, folder) {
        // A hash folder with no candidate directory in the store: unknown, and the hash is
        // the expected directory's (a caller with that directory would find it).
        (None, Some(folder)) => check("hash", folder.into(), &project_hash(want_cwd).into()),
        _ => check("cwd", s.cwd.clone().into(), &want["cwd"]),
    }
    let c = &want["counts"];
    check("user", s.counts.user.into(), &c["user"]);
    check("assistant", s.counts.assistant.into(), &c["assistant"]);
    check("tool calls", s.counts.tool_calls.into(), &c["tool_calls"]);
    let t = p.load(s).unwrap();
    check(
        "load counts",
        format!("{:?}", t.session.counts).into(),
        &format!("{:?}", s.counts).into(),
    );
    check("errors", errors(&t).into(), &c["errors"]);
    check(
        "load diagnostics",
        t.diagnostics.parse_errors.into(),
        &0.into(),
    );
    wrong
}

fn check_fixtures(kind: ProviderKind) -> usize {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for version in versions(kind) {
        let p = provider(kind, &version);
        let sessions = scan(p.as_ref());
        let expected: Value =
            serde_json::from_slice(&std::fs::read(version.join("EXPECTED.json")).unwrap()).unwrap();
        let expected = expected["sessions"].as_array().unwrap();
        let mut listed: Vec<&str> = sessions.iter().map(|s| s.id.as_str()).collect();
        let mut want: Vec<&str> = expected.iter().map(|e| e["id"].as_str().unwrap()).collect();
        listed.sort();
        want.sort();
        if listed != want {
            wrong.push(format!(
                "{}: listed {listed:?}, expected {want:?}",
                version.display()
            ));
        }
        for e in expected {
            let file = version.join(e["file"].as_str().unwrap());
            let Some(s) = sessions.iter().find(|s| s.source_path == file) else {
                wrong.push(format!("{}: not listed", file.display()));
                continue;
            };
            wrong.extend(compare(p.as_ref(), s, e));
            checked += 1;
        }
    }
    assert!(wrong.is_empty(), "{kind}:\n{}", wrong.join("\n"));
    checked
}

#[test]
fn gemini_fixtures_read_as_expected() {
    assert_eq!(check_fixtures(ProviderKind::Gemini), 23);
}

#[test]
fn qwen_fixtures_read_as_expected() {
    assert_eq!(check_fixtures(ProviderKind::Qwen), 16);
}

fn listed(kind: ProviderKind, version: &str, id: &str) -> (Box<dyn Provider>, SessionMeta) {
    let dir = versions(kind)
        .into_iter()
        .find(|v| v.ends_with(version))
        .unwrap();
    let p = provider(kind, &dir);
    let s = scan(p.as_ref()).into_iter().find(|s| s.id == id).unwrap();
    (p, s)
}

fn tool_blob(p: &dyn Provider, s: &SessionMeta) -> (String, String) {
    let t = p.load(s).unwrap();
    let tool = t
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .find_map(|p| match p {
            Part::Tool(t) if t.output_blob.is_some() => Some(t.clone()),
            _ => None,
        })
        .unwrap();
    assert!(tool.output_truncated);
    let key = tool.output_blob.unwrap();
    let bytes = p.blob(s, &key).unwrap();
    (key, String::from_utf8(bytes).unwrap())
}

/// A big output is a preview plus a blob key, and the key reads it whole: the file the agent
/// spilled it to (Gemini 0.38+, Qwen 0.2x), or the record that holds it whole (Gemini 0.28's
/// `toolCalls[].result`, Qwen 0.5's `resultDisplay`).
#[test]
fn big_outputs_read_whole_through_their_blob_keys() {
    let cases = [
        (
            ProviderKind::Gemini,
            "0.28.2",
            "c0741c8f-8691-4869-a8a9-0b3315b447d0",
            "line:0:tool:",
        ),
        (
            ProviderKind::Gemini,
            "0.38.2",
            "4bd10d44-c1e2-483e-bb77-18da8a94b196",
            "tool-results/",
        ),
        (
            ProviderKind::Gemini,
            "0.39.1",
            "2c858442-d983-4add-82b1-380547e7c081",
            "tool-results/",
        ),
        (
            ProviderKind::Gemini,
            "0.61.0",
            "7461f409-5e51-400d-a03d-9949545782a7",
            "tool-results/",
        ),
        (
            ProviderKind::Qwen,
            "0.5.2",
            "4b2c619b-405d-4f41-8351-ca8ae26740d7",
            "line:",
        ),
        (
            ProviderKind::Qwen,
            "0.24.4",
            "11b1b79e-d704-4925-8291-3080fb8eee2a",
            "tool-results/",
        ),
    ];
    for (kind, version, id, prefix) in cases {
        let (p, s) = listed(kind, version, id);
        let (key, whole) = tool_blob(p.as_ref(), &s);
        assert!(key.starts_with(prefix), "{kind} {version}: {key}");
        // `seq 1 30000` printed every number; the blob has them all (Gemini 0.38 kept up to 28970,
        // what its terminal captured).
        for n in ["\n2\n", "\n15000\n", "\n28000\n"] {
            assert!(
                whole.contains(n),
                "{kind} {version}: {n:?} in {} bytes",
                whole.len()
            );
        }
    }
}

/// A key naming something outside the session's own folder is refused, whatever it says.
#[test]
fn blob_keys_cannot_leave_the_store() {
    for (kind, version, id) in [
        (
            ProviderKind::Gemini,
            "0.38.2",
            "4bd10d44-c1e2-483e-bb77-18da8a94b196",
        ),
        (
            ProviderKind::Qwen,
            "0.24.4",
            "11b1b79e-d704-4925-8291-3080fb8eee2a",
        ),
    ] {
        let (p, s) = listed(kind, version, id);
        for key in [
            "tool-results/../../../settings.json",
            "tool-results/..",
            "line:0:tool:nope",
            "part:x",
        ] {
            let e = p.blob(&s, key).unwrap_err();
            assert_eq!(e.code(), "blob_not_found", "{kind} {key}");
        }
    }
}

pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// A second scan from the first one's state lists nothing; a session that grew is listed again
/// alone, with its new counts; a deleted one is removed.
#[test]
fn scans_are_incremental() {
    for (kind, version, id) in [
        (
            ProviderKind::Gemini,
            "0.39.1",
            "13489a5a-2d9f-42ba-b83f-9f27323b8710",
        ),
        (
            ProviderKind::Qwen,
            "0.24.4",
            "b380d240-d724-4b9e-993a-6a99b89cb7a5",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let src = versions(kind)
            .into_iter()
            .find(|v| v.ends_with(version))
            .unwrap();
        let store = tmp.path().join(agent(kind).fixture_store);
        copy_tree(&src.join(agent(kind).fixture_store), &store);
        let p = (agent(kind).provider)(vec![store.clone()]);
        let first = p.scan(&Vec::new(), &Default::default()).unwrap();
        let again = p.scan(&first.state, &Default::default()).unwrap();
        assert!(
            again.changed.is_empty() && again.removed.is_empty(),
            "{kind}"
        );

        let s = first.changed.iter().find(|s| s.id == id).unwrap();
        let prompt = match kind {
            ProviderKind::Gemini => r#"{"id":"new-1","timestamp":"2026-12-07T00:00:00Z","type":"user","content":[{"text":"one more"}]}"#.to_owned(),
            _ => {
                let last = std::fs::read_to_string(&s.source_path).unwrap();
                let last: Value = serde_json::from_str(last.lines().last().unwrap()).unwrap();
                format!(
                    r#"{{"uuid":"new-1","parentUuid":"{}","type":"user","timestamp":"2026-12-07T00:00:00Z","message":{{"parts":[{{"text":"one more"}}]}}}}"#,
                    last["uuid"].as_str().unwrap()
                )
            }
        };
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&s.source_path)
            .unwrap();
        std::io::Write::write_all(&mut f, format!("{prompt}\n").as_bytes()).unwrap();
        drop(f);
        let grown = p.scan(&again.state, &Default::default()).unwrap();
        assert_eq!(grown.changed.len(), 1, "{kind}");
        assert_eq!(grown.changed[0].counts.user, s.counts.user + 1, "{kind}");

        std::fs::remove_file(&s.source_path).unwrap();
        let gone = p.scan(&grown.state, &Default::default()).unwrap();
        assert_eq!(gone.removed.len(), 1, "{kind}");
        assert_eq!(gone.removed[0].id, id);
    }
}

/// Every fixture session file cut at every line end and in the middle of each line (a file
/// being written, a crash): the scan and the load never fail or panic, the cut last line is
/// read as the write in progress it is, and the load counts what the scan listed.
#[test]
fn cut_files_read_without_failing() {
    for kind in [ProviderKind::Gemini, ProviderKind::Qwen] {
        for version in versions(kind) {
            let p = provider(kind, &version);
            for s in scan(p.as_ref()) {
                let bytes = std::fs::read(&s.source_path).unwrap();
                // A JSON document (pretty-printed, rewritten whole) is cut at a few places;
                // a JSONL log at every line end and inside every line.
                let jsonl = s.source_path.extension().is_some_and(|e| e == "jsonl");
                let mut cuts: Vec<usize> = bytes
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| jsonl && **b == b'\n')
                    .flat_map(|(i, _)| [i + 1, i.saturating_sub(7)])
                    .collect();
                let n = bytes.len();
                cuts.extend([0, 1, n / 3, n / 2, n.saturating_sub(2), n.saturating_sub(1)]);
                for cut in cuts {
                    check_cut(kind, &s, &bytes[..cut.min(bytes.len())]);
                }
            }
        }
    }
}

fn check_cut(kind: ProviderKind, s: &SessionMeta, bytes: &[u8]) {
    let tmp = tempfile::tempdir().unwrap();
    // The same place in a store of its own: `…/<folder>/chats/[<parent>/]<file>`.
    let rel: PathBuf = s
        .source_path
        .components()
        .rev()
        .take(6)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let path = tmp.path().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    let root = path
        .ancestors()
        .nth(if s.parent_id.is_some() { 5 } else { 4 })
        .unwrap();
    let p = (agent(kind).provider)(vec![root.to_path_buf()]);
    let out = p.scan(&Vec::new(), &Default::default()).unwrap();
    for listed in &out.changed {
        let t = p.load(listed).unwrap();
        assert_eq!(
            t.session.counts,
            listed.counts,
            "{} cut at {}",
            s.id,
            bytes.len()
        );
    }
}

/// Lines no agent wrote whole: invalid UTF-8 is repaired and the record kept, a line that is
/// not JSON and one longer than 64 MiB are skipped and counted, a last line without its
/// newline is the write in progress (quietly left); the rest of the file is read.
#[test]
fn hostile_lines_are_counted_never_fatal() {
    let huge = format!(
        "{{\"id\":\"h\",\"type\":\"user\",\"content\":\"{}\"}}",
        "x".repeat(65 << 20)
    );
    let gemini: Vec<Vec<u8>> = vec![
        br#"{"sessionId":"0c6a524c-d98f-459f-ab17-05cfea6d7f09","projectHash":"h","startTime":"2026-01-01T00:00:00Z","kind":"main"}"#.to_vec(),
        [&br#"{"id":"u","timestamp":"2026-01-01T00:00:01Z","type":"user","content":[{"text":"bad "#[..], b"\xff\xfe", br#" byte"}]}"#].concat(),
        b"not json at all".to_vec(),
        huge.clone().into_bytes(),
        br#"{"id":"a","type":"gemini","content":"reply","model":"m"}"#.to_vec(),
    ];
    let qwen: Vec<Vec<u8>> = vec![
        [&br#"{"uuid":"u","parentUuid":null,"sessionId":"0c6a524c-d98f-459f-ab17-05cfea6d7f09","cwd":"/w","type":"user","message":{"parts":[{"text":"bad "#[..], b"\xff", br#" byte"}]}}"#].concat(),
        b"{\"uuid\":".to_vec(),
        huge.into_bytes(),
        br#"{"uuid":"a","parentUuid":"u","type":"assistant","model":"m","message":{"parts":[{"text":"reply"}]}}"#.to_vec(),
    ];
    for (kind, lines, rel) in [
        (ProviderKind::Gemini, gemini, "tmp/p/chats/session-x.jsonl"),
        (
            ProviderKind::Qwen,
            qwen,
            "projects/p/chats/0c6a524c-d98f-459f-ab17-05cfea6d7f09.jsonl",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut bytes = lines.join(&b'\n');
        bytes.extend_from_slice(b"\n{\"id\":\"cut\",\"type\":\"gem");
        std::fs::write(&path, bytes).unwrap();
        let p = (agent(kind).provider)(vec![tmp.path().to_path_buf()]);
        let out = p.scan(&Vec::new(), &Default::default()).unwrap();
        assert_eq!(out.changed.len(), 1, "{kind}");
        let s = &out.changed[0];
        assert_eq!((s.counts.user, s.counts.assistant), (1, 1), "{kind}");
        assert_eq!(
            out.diagnostics.parse_errors, 2,
            "{kind}: {:?}",
            out.diagnostics
        );
        let t = p.load(s).unwrap();
        assert_eq!(t.diagnostics.parse_errors, 2, "{kind}");
        let prompt = t.messages.iter().find(|m| m.counted).unwrap();
        assert!(
            matches!(&prompt.parts[0], Part::Text { text } if text.contains('\u{FFFD}')),
            "{kind}: {:?}",
            prompt.parts
        );
    }
}

/// A named pipe where a session file should be, and a link looping back up the store, cost a
/// diagnostic each: the scan neither blocks on the pipe nor walks the loop.
#[cfg(unix)]
#[test]
fn pipes_and_link_loops_are_reported_not_followed() {
    // (the folder of session files, a folder the walk enters)
    for (kind, chats, walked) in [
        (ProviderKind::Gemini, "tmp/p/chats", "tmp/p/chats"),
        (
            ProviderKind::Qwen,
            "projects/p/chats",
            "projects/p/subagents",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(chats);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(tmp.path().join(walked)).unwrap();
        let fifo = dir.join("0c6a524c-d98f-459f-ab17-05cfea6d7f09.jsonl");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        std::os::unix::fs::symlink(tmp.path(), tmp.path().join(walked).join("loop")).unwrap();
        let p = (agent(kind).provider)(vec![tmp.path().to_path_buf()]);
        let out = p.scan(&Vec::new(), &Default::default()).unwrap();
        assert!(out.changed.is_empty(), "{kind}");
        let reasons: Vec<&str> = out
            .diagnostics
            .items
            .iter()
            .map(|d| d.reason.as_str())
            .collect();
        assert!(
            reasons.iter().any(|r| r.contains("named pipe")),
            "{kind}: {reasons:?}"
        );
        assert!(
            reasons.iter().any(|r| r.contains("symbolic link")),
            "{kind}: {reasons:?}"
        );
    }
}

/// An edit (`alpha` → `beta` in notes.txt) carries its diff wherever the agent recorded one
/// (Gemini 0.28+ `toolCalls[].resultDisplay`, Qwen 0.5+ `toolCallResult.resultDisplay`).
#[test]
fn edits_carry_their_diffs() {
    for (kind, version) in [
        (ProviderKind::Gemini, "0.28.2"),
        (ProviderKind::Gemini, "0.38.2"),
        (ProviderKind::Gemini, "0.39.1"),
        (ProviderKind::Gemini, "0.61.0"),
        (ProviderKind::Qwen, "0.5.2"),
        (ProviderKind::Qwen, "0.24.4"),
    ] {
        let dir = versions(kind)
            .into_iter()
            .find(|v| v.ends_with(version))
            .unwrap();
        let p = provider(kind, &dir);
        let changes: Vec<_> = scan(p.as_ref())
            .iter()
            .flat_map(|s| p.load(s).unwrap().messages)
            .flat_map(|m| m.parts)
            .filter_map(|part| match part {
                Part::Tool(t) => Some(t.changes),
                _ => None,
            })
            .flatten()
            .collect();
        assert_eq!(changes.len(), 1, "{kind} {version}: {changes:?}");
        let c = &changes[0];
        assert!(c.path.ends_with("notes.txt"), "{kind} {version}");
        assert_eq!(
            (c.change.as_str(), c.additions, c.deletions),
            ("update", 1, 1)
        );
        assert!(c.diff.as_deref().unwrap().contains("-alpha\n+beta"));
    }
}

/// A 0.61 resume writes the history back as a checkpoint without tokens or models, after a
/// checkpoint of the `<session_context>` message alone: the session keeps the tokens of its
/// five responses (5,250 input, 120 output, summed from the lines before the checkpoint).
#[test]
fn a_resumed_session_keeps_its_tokens() {
    let (_, s) = listed(
        ProviderKind::Gemini,
        "0.61.0",
        "7d53c23b-fe46-4406-b083-d93680275406",
    );
    let t = s.tokens.unwrap();
    assert_eq!((t.input, t.output, t.cache_read), (5250, 120, 0));
    assert_eq!(s.model.as_deref(), Some("gemini-3.8-flash"));
}
