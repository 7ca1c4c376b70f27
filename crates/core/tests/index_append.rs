//! A growing session's text is indexed again from where its last read said the next could start
//! (`index/resume.rs`): an append costs a read of what the transcript builder held open at the
//! end, the index then equals one made from scratch, and a file rewritten rather than grown is
//! read whole.

mod common;

use std::path::{Path, PathBuf};

use agent_sessions_core::index::{self, Index};
use agent_sessions_core::{ProviderKind, ProviderSet, Roots, ScanProgress};
use agent_sessions_test_support::{append_line, long_claude_session};

const ID: &str = "5e1f0c2a-8d3b-4c6e-9f70-1a2b3c4d5e6f";

/// Every message row of every file of the cache: (row key, hash, text), sorted.
fn rows(index: &Index) -> Vec<(String, i64, String)> {
    let mut all = Vec::new();
    for file in index::cache_files(index.path()) {
        let conn = rusqlite::Connection::open(&file).unwrap();
        let mut stmt = conn
            .prepare(
                "SELECT m.message_id, m.hash, f.body FROM indexed_messages m
                 JOIN fts f ON f.rowid = m.fts_rowid WHERE m.message_id != ''",
            )
            .unwrap();
        let found = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap();
        all.extend(found.map(Result::unwrap));
    }
    all.sort();
    all
}

/// Fails, naming the rows that differ, unless `index` has exactly the rows of `whole`.
#[track_caller]
fn assert_same_rows(index: &Index, whole: &Index, what: &str) {
    let (ours, theirs) = (rows(index), rows(whole));
    let extra: Vec<_> = ours.iter().filter(|r| !theirs.contains(r)).collect();
    let missing: Vec<_> = theirs.iter().filter(|r| !ours.contains(r)).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "{what}: rows not in a whole index {extra:?}; rows missing {missing:?}"
    );
}

/// A cache made from scratch of `roots` (kept while the folder is).
fn made_whole(roots: &Roots) -> (Index, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (index, _) = common::indexed(dir.path(), roots);
    (index, dir)
}

/// A Claude store of one session of 600 prompts and answers (1,200 messages: far more than a
/// transcript builder holds open); its root and the session's file.
fn long_store(dir: &Path) -> (Roots, PathBuf) {
    let root = dir.join("claude");
    let path = long_claude_session(&root, ID, 600);
    (common::roots(ProviderKind::Claude, &root), path)
}

/// [`long_store`] in a folder of its own, indexed in a cache of its own (both folders kept while
/// they are): the store's roots, the session's file and the index.
fn indexed_long() -> (tempfile::TempDir, tempfile::TempDir, Roots, PathBuf, Index) {
    let store = tempfile::tempdir().unwrap();
    let (roots, path) = long_store(store.path());
    let cache = tempfile::tempdir().unwrap();
    let (index, _) = common::indexed(cache.path(), &roots);
    (store, cache, roots, path, index)
}

fn refresh_and_index(index: &mut Index, roots: &Roots) {
    let providers = ProviderSet::new(roots, &[]);
    let p = ScanProgress::default();
    index.refresh(&providers, &p).unwrap();
    assert_eq!(index.index_text(&providers, None, &p).unwrap(), 1);
}

