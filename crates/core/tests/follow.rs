//! A follower polled after every append to a growing session hands out exactly what one whole
//! read of the file gives at that moment, while each poll reads about what was appended, not
//! the file. Checked by replaying real session files (every JSONL session of the Claude and
//! Codex fixture stores, and the public samples where they exist) into a file that grows:
//! record by record, in uneven and random chunks, and cut in the middle of records.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use agent_sessions_core::live::events::{self, Event, SEQ_SLOTS};
use agent_sessions_core::live::follow::{Follower, WINDOW};
use agent_sessions_core::model::{Part, Role, ToolStatus};
use agent_sessions_core::{Catalog, ProviderKind, SessionMeta};
use proptest::prelude::*;

/// The public samples' stores (`../shared/fixtures/public`), when they exist here.
fn public_stores() -> Vec<(ProviderKind, PathBuf)> {
    let shared = common::repo().join("../shared/fixtures/public");
    if !shared.is_dir() {
        eprintln!("no public samples at {}; skipped", shared.display());
        return Vec::new();
    }
    vec![
        (ProviderKind::Claude, shared.join("claude/codemie-code")),
        (ProviderKind::Claude, shared.join("claude/marot-spotter")),
        (
            ProviderKind::Codex,
            shared.join("codex/codemie-code/dot-codex"),
        ),
    ]
}

/// Every store to replay: the fixtures, then the public samples.
fn stores() -> Vec<(ProviderKind, PathBuf)> {
    let fixtures = common::JSONL_STORES
        .iter()
        .map(|&(k, v)| (k, common::fixture(k, v)));
    fixtures.chain(public_stores()).collect()
}

/// A session whose file is written again, piece by piece, into a folder of its own; the store
/// it came from answers for it (the same provider, the same session), reading the new file.
struct Growing {
    session: SessionMeta,
    text: Vec<u8>,
    written: usize,
    _dir: tempfile::TempDir,
}

impl Growing {
    fn new(session: &SessionMeta) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let text = std::fs::read(&session.source_path).unwrap();
        let mut session = session.clone();
        // The same file name: the provider reads a `.jsonl` rollout in part.
        session.source_path = dir.path().join(session.source_path.file_name().unwrap());
        std::fs::write(&session.source_path, b"").unwrap();
        Growing {
            session,
            text,
            written: 0,
            _dir: dir,
        }
    }

    /// Appends the original's bytes up to `to`.
    fn write_to(&mut self, to: usize) {
        let to = to.min(self.text.len());
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.session.source_path)
            .unwrap();
        f.write_all(&self.text[self.written..to]).unwrap();
        self.written = to;
    }

    fn done(&self) -> bool {
        self.written >= self.text.len()
    }

    /// The end of each line of the original, after its newline.
    fn line_ends(&self) -> Vec<usize> {
        let ends = self.text.iter().enumerate().filter(|(_, b)| **b == b'\n');
        ends.map(|(i, _)| i + 1).collect()
    }
}

/// What a follower with `cursor` gets from one whole read of the file as it is now.
fn whole_read(catalog: &Catalog, session: &SessionMeta, cursor: u64, ended: bool) -> Vec<Event> {
    let whole = catalog.load(session).unwrap();
    let all = events::project(&whole.messages, ended);
    let (new, next, truncated) = events::since(&all, cursor, WINDOW, 0);
    assert!(!truncated, "a whole read skips nothing");
    assert_eq!(next, new.last().map_or(cursor, |e| e.seq));
    new
}

