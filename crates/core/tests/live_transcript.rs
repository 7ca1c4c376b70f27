//! The app's open transcript of a growing session (`service/transcript.rs`) is read again from
//! where its last read said the next could start, and spliced: after every append it equals
//! a whole read of the grown file, message for message (ids, parent ids, parts, lines), with
//! the same diagnostics and session counts. Checked on every Claude and Codex fixture session
//! cut at every line end and in the middle of every line (as a live agent leaves it), then
//! grown to its whole in one piece or line by line; a file cut shorter is read whole.

mod common;

use std::path::{Path, PathBuf};

use agent_sessions_core::provider::ProviderSet;
use agent_sessions_core::service::{Service, TranscriptReads};
use agent_sessions_core::{Catalog, Part, ProviderKind, Roots, ScanProgress, SessionMeta};
use agent_sessions_core::{ToolStatus, Transcript};
use common::{fixture, repo};

/// Every session of every fixture version of `kind`.
fn fixture_sessions(kind: ProviderKind) -> Vec<(Roots, SessionMeta)> {
    let dir = repo().join("testdata").join(kind.as_str());
    let mut versions: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("EXPECTED.json").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    versions.sort();
    let mut all = Vec::new();
    for version in versions {
        let root = fixture(kind, &version);
        if !root.exists() {
            continue; // a store built from SQL (OpenCode's v2): the golden tests read it
        }
        let roots = Roots::default().with(kind, [root]);
        let report = Catalog::new(&roots, &[]).scan(&ScanProgress::default());
        for s in report.unwrap().sessions {
            all.push((roots.clone(), s));
        }
    }
    assert!(all.len() > 5, "{kind}: {} fixture sessions", all.len());
    all
}

/// The transcript as the provider reads it whole.
fn load(roots: &Roots, meta: &SessionMeta) -> Transcript {
    let providers = ProviderSet::new(roots, &[]);
    providers.get(meta.provider).unwrap().load(meta).unwrap()
}

/// The transcript the service hands a page of.
fn open(service: &Service, meta: &SessionMeta) -> Transcript {
    service.with_transcript_of(meta, Transcript::clone).unwrap()
}

/// Fails, saying where, unless `got` is `want` in every field.
#[track_caller]
fn assert_same(got: &Transcript, want: &Transcript, what: &str) {
    let at = got
        .messages
        .iter()
        .zip(&want.messages)
        .position(|(g, w)| g != w);
    assert!(
        at.is_none() && got.messages.len() == want.messages.len(),
        "{what}: {} messages, a whole read has {}; first difference at #{at:?}:\n got  {:?}\n want {:?}",
        got.messages.len(),
        want.messages.len(),
        at.and_then(|i| got.messages.get(i)),
        at.and_then(|i| want.messages.get(i)),
    );
    assert_eq!(got.diagnostics, want.diagnostics, "{what}: diagnostics");
    assert_eq!(got.session, want.session, "{what}: session");
}

/// Where a live agent may leave its file: after every line, and in the middle of every line.
fn cuts(bytes: &[u8]) -> Vec<usize> {
    let ends: Vec<usize> = (0..bytes.len())
        .filter(|&i| bytes[i] == b'\n')
        .map(|i| i + 1)
        .collect();
    let mut cuts: Vec<usize> = ends.windows(2).map(|w| (w[0] + w[1]) / 2).collect();
    cuts.extend(&ends);
    cuts.sort();
    cuts.into_iter().step_by(SAMPLE).collect()
}

/// One cut in `SAMPLE` is tried. As a Windows program under Wine (scripts/test-windows.sh)
/// every write and read of these thousands goes through the Wine server, and all of them took
/// six minutes; a quarter of them checks the same reads on Windows' files (the splice itself
/// is the same code on every system, checked whole on Linux).
const SAMPLE: usize = if cfg!(windows) { 4 } else { 1 };

/// A copy of `meta`'s file in `dir`, and `meta` naming it.
fn copy_of(meta: &SessionMeta, dir: &Path) -> (SessionMeta, Vec<u8>) {
    let bytes = std::fs::read(&meta.source_path).unwrap();
    let mut copy = meta.clone();
    copy.source_path = dir.join(meta.source_path.file_name().unwrap());
    (copy, bytes)
}

/// Writes `bytes` over the file at `path` (a live agent's file, grown or cut).
fn write(path: &PathBuf, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap();
}

/// `bytes` with a line that is no JSON after their second line.
fn with_a_broken_line(bytes: &[u8]) -> Vec<u8> {
    let mut ends = (0..bytes.len()).filter(|&i| bytes[i] == b'\n');
    let at = ends.nth(1).map_or(bytes.len(), |i| i + 1);
    [&bytes[..at], b"{\"type\": broken\n", &bytes[at..]].concat()
}

/// What the checks of one agent did.
#[derive(Debug, Default)]
struct Checked {
    appends: u64,
    /// Appends after which the last message held had a call still waiting for its result.
    after_a_waiting_call: u64,
}