/// What the agent writes next: the last answer goes on in a second record of its message, a
/// tool is called and answers, and a new prompt comes.
fn answer_on(path: &Path) {
    let t = "2026-11-30T11:00:00.000Z";
    let at = |uuid: &str, parent: &str| {
        format!(r#""uuid":"{uuid}","parentUuid":"{parent}","sessionId":"{ID}","timestamp":"{t}""#)
    };
    append_line(
        path,
        &format!(
            r#"{{"type":"assistant",{},"message":{{"id":"m599","model":"claude-x","role":"assistant","content":[{{"type":"text","text":"and a zebra"}}]}}}}"#,
            at("a599b", "a599")
        ),
    );
    append_line(
        path,
        &format!(
            r#"{{"type":"assistant",{},"message":{{"id":"m600","model":"claude-x","role":"assistant","content":[{{"type":"tool_use","id":"t1","name":"Bash","input":{{"command":"ls giraffe"}}}}]}}}}"#,
            at("a600", "a599b")
        ),
    );
    append_line(
        path,
        &format!(
            r#"{{"type":"user",{},"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"okapi.txt"}}]}}}}"#,
            at("r600", "a600")
        ),
    );
    append_line(
        path,
        &format!(
            r#"{{"type":"user",{},"message":{{"role":"user","content":"question quokka"}}}}"#,
            at("u601", "r600")
        ),
    );
}

/// One more prompt, after [`answer_on`]'s.
fn ask_wombat(path: &Path) {
    append_line(
        path,
        &format!(
            r#"{{"type":"user","uuid":"u602","parentUuid":"u601","sessionId":"{ID}","timestamp":"2026-11-30T11:01:00.000Z","message":{{"role":"user","content":"question wombat"}}}}"#
        ),
    );
}

/// The index of a grown session equals a whole index of it, and the read behind it started past
/// the session's early lines: an early line changed in place (which an agent never does, and
/// which is not looked at) is not read again, while everything after the resume point is.
#[test]
fn an_append_is_read_from_the_resume_point_and_indexes_as_a_whole_read_does() {
    let (_store, _cache, roots, path, mut index) = indexed_long();

    answer_on(&path);
    refresh_and_index(&mut index, &roots);
    let (whole, _dir) = made_whole(&roots);
    let grown = rows(&index);
    assert_eq!(grown, rows(&whole));
    for word in ["zebra", "giraffe", "okapi", "quokka"] {
        assert!(
            grown.iter().any(|(_, _, text)| text.contains(word)),
            "{word}"
        );
    }

    // Prompt 5 reworded in place, the same length, and one more prompt.
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replacen("\"question 5\"", "\"quixotic 5\"", 1);
    std::fs::write(&path, text).unwrap();
    ask_wombat(&path);
    refresh_and_index(&mut index, &roots);
    let (whole, _dir) = made_whole(&roots);
    let (ours, theirs) = (rows(&index), rows(&whole));
    let differ: Vec<_> = ours.iter().filter(|r| !theirs.contains(r)).collect();
    assert_eq!(differ.len(), 1, "{differ:?}");
    assert_eq!(differ[0].0, "u5");
    assert!(differ[0].2.contains("question 5"));
    assert!(ours
        .iter()
        .any(|(id, _, text)| id == "u602" && text.contains("wombat")));
}

/// A session file rewritten (here: every answer reworded, the file longer) is not resumed: the
/// bytes before its resume point changed, so it is read whole and indexes as a new cache does.
#[test]
fn a_rewritten_file_is_read_whole() {
    let (_store, _cache, roots, path, mut index) = indexed_long();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"answer ", "\"reworded answer ")).unwrap();
    answer_on(&path);
    refresh_and_index(&mut index, &roots);
    let (whole, _dir) = made_whole(&roots);
    let ours = rows(&index);
    assert_eq!(ours, rows(&whole));
    assert!(ours.iter().all(|(_, _, text)| !text.starts_with("answer ")));

    // Cut short below its resume point: read whole too.
    let text = std::fs::read_to_string(&path).unwrap();
    let half: String = text.lines().take(300).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, half).unwrap();
    refresh_and_index(&mut index, &roots);
    let (whole, _dir) = made_whole(&roots);
    assert_eq!(rows(&index), rows(&whole));
    assert_eq!(rows(&index).len(), 300);
}

/// A record the transcript builder passes over (Claude writes these between messages).
const SNAPSHOT: &str = r#"{"type":"file-history-snapshot","messageId":"x","snapshot":{}}"#;

