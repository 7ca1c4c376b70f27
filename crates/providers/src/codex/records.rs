//! Codex rollout lines, normalized across generations, and the rules for what each one means.
//!
//! Three line shapes exist: the envelope `{timestamp, type, payload}` (0.34+), the legacy bare
//! format (line 1 `{id, timestamp, instructions}`, then bare response items and
//! `{"record_type":"state"}` lines), and the items of the old TypeScript single-file rollout.
//! [`Line::item`] turns each into one [`Item`]; the scan and the transcript loader both work on
//! items and share [`user_text_kind`].

use std::borrow::Cow;

use serde::Deserialize;

use crate::lenient;
use agent_sessions_model::Tokens;

/// One rollout line, with the fields of every shape (unknown ones skipped unread).
#[derive(Debug, Deserialize)]
pub struct Line<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "type", default, borrow, deserialize_with = "lenient::str")]
    pub kind: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::object")]
    pub payload: Option<Payload<'a>>,
    #[serde(default, deserialize_with = "lenient::object")]
    pub metadata: Option<ItemMetadata>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub record_type: Option<Cow<'a, str>>,
    /// A bare (legacy) line is its own payload.
    #[serde(flatten, borrow)]
    pub bare: Payload<'a>,
}

/// The fields of a payload (or of a bare legacy line) that we read.
#[derive(Debug, Default, Deserialize)]
pub struct Payload<'a> {
    #[serde(rename = "type", default, borrow, deserialize_with = "lenient::str")]
    pub kind: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub id: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub timestamp: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub role: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "content")]
    pub content: Option<Vec<ContentItem<'a>>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub cwd: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub cli_version: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub model: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient::object")]
    pub git: Option<Git>,
    #[serde(default, deserialize_with = "lenient::object")]
    pub source: Option<Source>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub parent_thread_id: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub forked_from_id: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub agent_nickname: Option<Cow<'a, str>>,
    /// `event_msg/user_message` text (and `compacted` summary text).
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub message: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient::object")]
    pub info: Option<TokenInfo>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ItemMetadata {
    #[serde(default, deserialize_with = "lenient::bool")]
    pub compaction_output: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Git {
    #[serde(default, deserialize_with = "lenient::string")]
    pub branch: Option<String>,
}

/// `session_meta.source`: a string (`exec`, `cli`, `vscode`) or `{subagent: {thread_spawn: …}}`.
#[derive(Debug, Default, Deserialize)]
pub struct Source {
    #[serde(default, deserialize_with = "lenient::object")]
    pub subagent: Option<SubagentSource>,
}

#[derive(Debug, Default, Deserialize)]
pub struct SubagentSource {
    #[serde(default, deserialize_with = "lenient::object")]
    pub thread_spawn: Option<ThreadSpawn>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ThreadSpawn {
    #[serde(default, deserialize_with = "lenient::string")]
    pub parent_thread_id: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct TokenInfo {
    #[serde(default, deserialize_with = "lenient::object")]
    pub total_token_usage: Option<TokenUsage>,
}

#[derive(Debug, Default, Clone, Copy, Deserialize)]
pub struct TokenUsage {
    #[serde(default, deserialize_with = "lenient::u64")]
    pub input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::u64")]
    pub cached_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::u64")]
    pub cache_write_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::u64")]
    pub output_tokens: Option<u64>,
}

impl TokenUsage {
    /// Codex counts cached tokens inside `input_tokens`; ours keeps them apart, as Claude does.
    pub fn tokens(&self) -> Tokens {
        let input = self.input_tokens.unwrap_or(0);
        let cached = self.cached_input_tokens.unwrap_or(0).min(input);
        Tokens {
            input: input - cached,
            output: self.output_tokens.unwrap_or(0),
            cache_read: cached,
            cache_write: self.cache_write_input_tokens.unwrap_or(0),
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct ContentItem<'a> {
    #[serde(rename = "type", default, borrow, deserialize_with = "lenient::str")]
    pub kind: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::str")]
    pub text: Option<Cow<'a, str>>,
}

fn content<'de: 'a, 'a, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<ContentItem<'a>>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(transparent)]
    struct Items<'a>(#[serde(borrow)] Vec<MaybeItem<'a>>);
    struct MaybeItem<'a>(Option<ContentItem<'a>>);
    impl<'de: 'a, 'a> Deserialize<'de> for MaybeItem<'a> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            lenient::object(d).map(MaybeItem)
        }
    }
    // A string content (never seen, but cheap to survive) reads as no items.
    Ok(lenient::array::<_, Items>(d)?
        .map(|items| items.0.into_iter().filter_map(|i| i.0).collect()))
}

