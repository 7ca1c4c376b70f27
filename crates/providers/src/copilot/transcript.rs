//! A Copilot CLI session's transcript: an event log read whole, from a line start, or streamed
//! and resumed after an append (the log is append-only, so a follower reads only what grew,
//! as Claude's and Codex's do); a ≤ 0.0.341 history document, rewritten whole, read whole.

use serde_json::Value;

use super::events::{self, Builder};
use super::{history, is_history, read_history};
use crate::blob::{self, BlobKey};
use crate::build::{self, LineBuilder};
use crate::error::Error;
use crate::held::Held;
use crate::tail::{LineStart, Links, Resume, Streamed};
use agent_sessions_model::{Diagnostics, Message, ProviderKind, SessionMeta, Transcript};

pub fn load(session: &SessionMeta) -> Result<Transcript, Error> {
    load_from(session, LineStart::default())
}

/// The transcript from `from` (a line start of an event log) to its end; a history document
/// whole.
pub fn load_from(session: &SessionMeta, from: LineStart) -> Result<Transcript, Error> {
    if is_history(session) {
        return load_history(session);
    }
    let path = &session.source_path;
    let mut builder = Builder::default();
    let mut diagnostics = crate::jsonl::for_each_record_from(
        ProviderKind::Copilot,
        path,
        from.offset,
        from.line,
        |value, offset, line| builder.add(value, offset, line),
    )?;
    diagnostics.merge(&builder.skipped(path));
    Ok(build::transcript(
        session,
        builder.into_messages(),
        diagnostics,
    ))
}

fn load_history(session: &SessionMeta) -> Result<Transcript, Error> {
    let path = &session.source_path;
    let doc = read_history(path).map_err(|reason| {
        Error::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, reason),
        )
    })?;
    let messages = history::messages(&doc);
    Ok(build::transcript(session, messages, Diagnostics::default()))
}

/// Hands each message of an event log to `each` as soon as nothing later can change it (see
/// [`Held`]), from `resume` (see [`crate::Provider::load_each_from`]). The builder carries
/// nothing over a resume point: a result joins a call still held, and everything else is one
/// event's own.
pub fn load_each_from(
    session: &SessionMeta,
    resume: Option<&Resume>,
    held: Held,
    each: &mut dyn FnMut(Message),
) -> Streamed {
    load_each_linked(session, resume, held, &mut Links::default(), each)
}

/// [`load_each_from`] for a reader that keeps what it read: no message of a Copilot log
/// depends on one before a resume point, so `links` stay as they are.
pub fn load_each_linked(
    session: &SessionMeta,
    resume: Option<&Resume>,
    held: Held,
    _links: &mut Links,
    each: &mut dyn FnMut(Message),
) -> Streamed {
    if is_history(session) {
        let t = load_history(session)?;
        t.messages.into_iter().for_each(each);
        return Ok((t.diagnostics, None));
    }
    let start = build::Start::of(session, resume)?;
    let mut builder = Builder::new(held);
    let (mut diagnostics, next) =
        build::stream(ProviderKind::Copilot, session, &mut builder, start, each)?;
    diagnostics.merge(&builder.skipped(&session.source_path));
    Ok((diagnostics, next))
}

