//! What every provider's transcript builder shares: a message as a record starts it, a notice
//! part, the finished transcript (counts from its messages), and, for the agents whose session
//! is one JSONL file, reading it whole, from a line start, or streamed through
//! [`Held`](crate::held::Held).
//!
//! A builder keeps the agent's own rules (what a record is, how split records merge); this
//! module keeps what is the same for all of them, so the three cannot drift apart.

use chrono::{DateTime, Utc};
use serde_json::Value;

use std::collections::VecDeque;

use crate::blob::BlobKey;
use crate::error::Error;
use crate::held::Held;
use crate::jsonl::for_each_record_from;
use crate::tail::{LineStart, Resume};
use agent_sessions_model::{
    Counts, Diagnostics, Message, NoticeKind, Part, ProviderKind, Role, SessionMeta, ToolPart,
    ToolStatus, Transcript,
};

/// A message as the record on line `line` (1-based; `None` for stores without lines) starts it:
/// not counted, not meta, no parent, model or parts yet.
pub(crate) fn message(
    id: String,
    role: Role,
    timestamp: Option<DateTime<Utc>>,
    line: Option<u64>,
) -> Message {
    Message {
        id,
        role,
        parent_id: None,
        timestamp,
        model: None,
        counted: false,
        meta: false,
        sidechain: false,
        parts: Vec::new(),
        source_lines: line.into_iter().collect(),
    }
}

/// A tool call as its request starts it: no result yet.
pub(crate) fn tool(call_id: String, name: String, input: Value) -> ToolPart {
    ToolPart {
        call_id,
        name,
        input,
        status: ToolStatus::Pending,
        output: None,
        output_truncated: false,
        output_blob: None,
        changes: Vec::new(),
        subagent_id: None,
    }
}

/// A notice part.
pub(crate) fn notice(source: NoticeKind, text: String) -> Part {
    Part::Notice { source, text }
}

/// The `index`-th image of the record at byte `offset`: its bytes are a blob, read on demand.
pub(crate) fn image(offset: u64, index: usize, mime: Option<String>) -> Part {
    Part::File {
        path: None,
        mime,
        blob: Some(BlobKey::Image { offset, index }.key()),
    }
}

/// The transcript of `session` with these messages: its counts are the messages' own.
pub(crate) fn transcript(
    session: &SessionMeta,
    messages: Vec<Message>,
    diagnostics: Diagnostics,
) -> Transcript {
    let mut session = session.clone();
    session.counts = Counts::of(&messages);
    Transcript {
        session,
        messages,
        diagnostics,
    }
}

/// A builder of a transcript read from a JSONL file, record by record.
pub(crate) trait LineBuilder {
    /// One record: its value, the byte offset of its line, its 1-based line number.
    fn add(&mut self, value: &Value, offset: u64, line: u64);

    /// Hands to `each` the messages nothing later can change (see [`crate::held::Held::release`]).
    fn release(&mut self, each: &mut dyn FnMut(Message));

    /// Hands out every message still held, at the end of the file (the builder is left with
    /// none: what else it holds, its caller may still take).
    fn release_rest(&mut self, each: &mut dyn FnMut(Message));

    /// Every message, when none was released.
    fn into_messages(self) -> Vec<Message>;

    /// The messages it holds.
    fn held(&self) -> &Held;

    /// What a read resumed before the next record needs of the records before it (see
    /// [`Resume::state`]); the module's `load_each_from` gives it back to a new builder. Asked
    /// before every record: cheap, and empty for a builder that carries nothing.
    fn carried(&self) -> Vec<u8> {
        Vec::new()
    }
}

/// The transcript from `from` (a line start) to the end of the session's file.
pub(crate) fn read_from(
    kind: ProviderKind,
    session: &SessionMeta,
    mut builder: impl LineBuilder,
    from: LineStart,
) -> Result<Transcript, Error> {
    let diagnostics = for_each_record_from(
        kind,
        &session.source_path,
        from.offset,
        from.line,
        |v, offset, line| builder.add(v, offset, line),
    )?;
    Ok(transcript(session, builder.into_messages(), diagnostics))
}

/// Where a streamed read starts: a line start, and for a read resumed where an earlier one said
/// it could (see [`stream`]), what the builder carried there and the start of the last record
/// that read took.
#[derive(Debug, Clone, Default)]
pub(crate) struct Start {
    from: LineStart,
    /// [`LineBuilder::carried`] at `from`, for the module to give its new builder.
    pub carried: Vec<u8>,
    /// The last record the earlier read took (`None`: a read from the start).
    held_through: Option<u64>,
}

