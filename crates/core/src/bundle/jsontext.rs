//! Editing the strings of JSON text where they are, leaving every other byte as it was: how a
//! restore rewrites a directory or an id in an agent's records and how the redaction cleans a
//! transcript, without re-serialising (which would reorder keys and reformat numbers in files
//! the agent reads back) and without holding a parsed tree of a large file.
//!
//! The scan only tracks string boundaries: a `"` outside a string opens one, a `"` not
//! escaped by `\` closes it. A string followed by `:` is a key; a string right after a
//! `key:` is that key's value. Text that is not JSON (a torn last line) is walked the same way
//! and edited no worse.

use std::borrow::Cow;
use std::io::{self, Write};

use serde_json::Value;

/// A string of the text, as the scan meets it.
pub(crate) struct Str<'a> {
    /// The key this string is the value of (raw, without quotes), if it is one.
    pub key: Option<&'a str>,
    /// The string token, quotes included, as written; empty when `decoded` holds the string.
    pub raw: &'a str,
    /// The string itself, when it comes from a parsed tree (not encoded again: it may be
    /// large).
    pub decoded: Option<&'a str>,
}

impl Str<'_> {
    /// Whether the string, as written or as decoded, holds `needle` (a plain id or path).
    pub fn mentions(&self, needle: &str) -> bool {
        self.decoded.unwrap_or(self.raw).contains(needle)
    }

    /// The string's value (escapes decoded); `None` for a torn token.
    pub fn value(&self) -> Option<Cow<'_, str>> {
        if let Some(decoded) = self.decoded {
            return Some(Cow::Borrowed(decoded));
        }
        let inner = self.raw.strip_prefix('"')?.strip_suffix('"')?;
        if !inner.contains('\\') {
            return Some(Cow::Borrowed(inner));
        }
        serde_json::from_str::<String>(self.raw)
            .ok()
            .map(Cow::Owned)
    }
}

/// The JSON token for `value`.
pub(crate) fn encode(value: &str) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "\"\"".to_owned())
}

/// `text` with each string value (not keys) for which `edit` returns a new value replaced by
/// it (encoded as a JSON string); borrowed when nothing changed.
pub(crate) fn edit_values<'a>(
    text: &'a str,
    edit: &mut dyn FnMut(&Str) -> Option<String>,
) -> Cow<'a, str> {
    let mut out: Option<String> = None;
    let copied = edits(text, edit, &mut |before, token| {
        let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 64));
        o.push_str(before);
        o.push_str(token);
    });
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

/// [`edit_values`] written to `w` as it goes, without a copy of `text` in memory.
pub(crate) fn write_values(
    text: &str,
    edit: &mut dyn FnMut(&Str) -> Option<String>,
    w: &mut dyn Write,
) -> io::Result<()> {
    let mut failed = None;
    let copied = edits(text, edit, &mut |before, token| {
        if failed.is_none() {
            failed = w
                .write_all(before.as_bytes())
                .and_then(|()| w.write_all(token.as_bytes()))
                .err();
        }
    });
    match failed {
        Some(e) => Err(e),
        None => w.write_all(&text.as_bytes()[copied..]),
    }
}

