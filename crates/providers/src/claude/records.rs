//! Claude Code's JSONL records, and the rules that decide what each one means.
//!
//! Both the metadata scan and the transcript loader classify records with the functions here,
//! so the counts in the session list always equal what the transcript shows.

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::lenient;
use agent_sessions_model::Tokens;

/// The fields of a record that the metadata scan needs. Everything else is skipped unread.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record<'a> {
    #[serde(rename = "type", default, borrow, deserialize_with = "lenient::str")]
    pub kind: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub subtype: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub uuid: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub parent_uuid: Option<Cow<'a, str>>,
    /// Set where `parentUuid` is null across a compaction boundary.
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub logical_parent_uuid: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub session_id: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub timestamp: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub cwd: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub version: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub git_branch: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub is_meta: Option<bool>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub is_sidechain: Option<bool>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub is_compact_summary: Option<bool>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub is_visible_in_transcript_only: Option<bool>,
    #[serde(default, borrow, deserialize_with = "lenient::object")]
    pub origin: Option<Origin<'a>>,
    #[serde(default, borrow, deserialize_with = "lenient::object")]
    pub message: Option<MessageRecord<'a>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub summary: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub leaf_uuid: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub custom_title: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub ai_title: Option<Cow<'a, str>>,
    #[serde(rename = "totalCostUSD", default, deserialize_with = "lenient::f64")]
    pub total_cost_usd: Option<f64>,
}

#[derive(Debug, Deserialize)]
pub struct Origin<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub kind: Option<Cow<'a, str>>,
}

#[derive(Debug, Deserialize)]
pub struct MessageRecord<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub id: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub model: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub content: Option<Content<'a>>,
    #[serde(default, deserialize_with = "lenient::object")]
    pub usage: Option<Usage>,
}

/// `message.content`: a plain string or a list of blocks.
#[derive(Debug)]
pub enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
    Other,
}

// Hand-written rather than `#[serde(untagged)]`, which would buffer every block (tool results
// of megabytes included) before choosing a variant.
impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> serde::de::Visitor<'de> for ContentVisitor {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(MaybeBlock(b)) = seq.next_element::<MaybeBlock<'de>>()? {
                    blocks.extend(b);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
        }
        d.deserialize_any(ContentVisitor)
    }
}

/// A list element that is a block when it is an object, and skipped otherwise.
struct MaybeBlock<'a>(Option<Block<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for MaybeBlock<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient::object(d).map(MaybeBlock)
    }
}

/// A content block, reduced to what the scan needs (inputs and results are skipped).
#[derive(Debug, Deserialize)]
pub struct Block<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub text: Option<Cow<'a, str>>,
}

#[derive(Debug, Default, Clone, Copy, Deserialize)]
pub struct Usage {
    #[serde(default, deserialize_with = "lenient::u64")]
    pub input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::u64")]
    pub output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::u64")]
    pub cache_read_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::u64")]
    pub cache_creation_input_tokens: Option<u64>,
}

impl Usage {
    pub fn tokens(&self) -> Tokens {
        Tokens {
            input: self.input_tokens.unwrap_or(0),
            output: self.output_tokens.unwrap_or(0),
            cache_read: self.cache_read_input_tokens.unwrap_or(0),
            cache_write: self.cache_creation_input_tokens.unwrap_or(0),
        }
    }
}

/// The model name Claude Code writes on messages it made up itself (errors, interrupts).
pub const SYNTHETIC_MODEL: &str = "<synthetic>";

/// What a `user` record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserKind {
    /// A prompt the human (or, in a subagent file, the parent agent) gave: counted.
    Prompt,
    /// Tool results: merged into the assistant's tool parts.
    ToolResult,
    /// A slash command, its output, or the caveat before it.
    Command,
    /// The summary that opens a compacted conversation.
    CompactSummary,
    /// "[Request interrupted by user]" and similar markers.
    Interrupt,
    /// Everything else the tool injected: system reminders, hook output, notifications.
    Injected,
}

/// The facts about a user record that decide its kind.
#[derive(Debug, Default)]
pub struct UserFacts<'a> {
    pub is_meta: bool,
    pub is_compact_summary: bool,
    pub origin_kind: Option<&'a str>,
    pub has_tool_result: bool,
    /// The first text of the message (string content or first text block).
    pub text: Option<&'a str>,
    /// The content has blocks (text or image) a human can send.
    pub has_content: bool,
}