/// What a line is, whatever its generation.
#[derive(Debug)]
pub enum Item<'l, 'a> {
    /// `session_meta`, or the legacy first line `{id, timestamp, instructions}`.
    Meta(&'l Payload<'a>),
    TurnContext(&'l Payload<'a>),
    /// A model-facing item: message, reasoning, function call/output, web search, …
    Response {
        kind: &'l str,
        payload: &'l Payload<'a>,
        compaction_output: bool,
    },
    Event(&'l Payload<'a>),
    Compacted(&'l Payload<'a>),
    /// Bookkeeping (`record_type: state`, `world_state`, `token_usage_record`, …).
    Other,
}

impl<'a> Line<'a> {
    /// The line's own timestamp (envelope), or the payload's.
    pub fn timestamp(&self) -> Option<&str> {
        self.timestamp
            .as_deref()
            .or_else(|| self.payload.as_ref().and_then(|p| p.timestamp.as_deref()))
    }

    pub fn item(&self) -> Item<'_, 'a> {
        if self.record_type.is_some() {
            return Item::Other;
        }
        if let Some(payload) = &self.payload {
            let compaction_output = self
                .metadata
                .as_ref()
                .and_then(|m| m.compaction_output)
                .unwrap_or(false);
            return match self.kind.as_deref() {
                Some("session_meta") => Item::Meta(payload),
                Some("turn_context") => Item::TurnContext(payload),
                Some("response_item") => Item::Response {
                    kind: payload.kind(),
                    payload,
                    compaction_output,
                },
                Some("event_msg") => Item::Event(payload),
                Some("compacted") => Item::Compacted(payload),
                _ => Item::Other,
            };
        }
        // A bare line: the outer fields took its `type` and `timestamp`.
        match self.kind.as_deref() {
            None if self.bare.id.is_some() && self.timestamp.is_some() => Item::Meta(&self.bare),
            Some(kind) => Item::Response {
                kind,
                payload: &self.bare,
                compaction_output: false,
            },
            None => Item::Other,
        }
    }
}

impl Payload<'_> {
    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    pub fn role(&self) -> &str {
        self.role.as_deref().unwrap_or("")
    }

    /// The first text of a message's content.
    pub fn first_text(&self) -> Option<&str> {
        self.content
            .as_ref()?
            .iter()
            .find_map(|c| c.text.as_deref())
    }

    /// The last text of a message's content (what Codex takes as a reply's text).
    pub fn last_text(&self) -> Option<&str> {
        self.content
            .as_ref()?
            .iter()
            .rev()
            .find_map(|c| c.text.as_deref())
    }

    /// The parent of a subagent thread, from `source.subagent.thread_spawn` or
    /// `parent_thread_id`.
    pub fn parent_thread(&self) -> Option<String> {
        self.source
            .as_ref()
            .and_then(|s| s.subagent.as_ref())
            .and_then(|s| s.thread_spawn.as_ref())
            .and_then(|t| t.parent_thread_id.clone())
            .or_else(|| self.parent_thread_id.as_deref().map(str::to_owned))
    }
}

/// The end of the preamble Codex puts before the summary in a `compacted` line's `message`.
const COMPACTION_PREAMBLE_END: &str =
    "use the information in this summary to assist with your own analysis:\n";