/// What [`stream`] keeps in [`Resume::state`].
#[derive(serde::Serialize, serde::Deserialize)]
struct Point {
    carried: Vec<u8>,
    held_through: u64,
}

impl Start {
    /// Where `resume` says a read starts (`None`: from the start); a state this build did not
    /// write is an error before anything is read, so the caller reads from the start instead.
    pub(crate) fn of(session: &SessionMeta, resume: Option<&Resume>) -> Result<Start, Error> {
        let Some(resume) = resume else {
            return Ok(Start::default());
        };
        let Some(point) = crate::decode_state::<Point>(&resume.state) else {
            return Err(other_version(session));
        };
        Ok(Start {
            from: resume.from,
            carried: point.carried,
            held_through: Some(point.held_through),
        })
    }
}

/// The error for a resume point this build cannot read (an older build wrote it).
pub(crate) fn other_version(session: &SessionMeta) -> Error {
    let e = std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "a resume point of another version: read the session from the start",
    );
    Error::io(&session.source_path, e)
}

/// Hands each message of the session's file from `start` on to `each` as soon as nothing later
/// can change it, so a transcript of any size streams with bounded memory (see [`Held`]). Also
/// returns where a later read of the file, grown since, can start again (see
/// [`Held::resume_line`]): from there a new builder given [`LineBuilder::carried`] hands out
/// what this one would have, so an append costs a read of what is held, not of the file.
///
/// A resumed read hands nothing out until it is past the last record the read before took:
/// up to there that read held every message from the resume point on, while a new builder,
/// which has not seen the older messages held with them (a call waiting for its result keeps
/// everything after it), would let one go that a later record of the same answer still
/// changes. From there on both hold the same messages. What it holds meanwhile is what the
/// read before held.
pub(crate) fn stream(
    kind: ProviderKind,
    session: &SessionMeta,
    builder: &mut impl LineBuilder,
    start: Start,
    each: &mut dyn FnMut(Message),
) -> Result<(Diagnostics, Option<Resume>), Error> {
    // The line starts of the records from the oldest message held on, each with what the
    // builder carried before it: what a resume point can be, kept as long as the messages are.
    let mut starts: VecDeque<(LineStart, Vec<u8>)> = VecDeque::new();
    let mut last = None;
    let diagnostics = for_each_record_from(
        kind,
        &session.source_path,
        start.from.offset,
        start.from.line,
        |v, offset, line| {
            let at = LineStart {
                offset,
                line: line.saturating_sub(1),
            };
            starts.push_back((at, builder.carried()));
            builder.add(v, offset, line);
            last = Some(offset);
            if start.held_through.is_some_and(|held| offset <= held) {
                return;
            }
            builder.release(each);
            let first = builder.held().first_line().unwrap_or(u64::MAX);
            while starts.front().is_some_and(|(s, _)| s.line + 1 < first) {
                starts.pop_front();
            }
        },
    )?;
    let resume = builder.held().resume_line().and_then(|line| {
        let (from, carried) = starts.into_iter().find(|(s, _)| s.line + 1 == line)?;
        let held_through = last?;
        let state = crate::encode_state(&Point {
            carried,
            held_through,
        });
        Some(Resume { from, state })
    });
    builder.release_rest(each);
    Ok((diagnostics, resume))
}

/// Checks [`stream`]'s resume points on `session`'s file, cut at every line end and in the
/// middle of every line as a live agent leaves it: a read of the prefix says where to start
/// again; a read from there of the whole file (grown since) hands out exactly the messages a
/// read of the whole file from the start does from that line on (but for parents before it),
/// and so does a read from where that read says, after the file grew again, holding messages
/// as `limits` ([`Held::with_limits`]) say. Returns the points checked; panics on a mismatch.
#[cfg(test)]
pub(crate) fn check_resume_points(
    session: &SessionMeta,
    limits: (usize, usize),
    load_each_from: LoadEachFrom,
) -> usize {
    resume_mismatch(session, limits, load_each_from).unwrap_or_else(|e| panic!("{e}"))
}