/// A tool output longer than the transcript keeps: the result in the event at its offset.
pub fn blob(session: &SessionMeta, key: &str) -> Result<Vec<u8>, Error> {
    let missing = |reason: &str| blob::not_found(session, key, reason);
    let BlobKey::ToolResult { offset, call } = blob::parse(session, key)? else {
        return Err(missing("unknown blob kind"));
    };
    let path = &session.source_path;
    let mut reader =
        crate::jsonl::LineReader::open_at(path, offset, 0).map_err(|e| Error::io(path, e))?;
    let line = reader.next_line().map_err(|e| Error::io(path, e))?;
    let event: Value = line
        .and_then(|l| crate::jsonl::parse_line(l.bytes).ok())
        .ok_or_else(|| missing("no event at that offset"))?;
    let data = &event["data"];
    if data.get("toolCallId").and_then(Value::as_str) != Some(call.as_str()) {
        return Err(missing("no result of that call at that offset"));
    }
    events::result_text(data)
        .map(String::into_bytes)
        .ok_or_else(|| missing("the result has no text"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Provider;

    /// Every session of every Copilot fixture, as the scan lists it.
    fn fixture_sessions() -> Vec<SessionMeta> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/copilot");
        let mut out = Vec::new();
        for version in std::fs::read_dir(&root).unwrap().flatten() {
            let store = version.path().join("dot-copilot");
            if !store.is_dir() {
                continue;
            }
            let provider = super::super::CopilotProvider::new(vec![store]);
            out.extend(
                provider
                    .scan(&Vec::new(), &Default::default())
                    .unwrap()
                    .changed,
            );
        }
        out
    }

    /// Streaming hands out exactly the messages a whole load builds, however early it has to
    /// let go of them: every session of every Copilot fixture, holding as few as 2 messages.
    #[test]
    fn streaming_equals_a_whole_load() {
        let mut checked = 0;
        for s in fixture_sessions() {
            let whole = load(&s).unwrap();
            for keep in [2, 8] {
                let mut streamed = Vec::new();
                let held = Held::with_limits(keep, 1000);
                let (d, _) = load_each_from(&s, None, held, &mut |m| streamed.push(m)).unwrap();
                assert_eq!(d, whole.diagnostics);
                assert_eq!(streamed, whole.messages, "{} keep {keep}", s.id);
            }
            checked += 1;
        }
        assert!(checked >= 8, "{checked}");
    }

    /// A read resumed where an earlier read of the same log said it could be gives what a
    /// whole read does from there: every event log of every fixture, cut at every line end
    /// and mid-line (see [`build::check_resume_points`]).
    #[test]
    fn reads_resumed_after_an_append_equal_a_whole_read() {
        let provider = super::super::CopilotProvider::new(Vec::new());
        let (mut sessions, mut points) = (0, 0);
        for s in fixture_sessions()
            .iter()
            .filter(|s| provider.reads_in_part(s))
        {
            for limits in [
                (2, 1000),
                (8, 8),
                (crate::held::KEEP, crate::held::KEEP_AT_MOST),
            ] {
                points += build::check_resume_points(s, limits, load_each_from);
            }
            sessions += 1;
        }
        assert!(
            sessions >= 7 && points > 20 * sessions,
            "{sessions}, {points}"
        );
    }

    /// What `log --follow` and the app's open transcript do with a live session: read it,
    /// then after the CLI appended, read on from where the first read said, not the whole log
    /// again. The recorded tool loop, cut after its first tool result and then written whole:
    /// the second read starts past the file's start and hands out what a whole read does
    /// from there.
    #[test]
    fn a_follower_reads_only_what_the_log_grew_by() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../../testdata/copilot/1.0.102/dot-copilot/session-state/\
             373a9440-329a-4fec-b25e-02d27d658ae7/events.jsonl",
        );
        let bytes = std::fs::read(&fixture).unwrap();
        let cut = bytes
            .split_inclusive(|b| *b == b'\n')
            .scan(0, |end, line| {
                *end += line.len();
                Some((*end, line))
            })
            .find(|(_, line)| line.windows(23).any(|w| w == b"tool.execution_complete"))
            .map(|(end, _)| end)
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let session = SessionMeta::new(
            ProviderKind::Copilot,
            "373a9440-329a-4fec-b25e-02d27d658ae7".into(),
            path.clone(),
        );
        let provider = super::super::CopilotProvider::new(Vec::new());
        assert!(provider.reads_in_part(&session));
        let (_, point) = provider
            .load_each_from(&session, None, &mut |_| {})
            .unwrap();
        let point = point.expect("a read of a growing log says where to read on");
        assert!(point.from.offset > 0);

        std::fs::write(&path, &bytes).unwrap();
        let mut again = Vec::new();
        provider
            .load_each_from(&session, Some(&point), &mut |m| again.push(m))
            .unwrap();
        let first = point.from.line + 1;
        let whole: Vec<Message> = provider
            .load(&session)
            .unwrap()
            .messages
            .into_iter()
            .filter(|m| m.source_lines.iter().min().is_some_and(|&l| l >= first))
            .collect();
        assert!(!again.is_empty());
        assert_eq!(again, whole);
        // The follower's window reads from a line start too.
        let from = provider.load_from(&session, point.from).unwrap();
        assert_eq!(from.messages, whole);
    }
}
