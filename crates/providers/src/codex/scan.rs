//! The Codex metadata scan: one streaming pass per rollout, resumable from a byte offset.

use serde::{Deserialize, Serialize};

use super::records::{
    compaction_summary, user_text_kind, Item, Line, Payload, UserText, TOOL_CALLS,
};
use crate::files::fnv1a;
use crate::{jsonl, title_from_text, TITLE_CHARS};
use agent_sessions_model::{Counts, Tokens};

/// The running summary of one rollout.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Accumulator {
    pub id: Option<String>,
    pub parent_id: Option<String>,
    pub forked_from: Option<String>,
    pub nickname: Option<String>,
    pub cwd: Option<String>,
    pub git_branch: Option<String>,
    pub version: Option<String>,
    pub created: Option<String>,
    pub first_timestamp: Option<String>,
    pub last_timestamp: Option<String>,
    pub model: Option<String>,
    /// User prompts as response items.
    pub user_items: u64,
    /// `event_msg/user_message` events: the prompts when a rollout has no user items at all.
    pub user_events: u64,
    pub assistant: u64,
    pub tool_calls: u64,
    pub first_prompt_item: Option<String>,
    pub first_prompt_event: Option<String>,
    pub tokens: Option<Tokens>,
    pub records: u64,
    /// A hash of the last assistant reply's text, while no other response item has followed
    /// it. Codex 0.116–0.158 wrote a compaction's summary as a plain assistant message right
    /// before the `compacted` line that repeats it; that message is no reply (see `add`).
    pending_reply: Option<u64>,
}

impl Accumulator {
    pub fn counts(&self) -> Counts {
        Counts {
            user: if self.user_items > 0 {
                self.user_items
            } else {
                self.user_events
            },
            assistant: self.assistant,
            tool_calls: self.tool_calls,
        }
    }

    pub fn first_prompt(&self) -> Option<&str> {
        self.first_prompt_item
            .as_deref()
            .or(self.first_prompt_event.as_deref())
    }

    pub fn add(&mut self, line: &Line<'_>) {
        self.records += 1;
        if let Some(ts) = line.timestamp() {
            if self.first_timestamp.is_none() {
                self.first_timestamp = Some(ts.to_owned());
            }
            if self.last_timestamp.as_deref() != Some(ts) {
                self.last_timestamp = Some(ts.to_owned());
            }
        }
        match line.item() {
            Item::Meta(p) => {
                // A resumed or forked rollout may repeat meta lines: the first one is this thread.
                if self.id.is_none() {
                    self.id = p.id.as_deref().map(str::to_owned);
                    self.created = line.timestamp().map(str::to_owned);
                    self.parent_id = p.parent_thread();
                    self.forked_from = p.forked_from_id.as_deref().map(str::to_owned);
                    self.nickname = p.agent_nickname.as_deref().map(str::to_owned);
                    self.cwd = p.cwd.as_deref().map(str::to_owned);
                    self.git_branch = p.git.as_ref().and_then(|g| g.branch.clone());
                }
                if let Some(v) = p.cli_version.as_deref() {
                    self.version = Some(v.to_owned());
                }
            }
            Item::TurnContext(p) => {
                if let Some(m) = p.model.as_deref() {
                    self.model = Some(m.to_owned());
                }
                if self.cwd.is_none() {
                    self.cwd = p.cwd.as_deref().map(str::to_owned);
                }
            }
            Item::Response {
                kind,
                payload,
                compaction_output,
            } => {
                self.pending_reply = None;
                self.add_response(kind, payload, compaction_output);
            }
            Item::Event(p) => self.add_event(p),
            Item::Compacted(p) => {
                // The summary a compaction's model call wrote, repeated here: not a reply.
                let summary = compaction_summary(p.message.as_deref().unwrap_or(""));
                if self.pending_reply.take() == Some(fnv1a(summary.as_bytes())) {
                    self.assistant = self.assistant.saturating_sub(1);
                }
            }
            Item::Other => {}
        }
    }

    fn add_response(&mut self, kind: &str, payload: &Payload<'_>, compaction_output: bool) {
        match (kind, payload.role()) {
            ("message", "user") => {
                let text = payload.first_text().unwrap_or("");
                if user_text_kind(text) == UserText::Prompt {
                    self.user_items += 1;
                    if self.first_prompt_item.is_none() {
                        self.first_prompt_item = title_from_text(request(text), TITLE_CHARS);
                    }
                }
            }
            ("message", "assistant") if !compaction_output => {
                self.assistant += 1;
                let text = payload.last_text().unwrap_or("");
                self.pending_reply = Some(fnv1a(text.as_bytes()));
            }
            (k, _) if TOOL_CALLS.contains(&k) => self.tool_calls += 1,
            _ => {}
        }
    }