/// A session whose messages moved to other lines, their text the same (lines put in before
/// them, then taken out again), is read whole; the rows it leaves say where their messages
/// are now, so the next append is read from its resume point and still indexes as a read from
/// scratch: no message of the resume point's line is numbered as a second occurrence of its
/// id, and none just before it is dropped as gone.
#[test]
fn rows_of_messages_moved_to_other_lines_say_where_they_are_now() {
    let (_store, _cache, roots, path, mut index) = indexed_long();
    let original = std::fs::read_to_string(&path).unwrap();

    // Two lines put in before every message: each is two lines further down.
    std::fs::write(&path, format!("{SNAPSHOT}\n{SNAPSHOT}\n{original}")).unwrap();
    refresh_and_index(&mut index, &roots);
    answer_on(&path);
    refresh_and_index(&mut index, &roots);
    let (whole, _dir) = made_whole(&roots);
    assert_same_rows(&index, &whole, "moved");

    // Taken out again: each message is two lines further up.
    let grown = std::fs::read_to_string(&path).unwrap();
    let taken_out = grown.replacen(&format!("{SNAPSHOT}\n{SNAPSHOT}\n"), "", 1);
    std::fs::write(&path, taken_out).unwrap();
    refresh_and_index(&mut index, &roots);
    ask_wombat(&path);
    refresh_and_index(&mut index, &roots);
    let (whole, _dir) = made_whole(&roots);
    assert_same_rows(&index, &whole, "moved");
}

/// Every shard file of the cache, opened for writing.
fn shard_files(index: &Index) -> Vec<rusqlite::Connection> {
    index::cache_files(index.path())
        .iter()
        .map(|f| rusqlite::Connection::open(f).unwrap())
        .collect()
}

/// A stored resume point with a value out of range or of another type (a damaged cache file: a
/// negative line or offset, state that does not decode, text for a number) is not started
/// from: the session is read whole, with no panic or error, and indexes as a read from scratch.
#[test]
fn a_damaged_resume_point_is_not_started_from() {
    for damage in [
        "UPDATE text_resume SET line = -1",
        "UPDATE text_resume SET line = offset + 1",
        "UPDATE text_resume SET line = 9223372036854775000",
        "UPDATE text_resume SET line = -2, offset = -5",
        "UPDATE text_resume SET offset = 9223372036854775807",
        "UPDATE text_resume SET state = x'ffffffff'",
        "UPDATE text_resume SET offset = 'far', state = 12",
        "UPDATE text_resume SET check_hash = 'x', line = 2.5",
    ] {
        let (_store, _cache, roots, path, mut index) = indexed_long();
        let mut damaged = 0;
        for conn in shard_files(&index) {
            damaged += conn.execute(damage, []).unwrap();
        }
        assert_eq!(damaged, 1, "{damage}");
        answer_on(&path);
        refresh_and_index(&mut index, &roots);
        let (whole, _dir) = made_whole(&roots);
        assert_same_rows(&index, &whole, damage);
    }
}

/// Every FTS row of every file of the cache: (message id, body), sorted; with how many rows
/// `indexed_messages` lists (each names one FTS row: an FTS row not listed is never removed).
fn fts_rows(index: &Index) -> (Vec<(String, String)>, usize) {
    let (mut all, mut listed) = (Vec::new(), 0);
    for file in index::cache_files(index.path()) {
        let conn = rusqlite::Connection::open(&file).unwrap();
        let mut stmt = conn
            .prepare("SELECT message_id, body FROM fts WHERE message_id != ''")
            .unwrap();
        let found = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        all.extend(found.map(Result::unwrap));
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM indexed_messages WHERE message_id != ''",
                [],
                |r| r.get(0),
            )
            .unwrap();
        listed += n as usize;
    }
    all.sort();
    (all, listed)
}

