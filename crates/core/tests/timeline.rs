//! The whole timeline a front end asks for again as a session grows (`live::timeline`, the
//! app's Timeline tab and the remote's `log`) equals a whole read of the file at every moment,
//! though each ask reads about the append. Checked by writing every JSONL session of the Claude
//! and Codex fixture stores (and the public samples where they exist) again into files that
//! grow in uneven chunks, one in three cut inside a record, two sessions at a time asked for in
//! turn through one `Timelines`.

mod common;

use std::io::Write;
use std::path::PathBuf;

use agent_sessions_core::live::events;
use agent_sessions_core::live::follow::WINDOW;
use agent_sessions_core::live::timeline::Timelines;
use agent_sessions_core::{Catalog, ProviderKind, SessionMeta};

/// A session's file written again, chunk by chunk, in a folder of its own (same file name:
/// the provider reads a `.jsonl` file in part).
struct Growing {
    session: SessionMeta,
    text: Vec<u8>,
    cuts: Vec<usize>,
    next: usize,
    _dir: tempfile::TempDir,
}

impl Growing {
    fn new(session: &SessionMeta, step: usize) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let text = std::fs::read(&session.source_path).unwrap();
        let mut session = session.clone();
        session.source_path = dir.path().join(session.source_path.file_name().unwrap());
        std::fs::write(&session.source_path, b"").unwrap();
        let cuts = cuts(&text, step);
        Growing {
            session,
            text,
            cuts,
            next: 0,
            _dir: dir,
        }
    }

    /// Appends the next chunk; false when the whole file is written.
    fn grow(&mut self) -> bool {
        let Some(&to) = self.cuts.get(self.next) else {
            return false;
        };
        let from = self.next.checked_sub(1).map_or(0, |i| self.cuts[i]);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.session.source_path)
            .unwrap();
        f.write_all(&self.text[from..to]).unwrap();
        self.next += 1;
        true
    }
}

/// Cuts after 1, 2, … `step` lines in turn, one chunk in three ending a third into the next
/// line (a record written in part).
fn cuts(text: &[u8], step: usize) -> Vec<usize> {
    let ends: Vec<usize> = text
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect();
    let mut cuts = Vec::new();
    let mut i = 0;
    let mut n = 0;
    while i < ends.len() {
        n += 1;
        i = (i + 1 + n % step.max(1)).min(ends.len());
        let end = ends[i - 1];
        cuts.push(end);
        if n % 3 == 1 {
            if let Some(&next) = ends.get(i) {
                cuts.push(end + (next - end) / 3);
            }
        }
    }
    cuts.dedup();
    cuts
}

/// The stores to replay: the JSONL fixture stores, then the public samples when here.
fn stores() -> Vec<(ProviderKind, PathBuf)> {
    let mut stores: Vec<(ProviderKind, PathBuf)> = common::JSONL_STORES
        .iter()
        .map(|&(k, v)| (k, common::fixture(k, v)))
        .collect();
    let public = common::repo().join("../shared/fixtures/public");
    if public.is_dir() {
        stores.push((ProviderKind::Claude, public.join("claude/codemie-code")));
        stores.push((ProviderKind::Claude, public.join("claude/marot-spotter")));
        stores.push((
            ProviderKind::Codex,
            public.join("codex/codemie-code/dot-codex"),
        ));
    } else {
        eprintln!("no public samples at {}; skipped", public.display());
    }
    stores
}

/// Asks for `g`'s timeline and checks it against a whole read of the file as it is now.
fn ask(catalog: &Catalog, timelines: &mut Timelines, g: &Growing) {
    let got = timelines.read(catalog, &g.session).unwrap();
    let whole = catalog.load(&g.session).unwrap();
    let all = events::project(&whole.messages, got.ended);
    let want = &all[all.len().saturating_sub(WINDOW)..];
    let at = format!("{} after chunk {}", g.session.id, g.next);
    if got.events != want {
        let same = got.events.iter().zip(want).take_while(|(a, b)| a == b);
        let same = same.count();
        let near = |e: &[events::Event]| {
            e.iter()
                .skip(same.saturating_sub(3))
                .take(6)
                .map(|e| (e.seq, e.kind))
                .collect::<Vec<_>>()
        };
        panic!(
            "{at}: {} events, {} expected; from {same}: {:?}\nexpected {:?}",
            got.events.len(),
            want.len(),
            near(&got.events),
            near(want)
        );
    }
    assert_eq!(got.truncated, all.len() > WINDOW, "{at}");
    assert_eq!(got.cursor, want.last().map_or(0, |e| e.seq), "{at}");
}

#[test]
fn the_whole_timeline_asked_again_equals_a_whole_read() {
    let (mut sessions_seen, mut asks) = (0, 0);
    for (kind, root) in stores() {
        let catalog = common::catalog(kind, &root);
        let sessions = common::jsonl_sessions(&catalog);
        let mut timelines = Timelines::default();
        for pair in sessions.chunks(2) {
            // Each ask is checked against a whole read: a long file grows in larger chunks.
            let step = |s: &SessionMeta| {
                let size = std::fs::metadata(&s.source_path).unwrap().len();
                1 + (size / (256 << 10)) as usize * 8 + 4
            };
            let mut growing: Vec<Growing> = pair.iter().map(|s| Growing::new(s, step(s))).collect();
            loop {
                let mut grew = false;
                for g in &mut growing {
                    if g.grow() {
                        grew = true;
                        ask(&catalog, &mut timelines, g);
                        asks += 1;
                    }
                }
                if !grew {
                    break;
                }
            }
            sessions_seen += pair.len();
        }
    }
    eprintln!("{sessions_seen} sessions, {asks} asks");
    assert!(sessions_seen > 40, "{sessions_seen} sessions");
}