/// Hands each edit of `text` to `each`: the text since the previous edit, and the new value's
/// token. Returns where the text after the last edit starts (0 when nothing changed).
fn edits(
    text: &str,
    edit: &mut dyn FnMut(&Str) -> Option<String>,
    each: &mut dyn FnMut(&str, &str),
) -> usize {
    let b = text.as_bytes();
    let mut copied = 0;
    let mut i = 0;
    // The last byte outside strings that was not white space; a string right after `:` is a
    // value of the key before it.
    let mut prev = 0u8;
    let mut key: Option<&str> = None;
    while i < b.len() {
        if b[i] != b'"' {
            if !b[i].is_ascii_whitespace() {
                prev = b[i];
            }
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < b.len() && b[i] != b'"' {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        let end = (i + 1).min(b.len());
        i = end;
        let mut j = end;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        // Quotes are ASCII, so both ends are character boundaries.
        let raw = &text[start..end];
        if j < b.len() && b[j] == b':' {
            key = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"'));
        } else {
            let s = Str {
                key: if prev == b':' { key } else { None },
                raw,
                decoded: None,
            };
            if let Some(new) = edit(&s) {
                each(&text[copied..start], &encode(&new));
                copied = end;
            }
        }
        prev = b'"';
    }
    copied
}

/// Each string of `value` (values, not keys) for which `edit` returns a new value replaced by
/// it, as [`edit_values`] does in text: a string's key is the key it is the value of.
pub(crate) fn edit_tree(value: &mut Value, edit: &mut dyn FnMut(&Str) -> Option<String>) {
    edit_in(value, None, edit);
}

fn edit_in(value: &mut Value, key: Option<&str>, edit: &mut dyn FnMut(&Str) -> Option<String>) {
    match value {
        Value::String(s) => {
            let found = Str {
                key,
                raw: "",
                decoded: Some(s),
            };
            if let Some(new) = edit(&found) {
                *s = new;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| edit_in(v, None, edit)),
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                edit_in(v, Some(k), edit);
            }
        }
        _ => {}
    }
}

/// `path` moved from under `old` to under `new`: `old` itself or `old/…`; `None` otherwise.
/// A Windows directory matches as Windows compares one (see [`after_dir`]); what follows it
/// takes `new`'s separator.
pub(crate) fn moved(path: &str, old: &str, new: &str) -> Option<String> {
    let rest = after_dir(path, old)?;
    let rest = rest.trim_end_matches(['/', '\\']);
    let rest = if is_windows_dir(old) && !is_windows_dir(new) {
        rest.replace('\\', "/")
    } else {
        rest.to_owned()
    };
    Some(format!("{}{rest}", new.trim_end_matches(['/', '\\'])))
}

/// A Windows directory: `C:\…` or `\\server\…` (not one of Linux, macOS or WSL).
pub(crate) fn is_windows_dir(dir: &str) -> bool {
    agent_sessions_model::path::absolute_on_any_os(dir) && !dir.starts_with('/')
}

/// What follows the directory `old` in `path`: nothing, or a separator and more; `None` when
/// `path` is not `old` or below it. A Windows directory (`C:\…`) matches as Windows compares
/// one — the case of ASCII letters aside, `\` and `/` alike, a trailing separator or none —
/// since one session's records can spell it unlike the listing that names it (the two shells
/// it was started from).
fn after_dir<'a>(path: &'a str, old: &str) -> Option<&'a str> {
    let windows = is_windows_dir(old);
    let old = old.trim_end_matches(|c| c == '/' || (windows && c == '\\'));
    if old.is_empty() {
        return None;
    }
    let rest = if windows {
        let head = path.get(..old.len())?;
        let sep = |b: u8| b == b'/' || b == b'\\';
        let same = head
            .bytes()
            .zip(old.bytes())
            .all(|(a, b)| a.eq_ignore_ascii_case(&b) || (sep(a) && sep(b)));
        same.then(|| &path[old.len()..])?
    } else {
        path.strip_prefix(old)?
    };
    let separated = rest.starts_with('/') || (windows && rest.starts_with('\\'));
    (rest.is_empty() || separated).then_some(rest)
}