/// Message ids are the transcript's: one holding the separator of a repeated id's occurrence
/// number (`id\u{1f}2`) neither takes the row of the id's second occurrence (which left that
/// row's FTS row behind, listed nowhere, so never removed) nor is counted as one; each FTS row
/// names its own message, and a resumed read numbers as a whole one.
#[test]
fn a_message_id_holding_the_occurrence_separator_is_a_message_of_its_own() {
    let store = tempfile::tempdir().unwrap();
    let (roots, path) = long_store(store.path());
    let prompt = |uuid: &str, text: &str| {
        format!(
            r#"{{"type":"user","uuid":"{uuid}","sessionId":"{ID}","timestamp":"2026-11-30T11:00:00.000Z","message":{{"role":"user","content":"{text}"}}}}"#
        )
    };
    // First, far before any resume point: a line written again, and ids made to look like
    // its second and seventh occurrence.
    let lines = [
        prompt("q", "alpha"),
        prompt("q", "beta"),
        prompt(r"q\u001f2", "gamma"),
        prompt(r"q\u001f7", "delta"),
        std::fs::read_to_string(&path).unwrap(),
    ];
    std::fs::write(&path, lines.join("\n")).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let (mut index, _) = common::indexed(cache.path(), &roots);
    let (fts, listed) = fts_rows(&index);
    assert_eq!(fts.len(), listed);
    let ours: Vec<_> = fts.iter().filter(|(id, _)| id.starts_with('q')).collect();
    let expected = [
        ("q", "alpha\n"),
        ("q", "beta\n"),
        ("q\u{1f}2", "gamma\n"),
        ("q\u{1f}7", "delta\n"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(id, body)| (id.to_string(), body.to_string()))
        .collect();
    assert_eq!(ours, expected.iter().collect::<Vec<_>>());

    // Read again from its resume point: the id after it is numbered as a whole read does.
    append_line(&path, &prompt("q", "epsilon"));
    refresh_and_index(&mut index, &roots);
    let (whole, _dir) = made_whole(&roots);
    assert_same_rows(&index, &whole, "resumed");
    assert_eq!(fts_rows(&index), fts_rows(&whole));
}

/// The line of every stored resume point of the cache (see `index/resume.rs`).
fn resume_lines(index: &Index) -> Vec<i64> {
    let mut all = Vec::new();
    for conn in shard_files(index) {
        let mut stmt = conn.prepare("SELECT line FROM text_resume").unwrap();
        let found = stmt.query_map([], |r| r.get::<_, i64>(0)).unwrap();
        all.extend(found.map(Result::unwrap));
    }
    all
}

/// A real session's records over and over (the first record once for Codex: its session
/// header), to `lines` lines at least: far longer than a transcript builder holds. Each round
/// has ids of its own (uuids but the session's, message, tool and call ids), as a session as
/// long would: a record whose id came before is the same record written again.
fn repeated(kind: ProviderKind, session: &str, text: &str, lines: usize) -> Vec<String> {
    let all: Vec<&str> = text.lines().collect();
    let (head, body) = match kind {
        ProviderKind::Codex => all.split_at(1),
        _ => all.split_at(0),
    };
    let ids = regex::Regex::new(
        r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(msg|toolu|call)_",
    )
    .unwrap();
    let mut out: Vec<String> = head.iter().map(|l| l.to_string()).collect();
    for round in 0.. {
        if out.len() >= lines {
            break;
        }
        out.extend(body.iter().map(|l| {
            ids.replace_all(l, |c: &regex::Captures<'_>| match &c[0] {
                id if id == session => id.to_owned(),
                id if id.len() == 36 => format!("{round:08x}{}", &id[8..]),
                prefix => format!("{prefix}{round}_"),
            })
            .into_owned()
        }));
    }
    out
}

