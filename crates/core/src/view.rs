//! What the desktop app shows: sessions and transcript pages with Markdown already rendered to
//! sanitized HTML. Everything here is derived; the app's commands return these types.

use serde::Serialize;

use crate::actions::resume::{ResumeCommand, ShellCommand};
use crate::actions::translate::Translation;
use crate::model::{Message, Part, SessionMeta, Transcript};
use crate::render;

/// A message with the HTML of its text parts (`html[i]` belongs to `parts[i]`; `None` for
/// parts the UI shows as plain, escaped text).
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct MessageView {
    #[serde(flatten)]
    pub message: Message,
    pub html: Vec<Option<String>>,
}

/// One page of a transcript, so a 40 MB session shows its first screen at once.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct TranscriptPage {
    pub session: SessionMeta,
    pub messages: Vec<MessageView>,
    /// Index of the first message of this page.
    pub offset: usize,
    /// Messages in the whole transcript.
    pub total: usize,
}

pub fn message_view(m: &Message) -> MessageView {
    let html = m
        .parts
        .iter()
        .map(|p| match p {
            Part::Text { text } => Some(render::markdown(text)),
            Part::Compaction {
                summary: Some(s), ..
            } => Some(render::markdown(s)),
            _ => None,
        })
        .collect();
    MessageView {
        message: m.clone(),
        html,
    }
}

/// The page of `transcript` from `offset`, at most `limit` messages.
pub fn page(transcript: &Transcript, offset: usize, limit: usize) -> TranscriptPage {
    let total = transcript.messages.len();
    let start = offset.min(total);
    let end = start.saturating_add(limit).min(total);
    TranscriptPage {
        session: transcript.session.clone(),
        messages: transcript.messages[start..end]
            .iter()
            .map(message_view)
            .collect(),
        offset: start,
        total,
    }
}

/// The index of the message with `id`, to open a transcript at a search hit.
pub fn position(transcript: &Transcript, id: &str) -> Option<usize> {
    transcript.messages.iter().position(|m| m.id == id)
}

/// A translated message with its text rendered like a message's (sanitized HTML): the
/// endpoint's answer is as untrusted as the transcript.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct TranslationView {
    #[serde(flatten)]
    pub translation: Translation,
    pub html: String,
}

impl From<Translation> for TranslationView {
    fn from(translation: Translation) -> Self {
        let html = render::markdown(&translation.text);
        TranslationView { translation, html }
    }
}

/// A resume command in the forms the UI offers.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ResumeView {
    pub posix: String,
    pub powershell: String,
    /// The form for this platform.
    pub shell: String,
}

impl From<&ResumeCommand> for ResumeView {
    fn from(c: &ResumeCommand) -> Self {
        ResumeView {
            posix: c.posix(),
            powershell: c.powershell(),
            shell: c.for_this_platform(),
        }
    }
}
