//! What every provider's transcript builder shares: a message as a record starts it, a notice
//! part, the finished transcript (counts from its messages), and, for the agents whose session
//! is one JSONL file, reading it whole, from a line start, or streamed through
//! [`Held`](crate::held::Held).
//!
//! A builder keeps the agent's own rules (what a record is, how split records merge); this
//! module keeps what is the same for all of them, so the three cannot drift apart.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::blob::BlobKey;
use crate::error::Error;
use crate::jsonl::for_each_record_from;
use crate::tail::LineStart;
use agent_sessions_model::{
    Counts, Diagnostics, Message, NoticeKind, Part, ProviderKind, Role, SessionMeta, Transcript,
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

    /// Hands out every message still held, at the end of the file.
    fn release_rest(self, each: &mut dyn FnMut(Message));

    /// Every message, when none was released.
    fn into_messages(self) -> Vec<Message>;
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

/// Hands each message of the session's file to `each` as soon as nothing later can change it,
/// so a transcript of any size streams with bounded memory (see [`crate::held::Held`]).
pub(crate) fn stream(
    kind: ProviderKind,
    session: &SessionMeta,
    mut builder: impl LineBuilder,
    each: &mut dyn FnMut(Message),
) -> Result<Diagnostics, Error> {
    let diagnostics = for_each_record_from(kind, &session.source_path, 0, 0, |v, offset, line| {
        builder.add(v, offset, line);
        builder.release(each);
    })?;
    builder.release_rest(each);
    Ok(diagnostics)
}