/// The longest session of each store in `common::JSONL_STORES`, its records repeated to
/// 2,000 lines, grows in steps (two fifths, seven tenths, all): after each, the index read from
/// the last resume point has exactly the rows of an index made from scratch, occurrence
/// numbers of repeated ids included.
#[test]
fn real_sessions_grown_in_steps_index_as_from_scratch() {
    for &(kind, version) in common::JSONL_STORES {
        let store = common::fixture_copy(kind, version);
        let roots = common::roots(kind, store.path());
        let catalog = common::catalog(kind, store.path());
        let longest = common::jsonl_sessions(&catalog)
            .into_iter()
            .max_by_key(|s| std::fs::metadata(&s.source_path).map_or(0, |m| m.len()))
            .unwrap();
        let path = longest.source_path;
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = repeated(kind, &longest.id, &text, 2000);
        let cut = |n: usize| {
            let text: String = lines[..n].iter().map(|l| format!("{l}\n")).collect();
            std::fs::write(&path, text).unwrap();
        };
        cut(lines.len() * 2 / 5);
        let cache = tempfile::tempdir().unwrap();
        let (mut index, _) = common::indexed(cache.path(), &roots);
        for n in [lines.len() * 7 / 10, lines.len()] {
            // Claude's next read starts far into the session, where the last one stopped.
            // (Codex's builder holds these rollouts back to an early line: what it holds is the
            // provider's; its reads are compared all the same.)
            let from = resume_lines(&index).into_iter().max().unwrap_or(0);
            if kind == ProviderKind::Claude {
                assert!(from > 150, "{version}: resumes at line {from}");
            }
            cut(n);
            let providers = ProviderSet::new(&roots, &[]);
            let p = ScanProgress::default();
            index.refresh(&providers, &p).unwrap();
            index.index_text(&providers, None, &p).unwrap();
            let (whole, _dir) = made_whole(&roots);
            let what = format!("{kind:?} {version} {} at {n} lines", path.display());
            assert_same_rows(&index, &whole, &what);
            assert_eq!(fts_rows(&index), fts_rows(&whole), "{what}");
        }
    }
}

/// A kill after a shard committed a session's rows and resume point, before the cache file
/// marked it indexed, leaves it pending with both in step: its next read starts at that point
/// (the same rows again, then an append's) and indexes as a read from scratch.
#[test]
fn a_session_left_pending_after_its_shard_committed_is_read_from_its_new_point() {
    let (_store, _cache, roots, path, mut index) = indexed_long();
    answer_on(&path);
    refresh_and_index(&mut index, &roots);
    let points = resume_lines(&index);
    // The mark lost: pending again, its rows and point as the shard committed them.
    let conn = rusqlite::Connection::open(index.path()).unwrap();
    conn.execute("UPDATE sessions SET text_indexed = 0", [])
        .unwrap();
    // Prompt 300, far before the point, reworded in place for the read alone: the read starts
    // at the point, so its row stays as it was.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("question 300\"", "quixotic 300\"", 1)).unwrap();
    let providers = ProviderSet::new(&roots, &[]);
    let p = ScanProgress::default();
    assert_eq!(index.index_text(&providers, None, &p).unwrap(), 1);
    std::fs::write(&path, text).unwrap();
    assert_eq!(resume_lines(&index), points);
    let (whole, _dir) = made_whole(&roots);
    assert_same_rows(&index, &whole, "pending again");

    conn.execute("UPDATE sessions SET text_indexed = 0", [])
        .unwrap();
    ask_wombat(&path);
    refresh_and_index(&mut index, &roots);
    let (whole, _dir) = made_whole(&roots);
    assert_same_rows(&index, &whole, "pending, then grown");
}

/// A session whose lines end in CRLF is resumed as one ending in LF: its point is far into
/// the file, and after an append (CRLF too) the index is the one made from scratch.
#[test]
fn a_session_with_crlf_line_ends_resumes_too() {
    let store = tempfile::tempdir().unwrap();
    let (roots, path) = long_store(store.path());
    let crlf = |path: &Path| {
        let text = std::fs::read_to_string(path).unwrap();
        std::fs::write(path, text.replace("\r\n", "\n").replace('\n', "\r\n")).unwrap();
    };
    crlf(&path);
    let cache = tempfile::tempdir().unwrap();
    let (mut index, _) = common::indexed(cache.path(), &roots);
    let from = resume_lines(&index).into_iter().max().unwrap_or(0);
    assert!(from > 600, "resumes at line {from}");
    answer_on(&path);
    crlf(&path);
    refresh_and_index(&mut index, &roots);
    let (whole, _dir) = made_whole(&roots);
    assert_same_rows(&index, &whole, "crlf");
    assert!(rows(&index)
        .iter()
        .any(|(_, _, text)| text.contains("quokka")));
}
