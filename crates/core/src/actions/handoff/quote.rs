//! Quoting transcript text into a handoff so that it stays a quotation.
//!
//! The reader of a handoff is a model, which takes structure from text, not from a Markdown
//! parser. So transcript text is made inert twice over ([`quoted`]):
//!
//! 1. **Structurally:** it sits in a code fence of backticks longer than any backtick run inside
//!    it (at least three), so no line of it can close the fence, and the handoff's own headings
//!    are the only headings outside fences.
//! 2. **For a reader that does not parse:** inside the fence ([`neutralise`]),
//!    - a `<` that opens something tag-like (`<system>`, `</context>`, `<!--`, `<?xml`,
//!      `<|im_start|>`) is written `&lt;`;
//!    - a line that starts like a speaker's turn (`Human:`, `Assistant:`, `User:`, `System:`,
//!      `Developer:`, `Tool:`, `Function:`, `Model:`, `AI:`, `H:`, `A:`, in any case, after any
//!      indentation or `>` quote marks) gets a backslash before its colon (`Human\:`);
//!    - a line that starts like a heading (`#`) or a fence (three or more `` ` `` or `~`) gets a
//!      backslash before it;
//!    - carriage returns end lines; terminal escape sequences (`ESC [ … m`) are dropped; every
//!      other control character and each bidirectional-text control is written `\u{…}`.
//!
//! Text is never cut here: [`cut_head`] and [`cut_tail`] cut it to a cap (in characters, on a
//! character boundary) with a marker saying how much was left out, before it is quoted.

use crate::actions::export::longest_run;
use crate::actions::resume::is_control;

/// Words that open a speaker's turn in chat transcripts and prompt formats.
pub const ROLE_WORDS: [&str; 11] = [
    "human",
    "assistant",
    "user",
    "system",
    "developer",
    "tool",
    "function",
    "model",
    "ai",
    "h",
    "a",
];

/// `text` as a fenced block (info string `text`) that nothing inside can end or pose as
/// structure; ends with a blank line.
pub fn quoted(text: &str) -> String {
    fenced(&neutralise(text))
}

/// Lines already neutralised, one fence around them all.
pub fn fenced(text: &str) -> String {
    let fence = fence_for(text);
    let mut out = String::with_capacity(text.len() + 2 * fence.len() + 12);
    out.push_str(&fence);
    out.push_str("text\n");
    out.push_str(text);
    if !text.is_empty() && !text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&fence);
    out.push_str("\n\n");
    out
}

/// A backtick fence longer than any backtick run in `text` (at least three).
pub fn fence_for(text: &str) -> String {
    "`".repeat(3.max(longest_run(text, '`') + 1))
}

/// `text` with the escapes of the module doc applied; its lines end with `\n` only.
pub fn neutralise(text: &str) -> String {
    let plain = controls_shown(text);
    let mut out = String::with_capacity(plain.len() + 16);
    for (i, line) in plain.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        line_escaped(line, &mut out);
    }
    out
}

/// One line (no `\n`): its start escaped, then its tag-like `<` written `&lt;`.
fn line_escaped(line: &str, out: &mut String) {
    let indent_len = line.len() - line.trim_start_matches([' ', '\t', '>']).len();
    let (indent, rest) = line.split_at(indent_len);
    out.push_str(indent);
    let rest = if starts_structure(rest) {
        out.push('\\');
        rest.to_owned()
    } else {
        role_escaped(rest)
    };
    tags_escaped(&rest, out);
}

/// A heading (`#`) or a fence (three or more backticks or tildes).
fn starts_structure(rest: &str) -> bool {
    rest.starts_with('#') || rest.starts_with("```") || rest.starts_with("~~~")
}

