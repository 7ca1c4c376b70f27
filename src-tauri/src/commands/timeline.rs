//! A session's normalized event timeline (what `agent-sessions-cli log` prints), for the
//! transcript's Timeline tab: every event from the session's start, read by a follower the app
//! keeps for the session (core's `Timelines`), so a refresh of a growing session reads about
//! what was appended since the last one, not the file's last 16 MiB again.

use agent_sessions_core::live::follow::Update;
use tauri::AppHandle;

use super::{off_main, CmdResult, SessionRef};
use crate::state::AppState;

/// Every event of the session as `log` numbers them (`ended`: its `session_end` is included).
#[tauri::command]
pub async fn session_events(app: AppHandle, session: SessionRef) -> CmdResult<Update> {
    off_main(app, move |state| {
        if let Some(host) = state.remote.current() {
            return host.events(&session);
        }
        local_events(state, &session)
    })
    .await
}

/// The events of a session of this computer, from its kept follower.
fn local_events(state: &AppState, session: &SessionRef) -> CmdResult<Update> {
    let meta = state.resolve(session)?;
    let lib = state.service.library();
    Ok(state.timelines.lock()?.read(lib.catalog(), &meta)?)
}

#[cfg(test)]
mod tests {
    //! A copy of a real fixture session written again as it grows, the Timeline tab asking
    //! for it after each append: the same events as a new follower and a whole read, read at
    //! the cost of the append.

    use std::fs;
    use std::path::{Path, PathBuf};

    use agent_sessions_core::live::events::{self, Event};
    use agent_sessions_core::live::follow::Follower;
    use agent_sessions_core::live::timeline::KEPT;
    use agent_sessions_core::provider::registry::agent;
    use agent_sessions_core::{ProviderKind, Roots, SessionMeta};

    use super::*;

    /// A writable copy of the repository's fixture store of `kind` at `version`
    /// (`testdata/<agent>/<version>/<store>`).
    fn store_copy(kind: ProviderKind, version: &str) -> (tempfile::TempDir, PathBuf) {
        let from = agent_sessions_test_support::fixture(kind, version);
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(agent(kind).fixture_store);
        copy_dir(&from, &root);
        (dir, root)
    }

    /// The public real-world samples, beside the repository when they are there (they may not
    /// be copied into it: `testdata/README.md`).
    fn public_samples() -> PathBuf {
        agent_sessions_test_support::repo().join("../shared/fixtures/public")
    }