/// Every `marker<old>` in `text` where `<old>` is the whole directory (followed by the end, a
/// `/`, a quote, `<` or white space) made `marker<new>`; `None` when there is none.
pub(crate) fn moved_after(text: &str, marker: &str, old: &str, new: &str) -> Option<String> {
    let old = old.trim_end_matches('/');
    if old.is_empty() || !text.contains(marker) {
        return None;
    }
    let needle = format!("{marker}{old}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(at) = rest.find(&needle) {
        let after = &rest[at + needle.len()..];
        let whole = after
            .chars()
            .next()
            // `)`: Cline 2.x's "# Current Working Directory (<dir>) Files".
            .is_none_or(|c| matches!(c, '/' | '<' | '"' | '\'' | ')') || c.is_whitespace());
        out.push_str(&rest[..at]);
        if whole {
            out.push_str(marker);
            out.push_str(new.trim_end_matches('/'));
            changed = true;
        } else {
            out.push_str(&needle);
        }
        rest = after;
    }
    out.push_str(rest);
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upper(s: &Str) -> Option<String> {
        match s.key {
            Some("cwd") => s.value().map(|v| v.to_uppercase()),
            _ => None,
        }
    }

    fn upper_cwd(text: &str) -> String {
        edit_values(text, &mut upper).into_owned()
    }

    #[test]
    fn only_values_of_the_key_change_and_everything_else_stays_byte_for_byte() {
        let line =
            r#"{"cwd":"/a/b","x":1.50e3,"n":{"cwd" : "/c"},"l":["cwd"],"s":"\"cwd\":\"/d\""}"#;
        assert_eq!(
            upper_cwd(line),
            r#"{"cwd":"/A/B","x":1.50e3,"n":{"cwd" : "/C"},"l":["cwd"],"s":"\"cwd\":\"/d\""}"#
        );
        // A key whose value is not a string does not pass its name on to later array items.
        assert_eq!(upper_cwd(r#"{"cwd":["/x"]}"#), r#"{"cwd":["/x"]}"#);
        // Torn text is left as it is.
        assert_eq!(upper_cwd(r#"{"cwd":"/a\"#), r#"{"cwd":"/a\"#);
        let unchanged = r#"{"a":"b"}"#;
        assert!(matches!(
            edit_values(unchanged, &mut |_| None),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn written_and_tree_edits_equal_the_text_edit() {
        let line =
            r#"{"cwd":"/a/b","x":1.50e3,"n":{"cwd" : "/c"},"l":["cwd","/a"],"s":"\"cwd\":\"/d\""}"#;
        let mut written = Vec::new();
        write_values(line, &mut |s| upper(s), &mut written).unwrap();
        assert_eq!(String::from_utf8(written).unwrap(), upper_cwd(line));
        let mut tree: Value = serde_json::from_str(line).unwrap();
        edit_tree(&mut tree, &mut |s| upper(s));
        assert_eq!(
            tree,
            serde_json::from_str::<Value>(&upper_cwd(line)).unwrap()
        );
        let mut unchanged = Vec::new();
        write_values("{\"a\":\"b\"}", &mut |_| None, &mut unchanged).unwrap();
        assert_eq!(unchanged, b"{\"a\":\"b\"}");
    }

    #[test]
    fn escaped_values_are_decoded_and_encoded_again() {
        let line = r#"{"cwd":"/a\u00e9\\b"}"#;
        let out = edit_values(line, &mut |s| Some(format!("{}!", s.value().unwrap())));
        assert_eq!(out, r#"{"cwd":"/aé\\b!"}"#);
    }

    #[test]
    fn directories_move_only_as_whole_components() {
        assert_eq!(moved("/a/b", "/a/b", "/n").as_deref(), Some("/n"));
        assert_eq!(moved("/a/b/c", "/a/b", "/n/").as_deref(), Some("/n/c"));
        assert_eq!(moved("/a/bc", "/a/b", "/n"), None);
        assert_eq!(moved("/A/b", "/a/b", "/n"), None);
    }

    /// One session's records can spell its Windows directory unlike its listing: the drive's
    /// and names' case, `/` or `\\`, a trailing separator.
    #[test]
    fn a_windows_directory_moves_however_it_is_spelt() {
        let old = r"C:\Users\Ann\proj";
        for path in [
            r"c:\users\ann\proj\",
            r"C:/Users/Ann/proj",
            r"C:\USERS\ann\PROJ",
        ] {
            assert_eq!(
                moved(path, old, r"D:\n").as_deref(),
                Some(r"D:\n"),
                "{path}"
            );
        }
        assert_eq!(
            moved(r"c:\users\ann\proj\src\a.rs", old, "/home/b/n").as_deref(),
            Some("/home/b/n/src/a.rs")
        );
        assert_eq!(moved(r"C:\Users\Ann\project", old, r"D:\n"), None);
        assert_eq!(moved(r"C:\Users\Ann\pröj", old, r"D:\n"), None);
        assert_eq!(
            moved_after("x <cwd>/a/b</cwd> <cwd>/a/bc</cwd>", "<cwd>", "/a/b", "/n").as_deref(),
            Some("x <cwd>/n</cwd> <cwd>/a/bc</cwd>")
        );
        assert_eq!(moved_after("nothing", "<cwd>", "/a", "/n"), None);
    }
}