/// Text prefixes of user records that Claude Code writes itself.
const COMMAND_PREFIXES: &[&str] = &[
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "Caveat: The messages below were generated by the user while running local commands",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
];

const INJECTED_PREFIXES: &[&str] = &[
    "<system-reminder>",
    "<task-notification>",
    "<user-prompt-submit-hook>",
    "<user-memory-input>",
];

const INTERRUPT_PREFIX: &str = "[Request interrupted by user";

const COMPACT_SUMMARY_PREFIX: &str = "This session is being continued from a previous conversation";

pub fn classify_user(f: &UserFacts<'_>) -> UserKind {
    if f.has_tool_result {
        return UserKind::ToolResult;
    }
    if f.is_compact_summary {
        return UserKind::CompactSummary;
    }
    let text = f.text.map(str::trim_start).unwrap_or("");
    if COMMAND_PREFIXES.iter().any(|p| text.starts_with(p)) {
        return UserKind::Command;
    }
    if text.starts_with(INTERRUPT_PREFIX) {
        return UserKind::Interrupt;
    }
    if text.starts_with(COMPACT_SUMMARY_PREFIX) {
        return UserKind::CompactSummary;
    }
    if f.is_meta || INJECTED_PREFIXES.iter().any(|p| text.starts_with(p)) {
        return UserKind::Injected;
    }
    if matches!(f.origin_kind, Some(k) if k != "human") {
        return UserKind::Injected;
    }
    if !f.has_content {
        return UserKind::Injected;
    }
    UserKind::Prompt
}

impl<'a> Record<'a> {
    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    pub fn sidechain(&self) -> bool {
        self.is_sidechain.unwrap_or(false)
    }

    pub fn user_facts(&self) -> UserFacts<'_> {
        let mut facts = UserFacts {
            is_meta: self.is_meta.unwrap_or(false),
            is_compact_summary: self.is_compact_summary.unwrap_or(false)
                || self.is_visible_in_transcript_only.unwrap_or(false),
            origin_kind: self.origin.as_ref().and_then(|o| o.kind.as_deref()),
            ..UserFacts::default()
        };
        match self.message.as_ref().and_then(|m| m.content.as_ref()) {
            Some(Content::Text(t)) => {
                facts.text = Some(t);
                facts.has_content = !t.trim().is_empty();
            }
            Some(Content::Blocks(blocks)) => {
                for b in blocks {
                    match b.kind.as_deref() {
                        Some("tool_result") => facts.has_tool_result = true,
                        Some("text") => {
                            if facts.text.is_none() {
                                facts.text = b.text.as_deref();
                            }
                            facts.has_content |=
                                b.text.as_deref().is_some_and(|t| !t.trim().is_empty());
                        }
                        Some("image") | Some("document") => facts.has_content = true,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        facts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(line: &str) -> UserKind {
        let r: Record = serde_json::from_str(line).unwrap();
        classify_user(&r.user_facts())
    }

    #[test]
    fn classifies_user_records_seen_in_the_fixtures() {
        assert_eq!(
            kind_of(r#"{"type":"user","message":{"content":"CHAT hi"}}"#),
            UserKind::Prompt
        );
        assert_eq!(
            kind_of(r#"{"type":"user","message":{"content":[{"type":"text","text":"List"}]}}"#),
            UserKind::Prompt
        );
        assert_eq!(
            kind_of(
                r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}"#
            ),
            UserKind::ToolResult
        );
        assert_eq!(
            kind_of(
                r#"{"type":"user","message":{"content":"<command-name>/compact</command-name>"}}"#
            ),
            UserKind::Command
        );
        assert_eq!(
            kind_of(
                r#"{"type":"user","message":{"content":[{"type":"text","text":"Caveat: The messages below were generated by the user while running local commands. DO NOT"}]}}"#
            ),
            UserKind::Command
        );
        assert_eq!(
            kind_of(r#"{"type":"user","isMeta":true,"message":{"content":"hello"}}"#),
            UserKind::Injected
        );
        assert_eq!(
            kind_of(
                r#"{"type":"user","origin":{"kind":"task-notification"},"message":{"content":"<task-notification>x"}}"#
            ),
            UserKind::Injected
        );
        assert_eq!(
            kind_of(
                r#"{"type":"user","isCompactSummary":true,"message":{"content":"This session is being continued"}}"#
            ),
            UserKind::CompactSummary
        );
        assert_eq!(
            kind_of(
                r#"{"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}"#
            ),
            UserKind::Interrupt
        );
    }
}