/// [`check_resume_points`], saying what differs at the first mismatch instead of panicking
/// (the property tests shrink on it).
#[cfg(test)]
pub(crate) fn resume_mismatch(
    session: &SessionMeta,
    limits: (usize, usize),
    load_each_from: LoadEachFrom,
) -> Result<usize, String> {
    let held = || Held::with_limits(limits.0, limits.1);
    let read = |s: &SessionMeta, resume: Option<&Resume>, held: Held| {
        let mut read = Vec::new();
        let (_, next) = load_each_from(s, resume, held, &mut |m| read.push(m)).unwrap();
        (read, next)
    };
    let bytes = std::fs::read(&session.source_path).unwrap();
    let (whole, _) = read(session, None, held());
    let from_line = |resume: &Resume| -> Vec<Message> {
        let first = resume.from.line + 1;
        whole
            .iter()
            .filter(|m| m.source_lines.iter().min().is_some_and(|&l| l >= first))
            .cloned()
            .map(without_parent)
            .collect()
    };
    let dir = tempfile::tempdir().unwrap();
    let mut copy = session.clone();
    copy.source_path = dir.path().join(session.source_path.file_name().unwrap());
    let mut cuts = Vec::new();
    for (i, _) in bytes.iter().enumerate().filter(|(_, b)| **b == b'\n') {
        cuts.push(i + 1);
    }
    let mid: Vec<usize> = cuts.windows(2).map(|w| (w[0] + w[1]) / 2).collect();
    cuts.extend(mid);
    let mut checked = 0;
    for &cut in &cuts {
        std::fs::write(&copy.source_path, &bytes[..cut]).unwrap();
        let (_, Some(first)) = read(&copy, None, held()) else {
            continue;
        };
        // The file grows to the next cut, then to its whole.
        let next = cuts.iter().copied().filter(|&c| c > cut).min();
        let second = next.and_then(|next| {
            std::fs::write(&copy.source_path, &bytes[..next]).unwrap();
            read(&copy, Some(&first), held()).1
        });
        std::fs::write(&copy.source_path, &bytes).unwrap();
        for resume in std::iter::once(&first).chain(second.as_ref()) {
            let (again, _) = read(&copy, Some(resume), held());
            let again: Vec<Message> = again.into_iter().map(without_parent).collect();
            let expected = from_line(resume);
            if again != expected {
                let at = again.iter().zip(&expected).position(|(a, e)| a != e);
                let at = at.unwrap_or(again.len().min(expected.len()));
                return Err(format!(
                    "{}: cut at byte {cut}, read again from line {}: {} messages, a whole read \
                     has {} from there; first difference at #{at}:\n resumed {:?}\n whole   {:?}",
                    session.id,
                    resume.from.line + 1,
                    again.len(),
                    expected.len(),
                    again.get(at),
                    expected.get(at),
                ));
            }
            checked += 1;
        }
    }
    Ok(checked)
}

#[cfg(test)]
fn without_parent(mut m: Message) -> Message {
    m.parent_id = None;
    m
}

/// A provider module's `load_each_from`.
#[cfg(test)]
pub(crate) type LoadEachFrom = fn(
    &SessionMeta,
    Option<&Resume>,
    Held,
    &mut dyn FnMut(Message),
) -> Result<(Diagnostics, Option<Resume>), Error>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Provider;

    type NewProvider = fn(std::path::PathBuf) -> Box<dyn Provider>;

    /// A read resumed where an earlier read of the same file said it could be gives what a
    /// whole read does from there: every session of every Claude and Codex fixture, cut at
    /// every line end and mid-line (see [`check_resume_points`]), holding 2 messages while
    /// calls wait, 8 at most, and as many as streaming does.
    #[test]
    fn reads_resumed_after_an_append_equal_a_whole_read() {
        let testdata = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
        let agents: [(&str, &str, NewProvider, LoadEachFrom); 2] = [
            (
                "claude",
                "dot-claude",
                |root| Box::new(crate::claude::ClaudeProvider::new(vec![root])),
                crate::claude::transcript::load_each_from,
            ),
            (
                "codex",
                "dot-codex",
                |root| Box::new(crate::codex::CodexProvider::new(vec![root])),
                crate::codex::transcript::load_each_from,
            ),
        ];
        for (agent, store, provider, load_each_from) in agents {
            let (mut sessions, mut points) = (0, 0);
            for version in std::fs::read_dir(testdata.join(agent)).unwrap().flatten() {
                let provider = provider(version.path().join(store));
                let listed = provider.scan(&Vec::new(), &Default::default()).unwrap();
                for s in listed.changed.iter().filter(|s| provider.reads_in_part(s)) {
                    for limits in [
                        (2, 1000),
                        (8, 8),
                        (crate::held::KEEP, crate::held::KEEP_AT_MOST),
                    ] {
                        points += check_resume_points(s, limits, load_each_from);
                    }
                    sessions += 1;
                }
            }
            assert!(
                sessions > 10 && points > 20 * sessions,
                "{agent}: {sessions}, {points}"
            );
        }
    }
}
