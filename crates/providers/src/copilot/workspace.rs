//! `session-state/<id>/workspace.yaml`: the session's metadata beside its event log, a flat
//! YAML mapping of scalars (`id`, `cwd`, `name`, `user_named`, `summary_count`, …). The CLI
//! keeps the session's name there: the first prompt at the start, a generated one
//! (`session.name.setAuto`), or what `/rename` set (`user_named: true`); versions before 1.0
//! kept a `summary` instead. The name is never in the log, so it is read from here.
//!
//! The file is a flat mapping of scalars, written by the CLI's runtime or (a forked session)
//! by the `yaml` npm package, which folds long values over indented lines: [`value`] reads one
//! top-level key's scalar in any of YAML's scalar styles. Nested values are not read.

use std::path::Path;

use crate::files;

/// The file's name in a session folder.
pub const FILE: &str = "workspace.yaml";

/// The most read of it: it holds a few short fields, so anything larger is not one.
const MAX: u64 = 1 << 20;

/// The session's name as its `workspace.yaml` beside `events` says (`name`, else `summary`);
/// `None` when there is no such file, no such key, or an empty one.
pub fn name(events: &Path) -> Option<String> {
    let path = events.parent()?.join(FILE);
    let bytes = files::read_document(&path, MAX).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    ["name", "summary"]
        .into_iter()
        .filter_map(|key| value(&text, key))
        .find(|v| !v.trim().is_empty())
}

/// The scalar of the top-level `key` of a flat YAML mapping: plain, single- or double-quoted
/// (each over indented continuation lines, folded as YAML folds them) or a block scalar
/// (`|`, `>`). `None` when the key is missing, null, or its value is not a scalar we read.
pub fn value(text: &str, key: &str) -> Option<String> {
    let mut lines = text.lines();
    let first = lines.find_map(|l| {
        let rest = l.strip_prefix(key)?.strip_prefix(':')?;
        (rest.is_empty() || rest.starts_with([' ', '\t'])).then_some(rest.trim())
    })?;
    // A scalar goes on over the lines indented below its key (or empty).
    let more: Vec<&str> = lines
        .take_while(|l| l.trim().is_empty() || l.starts_with([' ', '\t']))
        .collect();
    let nested = more.iter().map(|l| l.trim()).find(|l| !l.is_empty());
    if first.is_empty() && nested.is_some_and(|l| l.starts_with("- ") || l.contains(": ")) {
        return None;
    }
    match first.chars().next() {
        Some('\'') => single_quoted(&fold(first, &more)),
        Some('"') => double_quoted(&fold(first, &more)),
        Some('|') | Some('>') => Some(block(first, &more)),
        _ => plain(&fold(first, &more)),
    }
}

/// Lines folded as YAML folds a flow scalar: lines joined by a space, an empty line a newline.
fn fold(first: &str, more: &[&str]) -> String {
    let mut out = first.to_owned();
    let mut empty = 0;
    for line in more.iter().map(|l| l.trim()) {
        if line.is_empty() {
            empty += 1;
            continue;
        }
        if empty > 0 {
            out.push_str(&"\n".repeat(empty));
        } else if !out.is_empty() {
            out.push(' ');
        }
        empty = 0;
        out.push_str(line);
    }
    out
}

/// A plain scalar: up to a ` #` comment; `~` and `null` are no value.
fn plain(text: &str) -> Option<String> {
    let text = text.split(" #").next().unwrap_or_default().trim();
    let null = matches!(text, "" | "~" | "null" | "Null" | "NULL");
    (!null).then(|| text.to_owned())
}

/// `'…'`, with `''` for a quote.
fn single_quoted(text: &str) -> Option<String> {
    let inner = text.strip_prefix('\'')?.strip_suffix('\'')?;
    Some(inner.replace("''", "'"))
}

/// `"…"`, with YAML's backslash escapes; `None` for an unknown escape or an unclosed quote.
fn double_quoted(text: &str) -> Option<String> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let escaped = match chars.next()? {
            '0' => '\0',
            'a' => '\x07',
            'b' => '\x08',
            't' | '\t' => '\t',
            'n' => '\n',
            'v' => '\x0b',
            'f' => '\x0c',
            'r' => '\r',
            'e' => '\x1b',
            ' ' => ' ',
            '"' => '"',
            '/' => '/',
            '\\' => '\\',
            'N' => '\u{85}',
            '_' => '\u{a0}',
            'L' => '\u{2028}',
            'P' => '\u{2029}',
            'x' => hex(&mut chars, 2)?,
            'u' => hex(&mut chars, 4)?,
            'U' => hex(&mut chars, 8)?,
            _ => return None,
        };
        out.push(escaped);
    }
    Some(out)
}