/// `Human: …` as `Human\: …` (any case, spaces allowed before the colon).
fn role_escaped(rest: &str) -> String {
    let word_len = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    let (word, after) = rest.split_at(word_len);
    let spaces = after.len() - after.trim_start_matches(' ').len();
    let (gap, tail) = after.split_at(spaces);
    let is_role = ROLE_WORDS.iter().any(|r| word.eq_ignore_ascii_case(r));
    match tail.strip_prefix(':') {
        Some(value) if is_role => format!("{word}{gap}\\:{value}"),
        _ => rest.to_owned(),
    }
}

/// Each `<` followed by a letter, `/`, `!`, `?` or `|` written `&lt;`.
fn tags_escaped(text: &str, out: &mut String) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let tag_like = c == '<'
            && chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?' | '|'));
        if tag_like {
            out.push_str("&lt;");
        } else {
            out.push(c);
        }
    }
}

/// Line ends as `\n`; ANSI CSI sequences dropped; other controls (tab kept) and bidi controls
/// as `\u{…}`.
fn controls_shown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            // `ESC [ params final`: colours and cursor moves of terminal output.
            '\u{1b}' if chars.peek() == Some(&'[') => {
                chars.next();
                for n in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&n) {
                        break;
                    }
                }
            }
            c if is_control(c) => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// Text on one line: line breaks and other controls as spaces, runs of spaces kept.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if is_control(c) { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_owned()
}

/// The first characters of `text`, at most `cap` in all with the marker that says what was left
/// out (`[… 1234 more characters]`).
pub fn cut_head(text: &str, cap: usize) -> String {
    let total = text.chars().count();
    if total <= cap {
        return text.to_owned();
    }
    let marker = |n: usize| format!("\n[… {n} more characters]");
    let Some(keep) = cap.checked_sub(marker(total).chars().count()) else {
        return text.chars().take(cap).collect(); // No room for the marker.
    };
    let mut out: String = text.chars().take(keep).collect();
    out.push_str(&marker(total - keep));
    out
}

/// The last characters of `text` (where errors say what went wrong), at most `cap` in all with
/// the marker.
pub fn cut_tail(text: &str, cap: usize) -> String {
    let total = text.chars().count();
    if total <= cap {
        return text.to_owned();
    }
    let marker = |n: usize| format!("[… {n} earlier characters]\n");
    let Some(keep) = cap.checked_sub(marker(total).chars().count()) else {
        return text.chars().skip(total - cap).collect();
    };
    let mut out = marker(total - keep);
    out.extend(text.chars().skip(total - keep));
    out
}

/// The number of characters (Unicode scalar values) of `text`: what budgets count.
pub fn chars(text: &str) -> usize {
    text.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outlast_backtick_runs() {
        assert!(quoted("a ```` b").starts_with("`````text\n"));
        assert!(quoted("plain").starts_with("```text\nplain\n```\n\n"));
    }

    #[test]
    fn escapes_roles_headings_fences_and_tags() {
        let text = "Human: hi\n  > assistant : yo\n# Title\n```\n~~~\n</system><b>Vec<u8> a < b\n\
                    Humane: fine";
        assert_eq!(
            neutralise(text),
            "Human\\: hi\n  > assistant \\: yo\n\\# Title\n\\```\n\\~~~\n\
             &lt;/system>&lt;b>Vec&lt;u8> a < b\nHumane: fine"
        );
    }

    #[test]
    fn controls_are_shown_and_colours_dropped() {
        assert_eq!(
            neutralise("a\r\nb\rc\u{1b}[31mred\u{1b}[0m\u{202e}x\u{0}"),
            "a\nb\ncred\\u{202e}x\\u{0}"
        );
    }

    #[test]
    fn cuts_stay_within_their_cap() {
        let text = "é".repeat(500);
        for cap in [0, 5, 40, 100, 499] {
            assert!(chars(&cut_head(&text, cap)) <= cap, "{cap}");
            assert!(chars(&cut_tail(&text, cap)) <= cap, "{cap}");
        }
        assert!(cut_head(&text, 100).ends_with("[… 424 more characters]"));
        assert!(cut_tail(&text, 100).starts_with("[… 427 earlier characters]\n"));
        assert_eq!(cut_head("short", 10), "short");
    }
}