/// Writes the session's file again in the pieces `cuts` (byte positions, increasing) and polls
/// one follower after each: every poll must hand out exactly what a whole read gives. Returns
/// the bytes each poll after the first parsed.
fn replay(catalog: &Catalog, g: &mut Growing, cuts: &[usize], what: &str) -> Vec<u64> {
    let mut follower = Follower::new(g.session.clone(), 0);
    let mut cursor = 0;
    let mut parsed = Vec::new();
    for (i, &cut) in cuts.iter().enumerate() {
        g.write_to(cut);
        let update = follower.poll(catalog).unwrap();
        let expected = whole_read(catalog, &g.session, cursor, update.ended);
        let at = format!("{what}: {} after byte {cut} (poll {i})", g.session.id);
        assert_eq!(update.events, expected, "{at}");
        assert!(!update.truncated, "{at}");
        cursor = expected.last().map_or(cursor, |e| e.seq);
        assert_eq!(update.cursor, cursor, "{at}");
        if i > 0 {
            parsed.push(follower.last_cost().parsed);
        }
    }
    parsed
}

/// Cuts after chunks of lines: each step of `plan` (taken in turn) is how many lines to
/// append, and, when not 0, where in the next line to cut it too (in 256ths of it: a record
/// written in part).
fn cuts(ends: &[usize], plan: &[(usize, u8)]) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut i = 0;
    for &(lines, part) in plan.iter().cycle() {
        if i >= ends.len() {
            break;
        }
        i = (i + lines.max(1)).min(ends.len());
        let end = ends[i - 1];
        cuts.push(end);
        let next = ends.get(i).copied().unwrap_or(end);
        let into = (next - end) * usize::from(part) / 256;
        if into > 0 && end + into < next {
            cuts.push(end + into);
        }
    }
    cuts
}

/// A fixed plan of uneven chunks of up to `most` lines, one in three cut inside a record.
fn varied_plan(most: usize) -> Vec<(usize, u8)> {
    (0..17)
        .map(|i| (1 + (i * 7) % most.max(1), if i % 3 == 1 { 97 } else { 0 }))
        .collect()
}

/// What the replays went through: the situations a late record changes earlier events in.
#[derive(Default, Debug)]
struct Seen {
    sessions: usize,
    /// A tool call whose result is a record of its own (so an append can fall between them).
    results_apart: usize,
    /// An assistant answer written as several records (Claude's split message, a Codex step).
    split_answers: usize,
}

impl Seen {
    fn count(&mut self, catalog: &Catalog, s: &SessionMeta) {
        self.sessions += 1;
        for m in catalog.load(s).unwrap().messages {
            let done_tools = m
                .parts
                .iter()
                .filter(|p| matches!(p, Part::Tool(t) if t.status != ToolStatus::Pending))
                .count();
            if done_tools > 0 && m.source_lines.len() > 1 {
                self.results_apart += 1;
            }
            let texts_or_tools = m
                .parts
                .iter()
                .filter(|p| {
                    matches!(
                        p,
                        Part::Text { .. } | Part::Tool(_) | Part::Reasoning { .. }
                    )
                })
                .count();
            if m.role == Role::Assistant && texts_or_tools > 1 && m.source_lines.len() > 1 {
                self.split_answers += 1;
            }
        }
    }
}

/// Record by record, and in uneven chunks with records cut in two: every session of every
/// store.
#[test]
fn polls_after_each_append_equal_a_whole_read() {
    let mut seen = Seen::default();
    for (kind, root) in stores() {
        let catalog = common::catalog(kind, &root);
        for s in common::jsonl_sessions(&catalog) {
            seen.count(&catalog, &s);
            let g = Growing::new(&s);
            let lines = g.line_ends();
            // Each poll is checked against a whole read: a long file is replayed in fewer,
            // larger pieces (about 48 MB parsed per replay at most).
            let affordable = |polls: usize| polls as u64 * g.text.len() as u64 / 2 <= 48 << 20;
            if affordable(lines.len()) {
                replay(&catalog, &mut Growing::new(&s), &lines, "record by record");
            }
            for most in [3, 12, (lines.len() / 10).max(5)] {
                let cuts = cuts(&lines, &varied_plan(most));
                if affordable(cuts.len()) {
                    replay(&catalog, &mut Growing::new(&s), &cuts, "in chunks");
                }
            }
        }
    }
    eprintln!("{seen:?}");
    assert!(seen.sessions > 40, "{seen:?}");
    assert!(seen.results_apart > 50, "{seen:?}");
    assert!(seen.split_answers > 10, "{seen:?}");
}