/// Each session of `kind`, cut at every cut of [`cuts`] then grown: to its whole in one
/// piece, or to its whole from there through every later cut. Each time the service holds the
/// read before, and what it hands out equals a whole read of the file as it is then (at the
/// default window, `load`; at a small one, a whole read at that window: a window that small
/// hands out a split answer's first part before its last, which `load` merges).
///
/// `broken`: a line that is no JSON is put after each file's second line, so the reads have a
/// diagnostic before their resume points.
fn check_appends(
    kind: ProviderKind,
    window: Option<(usize, usize)>,
    broken: bool,
) -> (Checked, TranscriptReads) {
    let mut checked = Checked::default();
    let service = Service::new(Roots::default(), None);
    let whole = Service::new(Roots::default(), None);
    if let Some((keep, at_most)) = window {
        service.set_transcript_window(keep, at_most);
    }
    // A whole read at the window: setting it forgets what `whole` held.
    let expected = |roots: &Roots, meta: &SessionMeta| match window {
        None => load(roots, meta),
        Some((keep, at_most)) => {
            whole.set_transcript_window(keep, at_most);
            open(&whole, meta)
        }
    };
    let jsonl = |m: &SessionMeta| m.source_path.extension().is_some_and(|e| e == "jsonl");
    for (roots, meta) in fixture_sessions(kind).into_iter().filter(|(_, m)| jsonl(m)) {
        let dir = tempfile::tempdir().unwrap();
        let (meta, mut bytes) = copy_of(&meta, dir.path());
        if broken {
            bytes = with_a_broken_line(&bytes);
        }
        let cuts = cuts(&bytes);
        for (i, &cut) in cuts.iter().enumerate() {
            // One piece.
            write(&meta.source_path, &bytes[..cut]);
            let prefix = open(&service, &meta);
            assert_same(&prefix, &expected(&roots, &meta), "the prefix read whole");
            let waiting = prefix.messages.last().is_some_and(|m| {
                m.parts
                    .iter()
                    .any(|p| matches!(p, Part::Tool(t) if t.status == ToolStatus::Pending))
            });
            write(&meta.source_path, &bytes);
            let what = format!("{}: cut at byte {cut}, grown to its whole", meta.id);
            let grown = open(&service, &meta);
            assert_same(&grown, &expected(&roots, &meta), &what);
            let problems = grown.diagnostics.parse_errors;
            assert_eq!(
                problems,
                u64::from(broken),
                "{what}: {:?}",
                grown.diagnostics
            );
            checked.appends += 1;
            checked.after_a_waiting_call += u64::from(waiting);
            // Cut by cut from there, from two cuts of the file (so the test stays quick).
            if i % (cuts.len() / 2).max(1) != 0 {
                continue;
            }
            write(&meta.source_path, &bytes[..cut]);
            open(&service, &meta);
            for &next in cuts.iter().filter(|&&c| c > cut) {
                write(&meta.source_path, &bytes[..next]);
                let what = format!("{}: cut at byte {cut}, grown to {next}", meta.id);
                assert_same(&open(&service, &meta), &expected(&roots, &meta), &what);
                checked.appends += 1;
            }
        }
    }
    (checked, service.transcript_reads())
}

/// With the default window a fixture session is held open whole, so every append is read from
/// (about) its start: the splice still has to give `load`'s transcript, and after a file cut
/// shorter the service reads it whole.
fn appends_at_the_default_window(kind: ProviderKind) {
    let (checked, reads) = check_appends(kind, None, false);
    assert!(checked.appends > 1000 / SAMPLE as u64, "{checked:?}");
    assert!(reads.resumed > checked.appends / 2, "{checked:?} {reads:?}");
    assert!(
        reads.whole > 300 / SAMPLE as u64,
        "cut files are read whole: {reads:?}"
    );
}

/// With small windows the resume points lie well into the files: messages whose parents are
/// before the point, calls waiting across it, a diagnostic before it.
fn appends_past_small_windows(kind: ProviderKind, broken: bool) {
    for (keep, at_most) in [(2, 1000), (8, 8)] {
        let (checked, reads) = check_appends(kind, Some((keep, at_most)), broken);
        assert!(reads.resumed > checked.appends / 2, "{checked:?} {reads:?}");
        assert!(
            checked.after_a_waiting_call > 20 / SAMPLE as u64,
            "{checked:?}"
        );
    }
}

#[test]
fn claude_appends_equal_a_whole_read() {
    appends_at_the_default_window(ProviderKind::Claude);
}

#[test]
fn codex_appends_equal_a_whole_read() {
    appends_at_the_default_window(ProviderKind::Codex);
}

#[test]
fn claude_appends_resumed_past_a_small_window_equal_a_whole_read() {
    appends_past_small_windows(ProviderKind::Claude, false);
}

#[test]
fn codex_appends_resumed_past_a_small_window_equal_a_whole_read() {
    appends_past_small_windows(ProviderKind::Codex, false);
}

#[test]
fn appends_after_a_broken_line_equal_a_whole_read() {
    appends_past_small_windows(ProviderKind::Claude, true);
}

/// A transcript the service reads whole is the provider's `load`, for every fixture session of
/// every agent (OpenCode's and single-document Codex rollouts are only ever read whole).
#[test]
fn a_whole_read_equals_load_for_every_fixture() {
    for kind in [
        ProviderKind::Claude,
        ProviderKind::Codex,
        ProviderKind::Opencode,
    ] {
        for (roots, meta) in fixture_sessions(kind) {
            let service = Service::new(roots.clone(), None);
            let what = format!("{kind} {}", meta.id);
            assert_same(&open(&service, &meta), &load(&roots, &meta), &what);
        }
    }
}