fn hex(chars: &mut std::str::Chars, digits: usize) -> Option<char> {
    let code: String = chars.take(digits).collect();
    if code.len() != digits {
        return None;
    }
    char::from_u32(u32::from_str_radix(&code, 16).ok()?)
}

/// `|` keeps the lines, `>` folds them; both drop the indentation of their first line and the
/// trailing newlines (the chomping and indentation indicators only change what a title does
/// not show).
fn block(header: &str, more: &[&str]) -> String {
    let indent = more
        .iter()
        .find(|l| !l.trim().is_empty())
        .map_or(0, |l| l.len() - l.trim_start().len());
    let lines: Vec<&str> = more
        .iter()
        .map(|l| l.get(indent..).unwrap_or_default().trim_end())
        .collect();
    let text = if header.starts_with('>') {
        fold("", &lines)
    } else {
        lines.join("\n")
    };
    text.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every scalar style the CLI's writers use, and the ones YAML allows besides.
    #[test]
    fn reads_one_key_in_every_scalar_style() {
        let text =
            "id: 2d35678b\ncwd: /home/u/p\nname: '[[fail]] it''s: here'\nuser_named: false\n";
        assert_eq!(value(text, "name").as_deref(), Some("[[fail]] it's: here"));
        assert_eq!(value(text, "id").as_deref(), Some("2d35678b"));
        assert_eq!(value(text, "user_named").as_deref(), Some("false"));
        // A key is a whole key, not the start of another.
        assert_eq!(value("named: x\n", "name"), None);
        assert_eq!(value("name:x\n", "name"), None);
        let plain = "name: Привет, 世界! Что здесь? # a comment\nuser_named: true\n";
        assert_eq!(
            value(plain, "name").as_deref(),
            Some("Привет, 世界! Что здесь?")
        );
        let escaped = "name: \"tab\\there \\\"q\\\" \\u00e9\\U0001F44B\"\n";
        assert_eq!(
            value(escaped, "name").as_deref(),
            Some("tab\there \"q\" é👋")
        );
        assert_eq!(value("name: \"bad \\q\"\n", "name"), None);
        assert_eq!(value("name: \"unclosed\n", "name"), None);
        assert_eq!(value("name: ~\n", "name"), None);
        assert_eq!(value("name:\nid: x\n", "name"), None);
        assert_eq!(value("name:\n  a: b\n", "name"), None);
        assert_eq!(value("name:\n  - a\n", "name"), None);
        assert_eq!(value("id: x\n", "name"), None);
    }

    /// The `yaml` package folds a long value over indented lines; block scalars keep lines.
    #[test]
    fn reads_folded_and_block_scalars() {
        let cases = [
            (
                "name: a long name that the\n  writer folded over\n\n  two lines\nid: x\n",
                "a long name that the writer folded over\ntwo lines",
            ),
            ("name: 'it''s folded\n  here'\nid: x\n", "it's folded here"),
            (
                "name: |-\n  first line\n  second line\nid: x\n",
                "first line\nsecond line",
            ),
            ("name: >\n  one\n  two\n", "one two"),
        ];
        for (text, want) in cases {
            assert_eq!(value(text, "name").as_deref(), Some(want), "{text}");
        }
    }

    /// `name` first, `summary` (before 1.0) else; an empty name is none; a missing or
    /// oversized file is none.
    #[test]
    fn the_name_is_name_else_summary() {
        let dir = tempfile::tempdir().unwrap();
        let events = dir.path().join("events.jsonl");
        assert_eq!(name(&events), None);
        let yaml = dir.path().join(FILE);
        std::fs::write(&yaml, "id: x\nsummary: Fix the parser\nname: ''\n").unwrap();
        assert_eq!(name(&events).as_deref(), Some("Fix the parser"));
        std::fs::write(&yaml, "name: Renamed\nsummary: Fix the parser\n").unwrap();
        assert_eq!(name(&events).as_deref(), Some("Renamed"));
        std::fs::write(&yaml, vec![b'x'; MAX as usize + 1]).unwrap();
        assert_eq!(name(&events), None);
    }
}