/// The summary in a `compacted` line's `message` (the model's text after Codex's preamble).
pub fn compaction_summary(message: &str) -> &str {
    message
        .split_once(COMPACTION_PREAMBLE_END)
        .map_or(message, |(_, summary)| summary)
}

/// Response item types that are tool calls.
pub const TOOL_CALLS: &[&str] = &[
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "web_search_call",
    "tool_search_call",
    "image_generation_call",
];

/// Text Codex injects as a `user` (or `developer`) message: context, not a prompt.
const INJECTED_PREFIXES: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<skills_instructions>",
    "<plugins_instructions>",
    "<collaboration_mode>",
    "<subagent_notification>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<INSTRUCTIONS>",
];

/// What a user message's text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserText {
    Prompt,
    /// Injected context; the tag names which kind.
    Injected(&'static str),
}

pub fn user_text_kind(text: &str) -> UserText {
    let t = text.trim_start();
    match INJECTED_PREFIXES.iter().find(|p| t.starts_with(**p)) {
        Some(p) => UserText::Injected(p),
        None => UserText::Prompt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(line: &str) -> String {
        let l: Line = serde_json::from_str(line).unwrap();
        match l.item() {
            Item::Meta(p) => format!("meta {}", p.id.as_deref().unwrap_or("")),
            Item::TurnContext(p) => format!("turn {}", p.model.as_deref().unwrap_or("")),
            Item::Response {
                kind,
                payload,
                compaction_output,
            } => {
                format!("response {kind} {} {compaction_output}", payload.role())
            }
            Item::Event(p) => format!("event {}", p.kind()),
            Item::Compacted(_) => "compacted".into(),
            Item::Other => "other".into(),
        }
    }

    #[test]
    fn normalizes_every_generation() {
        assert_eq!(
            kind(r#"{"id":"abc","timestamp":"2026-01-01T00:00:00Z","instructions":null}"#),
            "meta abc"
        );
        assert_eq!(kind(r#"{"record_type":"state"}"#), "other");
        assert_eq!(
            kind(
                r#"{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"hi"}]}"#
            ),
            "response message user false"
        );
        assert_eq!(
            kind(r#"{"timestamp":"t","type":"session_meta","payload":{"id":"x","source":"exec"}}"#),
            "meta x"
        );
        assert_eq!(
            kind(
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[]},"metadata":{"compaction_output":true}}"#
            ),
            "response message assistant true"
        );
        assert_eq!(
            kind(r#"{"timestamp":"t","ordinal":3,"type":"world_state","payload":{"full":true}}"#),
            "other"
        );
        assert_eq!(
            kind(r#"{"timestamp":"t","type":"turn_context","payload":{"model":"gpt"}}"#),
            "turn gpt"
        );
    }

    #[test]
    fn finds_subagent_parents_in_both_places() {
        let l: Line = serde_json::from_str(
            r#"{"type":"session_meta","payload":{"id":"c","source":{"subagent":{"thread_spawn":{"parent_thread_id":"p"}}}}}"#,
        )
        .unwrap();
        let Item::Meta(p) = l.item() else { panic!() };
        assert_eq!(p.parent_thread().as_deref(), Some("p"));
        let l: Line =
            serde_json::from_str(r#"{"type":"session_meta","payload":{"id":"c","parent_thread_id":"q","source":"exec"}}"#)
                .unwrap();
        let Item::Meta(p) = l.item() else { panic!() };
        assert_eq!(p.parent_thread().as_deref(), Some("q"));
    }

    #[test]
    fn tells_injected_context_from_prompts() {
        assert_eq!(
            user_text_kind("<environment_context>\n<cwd>/x</cwd>"),
            UserText::Injected("<environment_context>")
        );
        assert_eq!(
            user_text_kind("# AGENTS.md instructions for /x"),
            UserText::Injected("# AGENTS.md instructions")
        );
        assert_eq!(user_text_kind("fix <div> rendering"), UserText::Prompt);
    }
}