    /// Copies a folder's files (as new, writable files: the public samples are read-only).
    fn copy_dir(from: &Path, to: &Path) {
        fs::create_dir_all(to).unwrap();
        for entry in fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_dir(&entry.path(), &target);
            } else {
                fs::write(&target, fs::read(entry.path()).unwrap()).unwrap();
            }
        }
    }

    /// The store's JSONL sessions (what a follower reads in part), largest first.
    fn jsonl_sessions(state: &AppState) -> Vec<SessionMeta> {
        let mut sessions: Vec<SessionMeta> = state.service.list().unwrap().sessions;
        sessions.retain(|s| s.source_path.extension().is_some_and(|e| e == "jsonl"));
        sessions.sort_by_key(|s| std::cmp::Reverse(fs::metadata(&s.source_path).unwrap().len()));
        sessions
    }

    fn named(s: &SessionMeta) -> SessionRef {
        SessionRef::of(s)
    }

    /// What the tab must show now: a new follower's first poll, which equals a whole read.
    fn expected(state: &AppState, meta: &SessionMeta) -> Vec<Event> {
        let lib = state.service.library();
        let fresh = Follower::new(meta.clone(), 0).poll(lib.catalog()).unwrap();
        let whole = lib.catalog().load(meta).unwrap();
        let all = events::project(&whole.messages, fresh.ended);
        assert_eq!(
            fresh.events, all,
            "{}: a new follower reads it whole",
            meta.id
        );
        assert!(!fresh.truncated);
        fresh.events
    }

    /// Asks as the tab does and checks the answer; returns the bytes that request parsed.
    fn ask(state: &AppState, meta: &SessionMeta, what: &str) -> u64 {
        let got = local_events(state, &named(meta)).unwrap();
        let want = expected(state, meta);
        if got.events != want {
            let at = got
                .events
                .iter()
                .zip(&want)
                .take_while(|(a, b)| a == b)
                .count();
            let near = |e: &[Event]| {
                e.iter()
                    .skip(at.saturating_sub(2))
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
            };
            panic!(
                "{}: {what}: {} events, {} expected; from event {at}: {:?}\nexpected {:?}",
                meta.id,
                got.events.len(),
                want.len(),
                near(&got.events),
                near(&want)
            );
        }
        assert!(!got.truncated, "{what}");
        assert_eq!(got.cursor, got.events.last().map_or(0, |e| e.seq), "{what}");
        state.timelines.lock().unwrap().last_cost().parsed
    }

    /// The ends of the file's lines (after each newline).
    fn line_ends(text: &[u8]) -> Vec<usize> {
        let ends = text.iter().enumerate().filter(|(_, b)| **b == b'\n');
        ends.map(|(i, _)| i + 1).collect()
    }

    fn append(path: &Path, bytes: &[u8]) {
        use std::io::Write;
        let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
        f.write_all(bytes).unwrap();
    }

    /// A session's file cut after its first `from` records, then grown again record by record
    /// and in uneven chunks (one in three ending inside a record), the tab asking after each
    /// append and, now and then, showing `other` between two asks. No ask after the first
    /// parses more than its append and `margin` (the messages still open before it).
    fn grow(state: &AppState, meta: &SessionMeta, other: &SessionMeta, from: usize, margin: u64) {
        let text = fs::read(&meta.source_path).unwrap();
        let ends = line_ends(&text);
        let mut written = ends[from.clamp(1, ends.len()) - 1];
        fs::write(&meta.source_path, &text[..written]).unwrap();
        assert_eq!(
            ask(state, meta, "the first ask") as usize,
            written,
            "read whole"
        );
        let (mut parsed, mut appended, mut asks) = (0u64, 0u64, 0usize);
        while written < text.len() {
            asks += 1;
            let lines = ends.iter().filter(|&&e| e > written);
            let mut to = lines
                .take(1 + asks % 5)
                .last()
                .copied()
                .unwrap_or(text.len());
            if asks % 3 == 1 {
                let next = ends.iter().find(|&&e| e > to).copied().unwrap_or(to);
                to += (next - to) / 3;
            }
            append(&meta.source_path, &text[written..to]);
            let cost = ask(state, meta, &format!("after byte {to}"));
            let record = (to - written) as u64;
            assert!(
                cost <= record + margin,
                "{}: {cost} bytes parsed for {record} appended",
                meta.id
            );
            parsed += cost;
            appended += record;
            written = to;
            if asks % 4 == 0 {
                ask(state, other, "another session between two asks");
            }
        }
        eprintln!(
            "{}: {} bytes; {asks} asks after appends of {appended} bytes parsed {parsed} in all",
            meta.id,
            text.len()
        );
    }

    /// The fixture store's largest session grown from half its records, replaced, cut, and
    /// asked for again after its follower was dropped. The open messages an ask reads again
    /// can hold the file's largest record (the Claude fixture's 412 KB tool output): the bound
    /// is that and 64 KiB.
    fn fixture_session(kind: ProviderKind, version: &str) {
        let (_dir, root) = store_copy(kind, version);
        let state = AppState::on_roots(Roots::default().with(kind, [root]));
        let sessions = jsonl_sessions(&state);
        let meta = &sessions[0];
        let text = fs::read(&meta.source_path).unwrap();
        let ends = line_ends(&text);
        let largest = ends.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        let margin = largest as u64 + (64 << 10);
        grow(&state, meta, &sessions[1], ends.len() / 2, margin);
        replaced_and_cut(&state, meta, &text);
        evicted(&state, &sessions, meta);
    }

    /// A file written anew at the same path, then cut short: read again from its start.
    fn replaced_and_cut(state: &AppState, meta: &SessionMeta, text: &[u8]) {
        let ends = line_ends(text);
        let path = &meta.source_path;
        let new = path.with_extension("new");
        fs::write(&new, &text[..ends[ends.len() - 2]]).unwrap();
        fs::rename(&new, path).unwrap();
        let cost = ask(state, meta, "a file replaced by a shorter one");
        assert_eq!(cost as usize, ends[ends.len() - 2], "read again whole");
        fs::write(&new, text).unwrap();
        fs::rename(&new, path).unwrap();
        ask(state, meta, "a file replaced by a longer one");
        fs::write(path, &text[..ends[ends.len() / 3]]).unwrap();
        let cost = ask(state, meta, "a file cut in place");
        assert_eq!(cost as usize, ends[ends.len() / 3], "read again whole");
    }

    /// Past `KEPT` other sessions the first one's follower is gone: read whole, still right.
    fn evicted(state: &AppState, sessions: &[SessionMeta], meta: &SessionMeta) {
        assert!(sessions.len() > KEPT, "{} sessions", sessions.len());
        for s in sessions.iter().skip(1).take(KEPT) {
            ask(state, s, "one of several sessions");
        }
        assert_eq!(state.timelines.lock().unwrap().len(), KEPT);
        let size = fs::metadata(&meta.source_path).unwrap().len();
        assert_eq!(ask(state, meta, "after its follower was dropped"), size);
    }

    #[test]
    fn a_growing_claude_session_is_read_by_its_append() {
        fixture_session(ProviderKind::Claude, "2.1.9");
    }

    #[test]
    fn a_growing_codex_session_is_read_by_its_append() {
        fixture_session(ProviderKind::Codex, "0.171.0");
    }

    /// The public samples (a 3 MB Claude session, a 750 KB Codex rollout), when they are here:
    /// their last 100 records appended, each ask reading far less than the file. A Codex step
    /// (reasoning and tool calls up to the next answer) is read again until it closes.
    #[test]
    fn a_long_public_session_is_read_by_its_append() {
        let public = public_samples();
        if !public.is_dir() {
            eprintln!("no public samples at {}; skipped", public.display());
            return;
        }
        let samples = [
            (ProviderKind::Claude, "claude/marot-spotter", 128 << 10),
            (
                ProviderKind::Codex,
                "codex/codemie-code/dot-codex",
                256 << 10,
            ),
        ];
        for (kind, store, margin) in samples {
            let dir = tempfile::tempdir().unwrap();
            copy_dir(&public.join(store), dir.path());
            let state = AppState::on_roots(Roots::default().with(kind, [dir.path()]));
            let sessions = jsonl_sessions(&state);
            let meta = &sessions[0];
            let size = fs::metadata(&meta.source_path).unwrap().len();
            assert!(margin * 2 < size, "{size} bytes: too small to tell");
            let records = line_ends(&fs::read(&meta.source_path).unwrap()).len();
            grow(
                &state,
                meta,
                &sessions[1],
                records.saturating_sub(100),
                margin,
            );
        }
    }
}