/// The fixture sessions small enough to replay whole in each case of the property below.
fn small_sessions() -> Vec<(ProviderKind, PathBuf, SessionMeta)> {
    let mut out = Vec::new();
    for (kind, root) in stores() {
        let catalog = common::catalog(kind, &root);
        for s in common::jsonl_sessions(&catalog) {
            let size = std::fs::metadata(&s.source_path).unwrap().len();
            if size <= 1 << 20 {
                out.push((kind, root.clone(), s));
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any chunking of a real session's file, records cut anywhere: each poll hands out what a
    /// whole read gives.
    #[test]
    fn any_chunking_equals_a_whole_read(
        pick in any::<prop::sample::Index>(),
        plan in prop::collection::vec((1usize..24, any::<u8>()), 1..16),
    ) {
        let sessions = small_sessions();
        let (kind, root, s) = &sessions[pick.index(sessions.len())];
        let catalog = common::catalog(*kind, root);
        let mut g = Growing::new(s);
        let cuts = cuts(&g.line_ends(), &plan);
        replay(&catalog, &mut g, &cuts, &format!("plan {plan:?}"));
    }
}

/// The Claude fixture session with a record of 400 KB (a tool's output): that record arrives
/// alone, then with a window smaller than it the follower still hands out what a whole read
/// gives or says it skipped.
#[test]
fn a_huge_record_appended_alone() {
    let kind = ProviderKind::Claude;
    let root = common::fixture(kind, "2.1.9");
    let catalog = common::catalog(kind, &root);
    let s = common::jsonl_sessions(&catalog)
        .into_iter()
        .max_by_key(|s| std::fs::metadata(&s.source_path).unwrap().len())
        .unwrap();
    let mut g = Growing::new(&s);
    let ends = g.line_ends();
    let huge = (1..ends.len())
        .max_by_key(|&i| ends[i] - ends[i - 1])
        .unwrap();
    assert!(
        ends[huge] - ends[huge - 1] > 300 << 10,
        "the fixture's huge record"
    );
    // Up to the record, the record alone, then the rest record by record.
    let mut cuts = vec![ends[huge - 1], ends[huge]];
    cuts.extend_from_slice(&ends[huge + 1..]);
    replay(&catalog, &mut g, &cuts, "huge record");

    // A window smaller than the record: the poll that meets it reads the window only.
    let mut g = Growing::new(&s);
    let mut follower = Follower::new(g.session.clone(), 0).with_window_bytes(64 << 10);
    let mut cursor = 0;
    for &cut in &cuts {
        g.write_to(cut);
        let update = follower.poll(&catalog).unwrap();
        assert!(follower.last_cost().parsed <= 64 << 10);
        let expected = whole_read(&catalog, &g.session, cursor, update.ended);
        if !update.truncated {
            assert_eq!(update.events, expected, "after byte {cut}");
        }
        cursor = update.cursor;
    }
    assert!(g.done());
}

/// A poll after a small append to a big session reads about the append: the largest real
/// Claude and Codex files here (the public samples of 3 MB and 750 KB; the fixtures' largest
/// when they are absent) are written up to each of their last 200 records, one at a time, and
/// no poll parses more than the appended record and the last few messages before it.
#[test]
fn a_poll_after_an_append_reads_about_the_append() {
    for kind in [ProviderKind::Claude, ProviderKind::Codex] {
        let (root, s) = stores()
            .into_iter()
            .filter(|(k, _)| *k == kind)
            .flat_map(|(kind, root)| {
                let catalog = common::catalog(kind, &root);
                common::jsonl_sessions(&catalog)
                    .into_iter()
                    .map(move |s| (root.clone(), s))
            })
            .max_by_key(|(_, s)| std::fs::metadata(&s.source_path).unwrap().len())
            .unwrap();
        polls_read_about_the_append(kind, &root, &s);
    }
}

fn polls_read_about_the_append(kind: ProviderKind, root: &Path, s: &SessionMeta) {
    let catalog = common::catalog(kind, root);
    let mut g = Growing::new(s);
    let ends = g.line_ends();
    let from = ends.len().saturating_sub(200).max(1);
    let mut follower = Follower::new(g.session.clone(), 0);
    g.write_to(ends[from - 1]);
    follower.poll(&catalog).unwrap();
    let first = follower.last_cost();
    assert_eq!(
        first.parsed as usize,
        ends[from - 1],
        "the first poll reads it all"
    );
    let mut total = 0u64;
    let mut appended = 0u64;
    let mut most = 0u64;
    for i in from..ends.len() {
        g.write_to(ends[i]);
        let update = follower.poll(&catalog).unwrap();
        assert!(!update.truncated);
        let cost = follower.last_cost();
        let record = (ends[i] - ends[i - 1]) as u64;
        total += cost.parsed;
        appended += record;
        most = most.max(cost.parsed.saturating_sub(record));
        // What is read besides the record: the messages still open before it.
        assert!(cost.scanned <= cost.parsed, "{cost:?}");
    }
    let size = g.text.len() as u64;
    eprintln!(
        "{}: {size} bytes; last {} records ({appended} bytes) parsed {total} bytes in all, \
         at most {most} besides the record",
        s.id,
        ends.len() - from
    );
    // Besides its record a poll reads the messages still open before it. A Claude answer and
    // its tools' results: tens of KB. A Codex step (reasoning, tool calls and their outputs up
    // to the next answer) is one message, re-read until it closes: up to ~130 KB in the public
    // sample. Before, each poll parsed the whole file.
    let (factor, open) = match kind {
        ProviderKind::Claude => (8, 128 << 10),
        _ => (32, 256 << 10),
    };
    // An open message is re-read until it closes, and one record of it may be far larger than
    // the rest (the fixtures' largest Claude file, read when the public samples are absent, is
    // one 400 KB tool output): that record is read again on top.
    let largest = ends
        .windows(2)
        .map(|w| (w[1] - w[0]) as u64)
        .max()
        .unwrap_or(0);
    let open = open + largest;
    assert!(
        total <= factor * appended.max(64 << 10),
        "{total} bytes parsed for {appended} appended"
    );
    assert!(
        most <= open,
        "a poll read {most} bytes besides its record, of {size}"
    );
}

/// Line numbers stay absolute when the read start moves: a prompt appended as the file's
/// n-th line is numbered from line n, as a whole read numbers it.
#[test]
fn appended_events_keep_their_line_numbers() {
    let kind = ProviderKind::Codex;
    let root = common::fixture(kind, "0.171.0");
    let catalog = common::catalog(kind, &root);
    let s = common::jsonl_sessions(&catalog).into_iter().next().unwrap();
    let mut g = Growing::new(&s);
    let ends = g.line_ends();
    let mut follower = Follower::new(g.session.clone(), 0);
    for &end in &ends {
        g.write_to(end);
        follower.poll(&catalog).unwrap();
    }
    let line = r#"{"timestamp":"2026-11-30T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"one more thing"}]}}"#;
    common::append_line(&g.session.source_path, line);
    let update = follower.poll(&catalog).unwrap();
    let prompt: Vec<&Event> = update
        .events
        .iter()
        .filter(|e| e.kind == events::EventType::Prompt)
        .collect();
    assert_eq!(prompt.len(), 1, "{:?}", update.events);
    assert_eq!(prompt[0].seq, (ends.len() as u64 + 1) * SEQ_SLOTS + 1);
    assert!(follower.last_cost().parsed < (line.len() as u64) * 64);
}

/// The list's turn state of a live session longer than its 256 KiB window (the 3 MB public
/// Claude sample, in a copy, its times moved to now so they count as evidence), as the file
/// grows by each of its last 80 records: always what a whole read of the file says.
#[cfg(target_os = "linux")]
#[test]
fn a_long_live_sessions_turn_state_equals_a_whole_read() {
    let kind = ProviderKind::Claude;
    let Some((_, public)) = public_stores().into_iter().nth(1) else {
        return;
    };
    let store = tempfile::tempdir().unwrap();
    common::copy_dir(&public, store.path());
    let catalog = common::catalog(kind, store.path());
    let s = common::jsonl_sessions(&catalog)
        .into_iter()
        .max_by_key(|s| std::fs::metadata(&s.source_path).unwrap().len())
        .unwrap();
    common::claim_live(store.path(), &s.id, "busy");
    let text = timestamps_now(&std::fs::read_to_string(&s.source_path).unwrap());
    let ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
    assert!(ends[ends.len() - 81] > 1 << 20, "the window cuts the file");
    let mut states = std::collections::BTreeSet::new();
    for &end in &ends[ends.len() - 80..] {
        std::fs::write(&s.source_path, &text[..end]).unwrap();
        let mut listed = vec![s.clone()];
        catalog.enrich(&mut listed);
        assert!(listed[0].live);
        let whole = catalog.load(&s).unwrap();
        let events = events::project(&whole.messages, false);
        let expected = events::turn_state(&events, chrono::Utc::now(), 600);
        assert_eq!(listed[0].turn, Some(expected), "after byte {end}");
        states.insert(format!("{expected:?}"));
    }
    assert!(
        states.len() > 1,
        "the records change the turn state: {states:?}"
    );
}

/// `text` with every record's `timestamp` now.
fn timestamps_now(text: &str) -> String {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let key = r#""timestamp":""#;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        let value = &rest[at + key.len()..];
        let Some(close) = value.find('"') else {
            break;
        };
        out.push_str(&rest[..at + key.len()]);
        out.push_str(&now);
        rest = &value[close..];
    }
    out.push_str(rest);
    out
}

/// A followed Codex session stays live while it is written: liveness is judged from the last
/// record the follower read, not from the session as first listed (its last write then: a
/// follower ended two minutes after it began, `log --follow` with it). A process named `codex`
/// runs meanwhile, as the agent would.
#[cfg(target_os = "linux")]
#[test]
fn a_followed_codex_session_stays_live_while_written() {
    use chrono::{Duration, SecondsFormat, Utc};
    let kind = ProviderKind::Codex;
    let store = common::fixture_copy(kind, "0.171.0");
    let catalog = common::catalog(kind, store.path());
    let mut s = common::jsonl_sessions(&catalog).remove(0);
    let mut codex = std::process::Command::new("bash")
        .args(["-c", "exec -a codex sleep 60"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    // Listed 115 s after its last write: live for 5 s more by that listing.
    s.updated_at = Some(Utc::now() - Duration::seconds(115));
    let mut follower = Follower::new(s.clone(), 0);
    assert!(!follower.poll(&catalog).unwrap().ended, "live when listed");
    let now = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
    common::append_line(
        &s.source_path,
        &format!(
            r#"{{"timestamp":"{now}","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"one more"}}]}}}}"#
        ),
    );
    let update = follower.poll(&catalog).unwrap();
    assert!(!update.ended, "live after a write");
    assert!(update
        .events
        .iter()
        .any(|e| e.kind == events::EventType::Prompt));
    std::thread::sleep(std::time::Duration::from_secs(8));
    assert!(!catalog.is_live(&s), "the listing alone says it ended");
    let later = follower.poll(&catalog).unwrap();
    // Listed long before the write it reads first: live in that very poll.
    let mut stale = s.clone();
    stale.updated_at = Some(Utc::now() - Duration::seconds(300));
    let first = Follower::new(stale, 0).poll(&catalog).unwrap();
    codex.kill().unwrap();
    codex.wait().unwrap();
    assert!(!later.ended, "ended 8 s after a write");
    assert!(!first.ended, "ended in the poll that read a write 8 s old");
}
