//! Helpers of the handoff tests: Claude sessions written record by record as Claude Code writes
//! them, and the checks that a handoff document's structure is only its own.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use agent_sessions_core::actions::handoff::quote::ROLE_WORDS;
use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use serde_json::{json, Value};

/// A Claude Code session file, built a record at a time.
pub struct ClaudeLog {
    id: String,
    cwd: String,
    lines: Vec<Value>,
    parent: Option<String>,
}

impl ClaudeLog {
    pub fn new(id: &str, cwd: &str) -> ClaudeLog {
        ClaudeLog {
            id: id.to_owned(),
            cwd: cwd.to_owned(),
            lines: Vec::new(),
            parent: None,
        }
    }

    fn record(&mut self, kind: &str, message: Value, details: Value) {
        let n = self.lines.len();
        let uuid = format!("00000000-0000-4000-8000-{n:012}");
        let mut record = json!({
            "parentUuid": self.parent, "isSidechain": false, "userType": "external",
            "cwd": self.cwd, "sessionId": self.id, "version": "2.1.9", "gitBranch": "main",
            "type": kind, "message": message, "uuid": uuid,
            "timestamp": format!("2026-11-30T10:{:02}:{:02}.000Z", n / 60 % 60, n % 60),
        });
        if !details.is_null() {
            record["toolUseResult"] = details;
        }
        self.parent = Some(uuid);
        self.lines.push(record);
    }

    pub fn user(&mut self, text: &str) {
        self.record(
            "user",
            json!({"role": "user", "content": text}),
            Value::Null,
        );
    }

    fn assistant(&mut self, content: Value) {
        let n = self.lines.len();
        let message = json!({"id": format!("msg_{n}"), "type": "message", "role": "assistant",
                             "model": "claude-test-1", "content": content});
        self.record("assistant", message, Value::Null);
    }

    pub fn text(&mut self, text: &str) {
        self.assistant(json!([{"type": "text", "text": text}]));
    }

    /// A tool call and its result (`details`: the record's `toolUseResult`, or null).
    pub fn tool(&mut self, name: &str, input: Value, output: &str, error: bool, details: Value) {
        let call = format!("toolu_{}", self.lines.len());
        self.assistant(json!([{"type": "tool_use", "id": call, "name": name, "input": input}]));
        let result = json!({"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": call, "content": output, "is_error": error}]});
        self.record("user", result, details);
    }

    /// Writes `<root>/projects/-work/<id>.jsonl`.
    pub fn write(&self, root: &Path) -> PathBuf {
        let project = root.join("projects/-work");
        std::fs::create_dir_all(&project).unwrap();
        let text: String = self.lines.iter().map(|l| format!("{l}\n")).collect();
        let file = project.join(format!("{}.jsonl", self.id));
        std::fs::write(&file, text).unwrap();
        file
    }
}

/// The headings a handoff writes itself (their text's start).
const HEADINGS: [&str; 14] = [
    "Source",
    "Goal",
    "The user's other requests",
    "Request ",
    "Working state",
    "The summary written when",
    "The last plan",
    "Files changed",
    "Commands run",
    "Errors",
    "Recent turns",
    "User",
    "Assistant",
    "Next",
];

/// The document's structure is its own: a Markdown parser finds only the handoff's headings,
/// no HTML, and each of `markers` (text planted in the transcript) only inside code blocks;
/// read as plain text, no line starts like a speaker's turn or a heading of the transcript's,
/// and nothing is tag-like.
pub fn assert_inert(doc: &str, markers: &[&str]) {
    assert!(doc.starts_with("This is a handoff."), "{doc}");
    let mut in_code = false;
    let mut heading: Option<String> = None;
    for event in Parser::new(doc) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Start(Tag::Heading { level, .. }) => {
                assert!(level >= HeadingLevel::H2 && level <= HeadingLevel::H3);
                heading = Some(String::new());
            }
            Event::End(TagEnd::Heading(_)) => {
                let text = heading.take().unwrap();
                assert!(
                    HEADINGS.iter().any(|h| text.starts_with(h)),
                    "a heading not of the handoff's own: {text:?}\n{doc}"
                );
            }
            Event::Html(h) | Event::InlineHtml(h) => panic!("HTML in the handoff: {h:?}\n{doc}"),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
                if !in_code {
                    for m in markers {
                        assert!(!t.contains(m), "{m:?} outside a code block: {t:?}\n{doc}");
                    }
                }
            }
            _ => {}
        }
    }
    let mut chars = doc.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '<' {
            let next = chars.peek().copied().unwrap_or(' ');
            assert!(
                !(next.is_ascii_alphabetic() || "/!?|".contains(next)),
                "a tag-like '<{next}' in the handoff\n{doc}"
            );
        }
    }
    for line in doc.lines() {
        let rest = line.trim_start_matches([' ', '\t', '>']);
        let word: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
        let after = rest[word.len()..].trim_start_matches(' ');
        let is_role = ROLE_WORDS.iter().any(|r| word.eq_ignore_ascii_case(r));
        assert!(
            !(is_role && after.starts_with(':')),
            "a line that reads as a speaker's turn: {line:?}"
        );
        if line.starts_with('#') {
            let text = line.trim_start_matches('#').trim_start();
            assert!(HEADINGS.iter().any(|h| text.starts_with(h)), "{line:?}");
        }
    }
}

/// The part of `doc` under the heading line that starts with `heading`, up to the next heading
/// of the same or a higher level (empty when there is no such heading).
pub fn section<'d>(doc: &'d str, heading: &str) -> &'d str {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let Some(start) = doc
        .match_indices(heading)
        .map(|(i, _)| i)
        .find(|i| *i == 0 || doc[..*i].ends_with('\n'))
    else {
        return "";
    };
    let body = &doc[start + heading.len()..];
    let mut offset = 0;
    for line in body.split_inclusive('\n').skip(1) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if hashes > 0 && hashes <= level && line[hashes..].starts_with(' ') {
            break;
        }
        offset += line.len();
    }
    let first = body.split_inclusive('\n').next().map_or(0, str::len);
    &body[..(first + offset).min(body.len())]
}
