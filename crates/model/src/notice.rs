//! What produced a notice part: the kinds the providers emit, as one enum rather than strings
//! spelled in three builders. Its JSON (and TypeScript) form stays the string it always was
//! (`command`, `attachment:<type>`, …), so transcripts, exports and bundles are unchanged;
//! parsing any string gives a kind that writes the same string back.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub enum NoticeKind {
    /// A slash command or local command the user ran (`command`).
    Command,
    /// The user interrupted the agent (`interrupt`).
    Interrupt,
    /// A tool result with no call to join (`tool_result`, Claude).
    ToolResult,
    /// A tool output with no call to join (`tool_output`, Codex).
    ToolOutput,
    /// The summary a compaction wrote, hidden (`compaction_output`, Codex).
    CompactionOutput,
    /// An error the agent reported (`error`).
    Error,
    /// The agent asks the user for something, e.g. an approval (`ask`).
    Ask,
    /// Text injected into the conversation with no name of its own (`injected`).
    Injected,
    /// Injected context recognised by its tag (`injected:<tag>`, Codex).
    InjectedTag(String),
    /// An attachment record (`attachment:<type>`, Claude).
    Attachment(String),
    /// A system record of a subtype shown as it is (`system:<subtype>`, Claude).
    System(String),
    /// A content block of a type we do not know (`block:<type>`, Claude).
    Block(String),
    /// A response item of a type we do not know (`item:<type>`, Codex).
    Item(String),
    /// A part of a type we do not know (`part:<type>`, OpenCode).
    Part(String),
    /// A name the agent wrote itself: Claude's record origin, a Codex message role.
    Agent(String),
}

impl NoticeKind {
    const PLAIN: [(&'static str, NoticeKind); 8] = [
        ("command", NoticeKind::Command),
        ("interrupt", NoticeKind::Interrupt),
        ("tool_result", NoticeKind::ToolResult),
        ("tool_output", NoticeKind::ToolOutput),
        ("compaction_output", NoticeKind::CompactionOutput),
        ("error", NoticeKind::Error),
        ("ask", NoticeKind::Ask),
        ("injected", NoticeKind::Injected),
    ];

    /// The kind a string names (any string: one not known is [`NoticeKind::Agent`]).
    pub fn parse(s: &str) -> NoticeKind {
        if let Some((_, kind)) = Self::PLAIN.iter().find(|(name, _)| *name == s) {
            return kind.clone();
        }
        let tagged = s.split_once(':').and_then(|(prefix, rest)| {
            let rest = rest.to_owned();
            Some(match prefix {
                "injected" => NoticeKind::InjectedTag(rest),
                "attachment" => NoticeKind::Attachment(rest),
                "system" => NoticeKind::System(rest),
                "block" => NoticeKind::Block(rest),
                "item" => NoticeKind::Item(rest),
                "part" => NoticeKind::Part(rest),
                _ => return None,
            })
        });
        tagged.unwrap_or_else(|| NoticeKind::Agent(s.to_owned()))
    }

    /// The prefix and the agent's own name of a tagged kind, or the whole name of a plain one.
    fn pieces(&self) -> (&str, Option<&str>) {
        let tagged = match self {
            NoticeKind::InjectedTag(t) => Some(("injected", t)),
            NoticeKind::Attachment(t) => Some(("attachment", t)),
            NoticeKind::System(t) => Some(("system", t)),
            NoticeKind::Block(t) => Some(("block", t)),
            NoticeKind::Item(t) => Some(("item", t)),
            NoticeKind::Part(t) => Some(("part", t)),
            _ => None,
        };
        if let Some((prefix, rest)) = tagged {
            return (prefix, Some(rest.as_str()));
        }
        match self {
            NoticeKind::Agent(name) => (name.as_str(), None),
            plain => {
                let name = Self::PLAIN
                    .iter()
                    .find(|(_, k)| k == plain)
                    .map(|(n, _)| *n);
                (name.unwrap_or_default(), None)
            }
        }
    }
}

impl fmt::Display for NoticeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pieces() {
            (prefix, Some(rest)) => write!(f, "{prefix}:{rest}"),
            (name, None) => f.write_str(name),
        }
    }
}

impl From<NoticeKind> for String {
    fn from(kind: NoticeKind) -> String {
        kind.to_string()
    }
}

impl From<String> for NoticeKind {
    fn from(s: String) -> NoticeKind {
        NoticeKind::parse(&s)
    }
}

impl From<&str> for NoticeKind {
    fn from(s: &str) -> NoticeKind {
        NoticeKind::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_string_reads_back_as_itself() {
        for s in [
            "command",
            "ask",
            "injected",
            "injected:environment_context",
            "attachment:hook_success",
            "system:api_error",
            "block:server_tool_use",
            "item:web_search_call",
            "part:snapshot",
            "developer",
            "task-notification",
            "odd:prefix",
            "",
        ] {
            let kind = NoticeKind::parse(s);
            assert_eq!(kind.to_string(), s);
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, serde_json::to_string(s).unwrap());
            assert_eq!(serde_json::from_str::<NoticeKind>(&json).unwrap(), kind);
        }
        assert_eq!(NoticeKind::parse("ask"), NoticeKind::Ask);
        assert_eq!(
            NoticeKind::parse("attachment:x"),
            NoticeKind::Attachment("x".into())
        );
        assert_eq!(
            NoticeKind::parse("developer"),
            NoticeKind::Agent("developer".into())
        );
    }
}