    fn add_event(&mut self, p: &Payload<'_>) {
        match p.kind() {
            "user_message" => {
                self.user_events += 1;
                if self.first_prompt_event.is_none() {
                    let text = p.message.as_deref().unwrap_or("");
                    self.first_prompt_event = title_from_text(request(text), TITLE_CHARS);
                }
            }
            "token_count" => {
                let usage = p.info.as_ref().and_then(|i| i.total_token_usage);
                if let Some(u) = usage {
                    self.tokens = Some(u.tokens());
                }
            }
            _ => {}
        }
    }
}

/// The desktop app and IDE extension put mentioned files before the request under
/// `## My request for Codex:`; the request is what names the session.
fn request(text: &str) -> &str {
    const MARKER: &str = "## My request for Codex:";
    text.split_once(MARKER).map_or(text, |(_, request)| request)
}

pub type Cursor = jsonl::Cursor<Accumulator>;

/// Reads a JSONL rollout from `cursor` to its end.
pub fn scan_file(path: &std::path::Path, cursor: Cursor) -> std::io::Result<Cursor> {
    jsonl::fold_file(path, cursor, |acc, bytes| {
        let mut scratch = Vec::new();
        let line = jsonl::parse_line_borrowed::<Line>(bytes, &mut scratch)?;
        acc.add(&line);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(lines: &[&str]) -> Accumulator {
        let mut acc = Accumulator::default();
        for l in lines {
            let line: Line = serde_json::from_str(l).unwrap();
            acc.add(&line);
        }
        acc
    }

    #[test]
    fn counts_prompts_answers_and_tools() {
        let acc = fold(&[
            r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"t1","cwd":"/w","cli_version":"0.171.0","git":{"branch":"main"}}}"#,
            r#"{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x"}]}}"#,
            r#"{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"do it"}]}}"#,
            r#"{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"sum"}]},"metadata":{"compaction_output":true}}"#,
            r#"{"timestamp":"2026-01-01T00:00:05Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}"#,
            r#"{"timestamp":"2026-01-01T00:00:06Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":60,"output_tokens":7}}}}"#,
        ]);
        assert_eq!(
            acc.counts(),
            Counts {
                user: 1,
                assistant: 1,
                tool_calls: 1
            }
        );
        assert_eq!(acc.first_prompt(), Some("do it"));
        assert_eq!(
            acc.tokens,
            Some(Tokens {
                input: 40,
                output: 7,
                cache_read: 60,
                cache_write: 0
            })
        );
        assert_eq!(acc.git_branch.as_deref(), Some("main"));
    }

    #[test]
    fn a_summary_written_as_a_plain_reply_before_compacted_is_not_counted() {
        // 0.136–0.157: the compaction's summary is an ordinary assistant message, then
        // `compacted` repeats it after Codex's preamble (token counts may come between).
        let reply = |text: &str| {
            format!(
                r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{text}"}}]}}}}"#
            )
        };
        let compacted = r#"{"timestamp":"t","type":"compacted","payload":{"message":"Another language model started to solve this problem and produced a summary of its thinking process. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:\nSum up."}}"#;
        let tokens =
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null}}"#;
        let call = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}}"#;
        let acc = fold(&[&reply("Hello."), &reply("Sum up."), tokens, compacted]);
        assert_eq!(acc.counts().assistant, 1);
        // A reply that another item follows, or whose text differs, stays a reply.
        let acc = fold(&[&reply("Sum up."), call, compacted]);
        assert_eq!(acc.counts().assistant, 1);
        let acc = fold(&[&reply("Something else."), compacted]);
        assert_eq!(acc.counts().assistant, 1);
    }

    #[test]
    fn user_message_events_count_when_there_are_no_user_items() {
        let acc = fold(&[
            r#"{"timestamp":"t","type":"session_meta","payload":{"id":"t1"}}"#,
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"first"}}"#,
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"second"}}"#,
        ]);
        assert_eq!(acc.counts().user, 2);
        assert_eq!(acc.first_prompt(), Some("first"));
    }
}
